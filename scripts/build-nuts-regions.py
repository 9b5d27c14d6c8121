#!/usr/bin/env python3
"""Build Sources/Warnings/Resources/nuts-regions.jsonl: Eurostat's NUTS 2021 regions of MeteoAlarm's countries.

Several countries' MeteoAlarm feeds name a warning's area only by a NUTS code (`NUTS3` FR…, BG…; `NUTS2` for
some Belgian, Hungarian and Dutch areas), and MeteoAlarm's own alias list (which maps some NUTS codes to its
EMMA_ID regions, shipped in meteoalarm-areas.jsonl) lacks the codes of NUTS 2016 and 2021. To place such a
warning by geometry, forecastd ships the NUTS 3 regions' shapes; a NUTS 2 region is read as the union of its
NUTS 3 regions (its code is their first four characters), so it costs nothing more.

Source: Eurostat GISCO, "Countries 2021 / NUTS 2021" statistical units, 1:20 million, EPSG:4326
(NUTS_RG_20M_2021_4326_LEVL_3.geojson, as published by GISCO's distribution service and committed by Eurostat
in github.com/eurostat/mortality-viz @ 095a0239880b2f9fa56719ebb245f55ebd28ba55). Terms: reuse is allowed with
the credit "© EuroGeographics for the administrative boundaries" (GISCO's copyright notice), kept in the file's
header, docs/warnings.md and the package's copyright file.

    python3 scripts/build-nuts-regions.py NUTS_RG_20M_2021_4326_LEVL_3.geojson

What it does: keeps the countries MeteoAlarm has a feed for (GISCO's EL is Greece's ISO GR, UK is GB), rounds
coordinates to 3 decimals (at most 80 m) and removes the repeated positions that leaves; the 1:20 million
shapes are already generalised, so nothing else is simplified. How far their borders lie from the real ones
was measured against MeteoAlarm's own regions where both describe the same area (docs/warnings.md): half the
border points within 1.4 km, 95 % within 4 km, 99 % within 6 km; the header's tolerance_km is 5, and forecastd
counts a position within that distance of a region as inside it.

Output: one JSON object a line, a header then the regions sorted by country and code, in the format of
meteoalarm-areas.jsonl (with "scheme":"NUTS3"). The same input always gives the same bytes.
"""

import hashlib
import json
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
OUTPUT = REPOSITORY / "Sources" / "Warnings" / "Resources" / "nuts-regions.jsonl"
DECIMALS = 3
TOLERANCE_KM = 5.0
# MeteoAlarm's countries (Sources/Warnings/SourceSelection.swift, MeteoAlarmCountries.feeds) that NUTS covers,
# by GISCO's country code, with the ISO code the daemon uses.
COUNTRIES = {
    "AT": "AT", "BE": "BE", "BG": "BG", "CH": "CH", "CY": "CY", "CZ": "CZ", "DE": "DE", "DK": "DK", "EE": "EE",
    "EL": "GR", "ES": "ES", "FI": "FI", "FR": "FR", "HR": "HR", "HU": "HU", "IE": "IE", "IS": "IS", "IT": "IT",
    "LT": "LT", "LU": "LU", "LV": "LV", "ME": "ME", "MK": "MK", "MT": "MT", "NL": "NL", "NO": "NO", "PL": "PL",
    "PT": "PT", "RO": "RO", "RS": "RS", "SE": "SE", "SI": "SI", "SK": "SK", "UK": "GB",
}


def rounded_ring(ring):
    """The ring at DECIMALS decimals, without repeated positions; None when fewer than 3 corners are left."""
    out = []
    for x, y in ring:
        point = [round(float(x), DECIMALS), round(float(y), DECIMALS)]
        if not out or out[-1] != point:
            out.append(point)
    if len(out) > 1 and out[0] == out[-1]:
        out.pop()
    if len({tuple(p) for p in out}) < 3:
        return None
    return out + [out[0]]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    source = Path(sys.argv[1])
    raw = source.read_bytes()
    features = json.loads(raw)["features"]
    regions = []
    dropped = 0
    for feature in features:
        properties = feature["properties"]
        country = COUNTRIES.get(properties["CNTR_CODE"])
        if country is None or properties.get("LEVL_CODE") != 3:
            continue
        geometry = feature["geometry"]
        polygons = [geometry["coordinates"]] if geometry["type"] == "Polygon" else geometry["coordinates"]
        out = []
        for polygon in polygons:
            outer = rounded_ring(polygon[0])
            if outer is None:
                # An islet smaller than the rounding: within the tolerance of nothing else, so kept unrounded.
                outer = [[float(x), float(y)] for x, y in polygon[0]]
                dropped += 1
            holes = [h for h in (rounded_ring(r) for r in polygon[1:]) if h is not None]
            out.append([outer] + holes)
        regions.append({
            "country": country, "scheme": "NUTS3", "code": properties["NUTS_ID"],
            "name": properties.get("NAME_LATN") or properties.get("NUTS_NAME"), "polygons": out,
        })
    regions.sort(key=lambda r: (r["country"], r["code"]))
    header = {
        "format": "forecastd-meteoalarm-areas", "version": 1, "tolerance_km": TOLERANCE_KM,
        "source": "Eurostat GISCO NUTS 2021, 1:20 million, EPSG:4326 (" + source.name + ")",
        "source_sha256": hashlib.sha256(raw).hexdigest(),
        "licence": "© EuroGeographics for the administrative boundaries; Eurostat GISCO terms of use; "
        "coordinates rounded by forecastd (scripts/build-nuts-regions.py)",
        "simplification": f"coordinates rounded to {DECIMALS} decimals",
        "regions": len(regions),
    }
    lines = [json.dumps(header, separators=(",", ":"), ensure_ascii=False)]
    lines += [json.dumps(r, separators=(",", ":"), ensure_ascii=False) for r in regions]
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    points = sum(len(ring) for r in regions for polygon in r["polygons"] for ring in polygon)
    print(f"{OUTPUT.relative_to(REPOSITORY)}: {len(regions)} regions, {points} positions, "
          f"{OUTPUT.stat().st_size} bytes, tolerance {TOLERANCE_KM} km; {dropped} islets kept unrounded")


if __name__ == "__main__":
    main()
