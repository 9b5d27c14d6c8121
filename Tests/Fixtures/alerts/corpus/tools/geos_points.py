#!/usr/bin/python3
"""Sample points around every area of every warning in the corpus and record GEOS's answer for each.

Usage:
    geos_points.py [--manifest MANIFEST] [--output FILE] [--points N] [--only FILE ...]

Defaults: the manifest next to this script's directory (../manifest.json), output to standard
output, 50 points per area, every document. Needs Shapely (Debian's python3-shapely; 1.8 on
Debian 12, 2.x on Debian 13; both work) and nothing else. Run it with /usr/bin/python3: a Python
from elsewhere (pyenv, a virtualenv) may not see Debian's Shapely.

What it does, per document of the manifest (CAP XML first goes through cap_to_meteoalarm.py):
- Every warning (GeoJSON feature, MeteoAlarm/CAP alert, Bright Sky alert) in document order, every
  info block of it in document order, every area of that info in document order. The output keys an
  area by (file, warning, info, area); GeoJSON and Bright Sky documents have one info and one area
  per warning (index 0, 0).
- The area's shapes as the document sends them: a feature's GeoJSON geometry (Polygon,
  MultiPolygon, GeometryCollection of those); CAP `polygon` strings ("lat,lon lat,lon ...") and
  `circle` strings ("lat,lon radius_km"). Each polygon is made valid on its own (GEOS MakeValid,
  keeping only its polygonal part: a zero-area spike becomes a line and drops out), then the area is
  the union of its polygons and circles: a point is in the area when it is in any of them. (The parts
  of a MultiPolygon are made valid one by one, because MakeValid of overlapping parts together
  would cut their overlap out.)
- A shape that cannot be judged at all is left out of its area, with the reason: a coordinate that
  is not a finite number, a latitude outside -90..90 (CAP order is latitude first; a feed that writes
  longitude first has "latitudes" beyond 90), text that is not "lat,lon" pairs, fewer than 3
  distinct points, a circle whose radius is not positive, a ring going round a pole, an edge of
  180 degrees of longitude or more (its direction round the Earth is ambiguous). An area none of
  whose shapes can be judged (or that has none: geocodes only) is listed as unjudgeable with the
  reason, and gets no points. An empty <polygon/> or <circle/> element is no shape at all (as for
  forecastd's decoder, which skips empty strings).
- The antimeridian: a longitude past +-180 (GDACS writes -180.005) names the meridian it names
  modulo 360 and is read so; a ring's edges go the short way round in longitude (as RFC 7946 and forecastd
  read them), so each ring is unwrapped (every vertex continues from the previous one by less than
  180 degrees; a ring may then run past +-180) before GEOS sees it; the area is then the union of
  its shape and its copies shifted by +-360 degrees, so a polygon split at 180 degrees into two
  pieces is one area without a seam, and points (always written with longitude in -180..180) are
  judged against it directly.
- Circles: the geodesic circle on a sphere of radius 6371.0088 km (forecastd's) as a polygon with
  enough vertices that it strays less than 1 m from the circle.
- 50 points per area (by default), from a random generator seeded with the SHA-256 of
  "file|warning|info|area", so the same corpus and GEOS give the same points: 12 inside (uniform in
  the area's bounding box, kept when GEOS covers them), 12 outside nearby (uniform in the bounding
  box grown by a tenth of its size, at least 0.01 degrees, kept when GEOS does not cover them), 6 far
  outside (one to three bounding-box diagonals from its centre) and 20 near the edge (a random point
  of the area's outline, moved 20 m to 2 km across the outline, half of them each way). When an
  area is too thin for uniform sampling to find enough inside or outside points, the rest are
  near-edge points. Each point carries GEOS's answer (`covers` of the made-valid area: a point on
  the outline counts as inside) and its distance to the nearest edge of the made-valid area in
  metres, measured in an equirectangular projection centred on the point (the approximation
  forecastd's GeoRing.distanceKm uses), exact to well under a metre within a few kilometres.

Output: one JSON document (schema in ../README.md):
    {"generator": {...}, "method": {...}, "summary": {...},
     "documents": [{"file", "format", "country", "warnings": [{"warning", "id", "status",
        "msgType", "areas": [{"info", "area", "language", "name", "judgeable", "reason",
        "shapes", "geometry", "points": [[lat, lon, inside, edge_m, kind], ...]}]}]}]}
"""

import argparse
import hashlib
import json
import math
import os
import platform
import random
import sys

import shapely
from shapely import affinity
from shapely.geometry import GeometryCollection, LineString, MultiPolygon, Point, Polygon, box
from shapely.ops import unary_union
from shapely.prepared import prep
from shapely.validation import make_valid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cap_to_meteoalarm  # noqa: E402  (beside this script)

EARTH_RADIUS_KM = 6371.0088
METRES_PER_DEGREE = EARTH_RADIUS_KM * 1000 * math.pi / 180
CIRCLE_MAX_STRAY_M = 1.0
KINDS = (("inside", 12), ("outside", 12), ("far", 6), ("edge", 20))
EDGE_MIN_M, EDGE_MAX_M = 20.0, 2000.0
COORDINATE_DECIMALS = 7
TRIES_PER_POINT = 400

try:
    GEOS_VERSION = shapely.geos_version_string  # Shapely 2.x
except AttributeError:
    from shapely.geos import geos_version_string as GEOS_VERSION  # Shapely 1.8


class Unusable(Exception):
    """A shape that cannot be judged; `reason` is a short code, the message says what and where."""

    def __init__(self, reason, detail):
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


# ---------------------------------------------------------------------------------------------
# Reading the documents into warnings, infos and areas.

def _texts(value):
    """A CAP field that MeteoAlarm's JSON gives as one string or a list of strings."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [item for item in value if isinstance(item, str)]


def _feature_list(document):
    if document.get("type") == "Feature":
        return [document]
    return [item for item in document.get("features", []) if isinstance(item, dict)]


def _geojson_warnings(document, status_key, type_key):
    warnings = []
    for feature in _feature_list(document):
        properties = feature.get("properties") or {}
        geometry = feature.get("geometry")
        geocodes = properties.get("geocode")
        area = {
            "name": properties.get("areaDesc") or properties.get("area") or properties.get("feature_name_en"),
            "shapes": [("geojson", geometry)] if geometry else [],
            "geocodes": sum(len(v) for v in geocodes.values() if isinstance(v, list))
            if isinstance(geocodes, dict) else 0,
            "no_shape_detail": "geometry is null (the warning names zones or counties by code only)",
        }
        warnings.append({
            "id": feature.get("id") or properties.get("id") or properties.get("identifier"),
            "status": properties.get(status_key), "msgType": properties.get(type_key),
            "infos": [{"language": properties.get("language") or properties.get("lang"), "areas": [area]}],
        })
    return warnings


def _meteoalarm_warnings(feed):
    warnings = []
    for item in feed.get("warnings", []):
        alert = (item or {}).get("alert") or {}
        infos = []
        for info in alert.get("info") or []:
            areas = []
            for area in info.get("area") or []:
                # An empty <polygon/> or <circle/> (IMS, NWS CAP 1.1 send them) is no shape at all.
                shapes = [("cap-polygon", text) for text in _texts(area.get("polygon")) if text.strip()]
                shapes += [("cap-circle", text) for text in _texts(area.get("circle")) if text.strip()]
                codes = [code.get("valueName") for code in area.get("geocode") or [] if isinstance(code, dict)]
                areas.append({
                    "name": area.get("areaDesc"), "shapes": shapes, "geocodes": len(codes),
                    # DWD sends the parts cut out of an area as geocodes EXCLUDE_POLYGON whose value is a
                    # CAP polygon; standard CAP has no holes, so they are counted here, not applied.
                    "exclude_polygons": sum(1 for code in codes if code == "EXCLUDE_POLYGON"),
                    "no_shape_detail": "no polygon or circle (geocodes only: "
                    + (", ".join(sorted(set(c for c in codes if c))) or "none") + ")",
                })
            infos.append({"language": info.get("language"), "areas": areas})
        warnings.append({"id": alert.get("identifier") or item.get("uuid"), "status": alert.get("status"),
                         "msgType": alert.get("msgType"), "infos": infos})
    return warnings


def _brightsky_warnings(document):
    warnings = []
    for alert in document.get("alerts", []):
        area = {"name": (document.get("location") or {}).get("name"), "shapes": [], "geocodes": 1,
                "no_shape_detail": "Bright Sky names the DWD warn cell of the position, not a shape"}
        warnings.append({"id": alert.get("alert_id") or alert.get("id"), "status": alert.get("status"),
                         "msgType": alert.get("msg_type"), "infos": [{"language": None, "areas": [area]}]})
    return warnings


def load_warnings(path, format_name):
    """The warnings of one corpus document, each with its infos and areas in document order."""
    if format_name == "cap-xml":
        return _meteoalarm_warnings(cap_to_meteoalarm.convert_file(path))
    with open(path, "rb") as handle:
        document = json.load(handle)
    if format_name == "meteoalarm-json":
        return _meteoalarm_warnings(document)
    if format_name == "nws-geojson":
        return _geojson_warnings(document, "status", "messageType")
    if format_name == "metalerts-geojson":
        return _geojson_warnings(document, "status", "type")
    if format_name == "eccc-geojson":
        return _geojson_warnings(document, "status_en", "alert_type")
    if format_name == "brightsky-json":
        return _brightsky_warnings(document)
    raise ValueError(f"unknown format {format_name!r}")


# ---------------------------------------------------------------------------------------------
# Shapes into GEOS geometries.

def _wrap(degrees):
    """Longitude difference into -180..180."""
    return (degrees + 180.0) % 360.0 - 180.0


def _checked(longitude, latitude, where):
    """A position whose latitude is a number in -90..90 and whose longitude is a finite number; a
    longitude past +-180 names the same meridian as its value modulo 360 and is read so."""
    if not (math.isfinite(latitude) and math.isfinite(longitude)) or abs(latitude) > 90:
        raise Unusable("coordinate-out-of-range",
                       f"{where}: position (lat {latitude}, lon {longitude}) has a latitude outside -90..90 "
                       "or a coordinate that is not a finite number")
    return longitude, latitude


def _unwrapped_ring(positions, where):
    """The ring with each vertex continuing the previous one the short way round, closed."""
    distinct = {(lon, lat) for lon, lat in positions}
    if len(distinct) < 3:
        raise Unusable("fewer-than-3-distinct-points", f"{where}: {len(distinct)} distinct point(s)")
    ring = [positions[0]]
    closed = positions + ([positions[0]] if positions[0] != positions[-1] else [])
    for (lon0, _), (lon1, lat1) in zip(closed, closed[1:]):
        step = _wrap(lon1 - lon0)
        if abs(step) >= 180:
            raise Unusable("edge-spans-180-degrees", f"{where}: an edge spans 180 degrees of longitude")
        ring.append((ring[-1][0] + step, lat1))
    if abs(ring[-1][0] - ring[0][0]) > 1e-9:
        raise Unusable("encircles-pole", f"{where}: the ring goes round a pole (GEOS judges in the plane)")
    # The sum of the steps misses the first longitude by rounding (1e-14 degrees); close the ring
    # on the first point itself, or GEOS sees a spur there and calls a valid ring self-intersecting.
    ring[-1] = ring[0]
    return ring


def _polygon_from_rings(rings, where):
    """A made-valid polygonal geometry from an outer ring and holes of (lon, lat) positions."""
    outer = _unwrapped_ring(rings[0], where)
    holes = []
    for number, hole in enumerate(rings[1:], start=1):
        try:
            unwrapped = _unwrapped_ring(hole, f"{where} hole {number}")
        except Unusable as error:
            if error.reason == "fewer-than-3-distinct-points":
                continue  # a degenerate hole removes nothing
            raise
        shift = 360.0 * round((outer[0][0] - unwrapped[0][0]) / 360.0)
        holes.append([(lon + shift, lat) for lon, lat in unwrapped])
    valid = _polygonal(make_valid(Polygon(outer, holes)))
    if valid.is_empty:
        raise Unusable("empty-after-make-valid", f"{where}: no area is left after MakeValid")
    center = (valid.bounds[0] + valid.bounds[2]) / 2
    shift = -360.0 * math.floor((center + 180.0) / 360.0)
    return affinity.translate(valid, xoff=shift) if shift else valid


def _polygonal(geometry):
    """The polygonal part of a geometry (MakeValid may add lines and points from collapsed spikes)."""
    if geometry.is_empty:
        return geometry
    if isinstance(geometry, (Polygon, MultiPolygon)):
        return geometry
    if isinstance(geometry, GeometryCollection):
        parts = [_polygonal(part) for part in geometry.geoms]
        parts = [part for part in parts if not part.is_empty]
        return unary_union(parts) if parts else GeometryCollection()
    return GeometryCollection()


def _geojson_polygons(geometry, where):
    """(label, rings) for every polygon of a GeoJSON geometry; raises Unusable for non-areas."""
    kind = geometry.get("type") if isinstance(geometry, dict) else None
    coordinates = geometry.get("coordinates") if isinstance(geometry, dict) else None
    if kind == "Polygon":
        return [(where, coordinates)]
    if kind == "MultiPolygon":
        return [(f"{where} part {index}", polygon) for index, polygon in enumerate(coordinates or [])]
    if kind == "GeometryCollection":
        found = []
        for index, member in enumerate(geometry.get("geometries") or []):
            found += _geojson_polygons(member, f"{where} member {index}")
        return found
    raise Unusable("not-an-area", f"{where}: geometry type {kind!r} covers no area")


def _geojson_rings(rings, where):
    parsed = []
    for number, ring in enumerate(rings or []):
        label = where if number == 0 else f"{where} hole {number}"
        try:
            parsed.append([_checked(float(position[0]), float(position[1]), label) for position in ring])
        except (TypeError, ValueError, IndexError) as error:
            raise Unusable("malformed", f"{label}: positions are not [lon, lat] numbers ({error})")
    if not parsed:
        raise Unusable("fewer-than-3-distinct-points", f"{where}: the polygon has no rings")
    return parsed


def _cap_polygon_ring(text, where):
    positions = []
    for pair in text.split():
        parts = pair.split(",")
        try:
            if len(parts) != 2:
                raise ValueError
            latitude, longitude = float(parts[0]), float(parts[1])
        except ValueError:
            raise Unusable("malformed", f"{where}: {pair!r} is not a latitude,longitude pair")
        positions.append(_checked(longitude, latitude, where))
    if not positions:
        raise Unusable("fewer-than-3-distinct-points", f"{where}: the polygon is empty")
    return positions


def _destination(latitude, longitude, bearing, distance_km):
    """The point distance_km from (latitude, longitude) along bearing (radians), on the sphere."""
    phi1, lambda1 = math.radians(latitude), math.radians(longitude)
    delta = distance_km / EARTH_RADIUS_KM
    phi2 = math.asin(math.sin(phi1) * math.cos(delta) + math.cos(phi1) * math.sin(delta) * math.cos(bearing))
    lambda2 = lambda1 + math.atan2(math.sin(bearing) * math.sin(delta) * math.cos(phi1),
                                   math.cos(delta) - math.sin(phi1) * math.sin(phi2))
    return math.degrees(lambda2), math.degrees(phi2)


def _cap_circle(text, where):
    parts = text.split()
    try:
        if len(parts) != 2:
            raise ValueError
        center = parts[0].split(",")
        if len(center) != 2:
            raise ValueError
        latitude, longitude, radius = float(center[0]), float(center[1]), float(parts[1])
    except ValueError:
        raise Unusable("malformed", f"{where}: {text!r} is not \"latitude,longitude radius\"")
    _checked(longitude, latitude, where)
    if not math.isfinite(radius) or radius <= 0:
        raise Unusable("circle-radius-not-positive", f"{where}: radius {parts[1]} km covers no area")
    if radius >= math.pi * EARTH_RADIUS_KM / 2 or abs(latitude) + math.degrees(radius / EARTH_RADIUS_KM) >= 90:
        raise Unusable("encircles-pole", f"{where}: the circle reaches a pole (GEOS judges in the plane)")
    # Vertices close enough that a chord strays less than CIRCLE_MAX_STRAY_M from the circle.
    radius_m = radius * 1000
    step = 2 * math.acos(max(-1.0, 1 - CIRCLE_MAX_STRAY_M / radius_m)) if radius_m > CIRCLE_MAX_STRAY_M else math.pi / 2
    count = min(20000, max(64, math.ceil(2 * math.pi / step)))
    ring = [_destination(latitude, longitude, 2 * math.pi * i / count, radius) for i in range(count)]
    return _polygon_from_rings([ring], where)


def build_area(shapes, label):
    """(made-valid geometry, world geometry, per-shape report) for an area's shapes."""
    pieces, unusable, counts = [], [], {"polygons": 0, "circles": 0}
    for number, (kind, value) in enumerate(shapes):
        try:
            if kind == "geojson":
                where = f"{label} geometry"
                for part, rings in _geojson_polygons(value, where):
                    counts["polygons"] += 1
                    try:
                        pieces.append(_polygon_from_rings(_geojson_rings(rings, part), part))
                    except Unusable as error:
                        unusable.append({"shape": part, "reason": error.reason, "detail": error.detail})
            elif kind == "cap-polygon":
                counts["polygons"] += 1
                where = f"{label} polygon {number}"
                pieces.append(_polygon_from_rings([_cap_polygon_ring(value, where)], where))
            elif kind == "cap-circle":
                counts["circles"] += 1
                where = f"{label} circle {number}"
                pieces.append(_cap_circle(value, where))
        except Unusable as error:
            unusable.append({"shape": where, "reason": error.reason, "detail": error.detail})
    # Every piece next to the first one in longitude (a shape split at 180 degrees stays in one piece).
    if pieces:
        anchor = (pieces[0].bounds[0] + pieces[0].bounds[2]) / 2
        pieces = [affinity.translate(piece, xoff=360.0 * round((anchor - (piece.bounds[0] + piece.bounds[2]) / 2) / 360.0))
                  for piece in pieces]
    geometry = unary_union(pieces) if pieces else GeometryCollection()
    geometry = _polygonal(geometry)
    if geometry.is_empty:
        return None, None, counts, unusable
    world = _polygonal(unary_union([geometry, affinity.translate(geometry, xoff=360),
                                    affinity.translate(geometry, xoff=-360)]))
    return geometry, world, counts, unusable


# ---------------------------------------------------------------------------------------------
# Points.

def _normalized(longitude, latitude):
    longitude = _wrap(longitude)
    if longitude == 180.0:
        longitude = -180.0
    return round(longitude, COORDINATE_DECIMALS), round(latitude, COORDINATE_DECIMALS)


def edge_distance_m(outline, longitude, latitude):
    """Distance in metres from the point to the nearest edge of `outline` (a boundary geometry), in
    an equirectangular projection centred on the point."""
    here = Point(longitude, latitude)
    degrees = outline.distance(here)
    scale = max(math.cos(math.radians(latitude)), 1e-9)
    # The nearest edge in metres lies within degrees/scale of the point in plain degrees.
    reach = degrees / scale * 1.000001 + 1e-9
    near = outline.intersection(box(longitude - reach, latitude - reach, longitude + reach, latitude + reach))
    if near.is_empty:
        near = outline
    projected = affinity.scale(affinity.translate(near, xoff=-longitude, yoff=-latitude),
                               xfact=scale * METRES_PER_DEGREE, yfact=METRES_PER_DEGREE, origin=(0.0, 0.0))
    return projected.distance(Point(0.0, 0.0))


def _outline_lines(geometry):
    polygons = geometry.geoms if isinstance(geometry, MultiPolygon) else [geometry]
    lines = []
    for polygon in polygons:
        for ring in [polygon.exterior, *polygon.interiors]:
            line = LineString(ring.coords)
            if line.length > 0:
                lines.append(line)
    return lines


def _edge_point(random_source, lines, total, side):
    target = random_source.uniform(0, total)
    for line in lines:
        if target <= line.length:
            break
        target -= line.length
    step = min(line.length / 1000.0, 1e-5)
    a = line.interpolate(max(0.0, target - step))
    b = line.interpolate(min(line.length, target + step))
    here = line.interpolate(target)
    scale = max(math.cos(math.radians(here.y)), 1e-9)
    dx, dy = (b.x - a.x) * scale, b.y - a.y
    length = math.hypot(dx, dy)
    if length == 0:
        bearing = random_source.uniform(0, 2 * math.pi)
        nx, ny = math.cos(bearing), math.sin(bearing)
    else:
        nx, ny = -dy / length * side, dx / length * side
    offset = math.exp(random_source.uniform(math.log(EDGE_MIN_M), math.log(EDGE_MAX_M)))
    return (here.x + nx * offset / (METRES_PER_DEGREE * scale), here.y + ny * offset / METRES_PER_DEGREE)


def sample_points(geometry, world, seed_text, count):
    """`count` points around an area: [lat, lon, inside, edge_m, kind] each."""
    random_source = random.Random(int.from_bytes(hashlib.sha256(seed_text.encode("utf-8")).digest()[:8], "big"))
    covers = prep(world).covers
    outline = world.boundary
    min_x, min_y, max_x, max_y = geometry.bounds
    pad = max(0.1 * max(max_x - min_x, max_y - min_y), 0.01)
    lines = _outline_lines(geometry)
    total = sum(line.length for line in lines)
    wanted = [(kind, round(number * count / 50)) for kind, number in KINDS]
    wanted[-1] = ("edge", count - sum(number for _, number in wanted[:-1]))
    points, edge_side = [], 1

    def keep(longitude, latitude, kind):
        if abs(latitude) > 90:
            return False
        longitude, latitude = _normalized(longitude, latitude)
        here = Point(longitude, latitude)
        inside = covers(here)
        if kind == "inside" and not inside or kind == "outside" and inside:
            return False
        points.append([latitude, longitude, bool(inside), round(edge_distance_m(outline, longitude, latitude), 1), kind])
        return True

    shortfall = 0
    for kind, number in wanted:
        if kind == "edge":
            number += shortfall
        made = 0
        for _ in range(number * TRIES_PER_POINT if kind != "edge" else number * 20):
            if made == number:
                break
            if kind == "inside":
                ok = keep(random_source.uniform(min_x, max_x), random_source.uniform(min_y, max_y), kind)
            elif kind == "outside":
                ok = keep(random_source.uniform(min_x - pad, max_x + pad),
                          random_source.uniform(max(min_y - pad, -90.0), min(max_y + pad, 90.0)), kind)
            elif kind == "far":
                diagonal = math.hypot(max_x - min_x, max_y - min_y) + pad
                distance = diagonal * random_source.uniform(1.0, 3.0)
                bearing = random_source.uniform(0, 2 * math.pi)
                latitude = max(-89.9, min(89.9, (min_y + max_y) / 2 + distance * math.sin(bearing)))
                ok = keep((min_x + max_x) / 2 + distance * math.cos(bearing), latitude, kind)
            else:
                ok = keep(*_edge_point(random_source, lines, total, edge_side), kind)
                edge_side = -edge_side
            made += 1 if ok else 0
        if kind != "edge":
            shortfall += number - made
    return points


# ---------------------------------------------------------------------------------------------
# The corpus.

def _geometry_summary(geometry):
    polygons = list(geometry.geoms) if isinstance(geometry, MultiPolygon) else [geometry]
    min_x, min_y, max_x, max_y = geometry.bounds
    return {"type": geometry.geom_type, "parts": len(polygons),
            "holes": sum(len(polygon.interiors) for polygon in polygons),
            "vertices": sum(len(polygon.exterior.coords) + sum(len(r.coords) for r in polygon.interiors)
                            for polygon in polygons),
            "bbox": [round(min_y, 5), round(min_x, 5), round(max_y, 5), round(max_x, 5)]}


def judge_document(entry, corpus, count):
    path = os.path.join(corpus, entry["file"])
    record = {"file": entry["file"], "format": entry["format"], "country": entry["country"], "warnings": []}
    try:
        warnings = load_warnings(path, entry["format"])
    except (OSError, ValueError, cap_to_meteoalarm.ConversionError) as error:
        record["error"] = f"{type(error).__name__}: {error}"
        return record
    for w_index, warning in enumerate(warnings):
        out = {"warning": w_index, "id": warning["id"], "status": warning["status"], "msgType": warning["msgType"],
               "areas": []}
        for i_index, info in enumerate(warning["infos"]):
            for a_index, area in enumerate(info["areas"]):
                label = f"warning {w_index} info {i_index} area {a_index}"
                item = {"info": i_index, "area": a_index, "language": info["language"], "name": area["name"]}
                geometry, world, counts, unusable = build_area(area["shapes"], label)
                item["shapes"] = dict(counts, geocodes=area["geocodes"])
                if area.get("exclude_polygons"):
                    item["shapes"]["exclude_polygons"] = area["exclude_polygons"]
                if unusable:
                    item["shapes"]["unusable"] = unusable
                if geometry is None:
                    item["judgeable"] = False
                    if not area["shapes"]:
                        item["reason"] = "no-shapes"
                        item["detail"] = area["no_shape_detail"]
                    else:
                        item["reason"] = "no-usable-shapes"
                        item["detail"] = "; ".join(shape["detail"] for shape in unusable)
                else:
                    item["judgeable"] = True
                    item["geometry"] = _geometry_summary(geometry)
                    item["points"] = sample_points(geometry, world, f"{entry['file']}|{w_index}|{i_index}|{a_index}", count)
                out["areas"].append(item)
        record["warnings"].append(out)
    return record


def summarize(documents):
    summary = {"documents": len(documents), "documents_unreadable": 0, "warnings": 0, "areas": 0,
               "judged_areas": 0, "points": 0, "points_inside": 0, "points_within_10m_of_an_edge": 0,
               "unjudgeable_areas": {}, "unusable_shapes": {}, "documents_with_a_judged_area": 0}
    for document in documents:
        if "error" in document:
            summary["documents_unreadable"] += 1
            continue
        judged_here = False
        for warning in document["warnings"]:
            summary["warnings"] += 1
            for area in warning["areas"]:
                summary["areas"] += 1
                for shape in area["shapes"].get("unusable", []):
                    summary["unusable_shapes"][shape["reason"]] = summary["unusable_shapes"].get(shape["reason"], 0) + 1
                if area["judgeable"]:
                    judged_here = True
                    summary["judged_areas"] += 1
                    summary["points"] += len(area["points"])
                    summary["points_inside"] += sum(1 for point in area["points"] if point[2])
                    summary["points_within_10m_of_an_edge"] += sum(1 for point in area["points"] if point[3] <= 10)
                else:
                    summary["unjudgeable_areas"][area["reason"]] = summary["unjudgeable_areas"].get(area["reason"], 0) + 1
        summary["documents_with_a_judged_area"] += 1 if judged_here else 0
    return summary


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifest", default=os.path.join(here, "..", "manifest.json"))
    parser.add_argument("--output", help="write the JSON here instead of standard output")
    parser.add_argument("--points", type=int, default=50, help="points per area (default 50)")
    parser.add_argument("--only", nargs="+", metavar="FILE", help="only these manifest files")
    arguments = parser.parse_args(argv)
    with open(arguments.manifest, encoding="utf-8") as handle:
        manifest = json.load(handle)
    corpus = os.path.dirname(os.path.abspath(arguments.manifest))
    entries = manifest["documents"] if isinstance(manifest, dict) else manifest
    if arguments.only:
        entries = [entry for entry in entries if entry["file"] in set(arguments.only)]
    documents = [judge_document(entry, corpus, arguments.points) for entry in entries]
    result = {
        "generator": {"script": "Tests/Fixtures/alerts/corpus/tools/geos_points.py",
                      "shapely": shapely.__version__, "geos": GEOS_VERSION,
                      "python": platform.python_version()},
        "method": {"points_per_area": arguments.points,
                   "kinds": {kind: number for kind, number in KINDS},
                   "inside": "GEOS covers() of the made-valid area (union of its polygons and circles)",
                   "edge_m": "metres to the nearest edge of the made-valid area, equirectangular projection "
                             "centred on the point, Earth radius 6371.0088 km",
                   "point": "[latitude, longitude, inside, edge_m, kind]",
                   "seed": "SHA-256 of \"file|warning|info|area\""},
        "summary": summarize(documents),
        "documents": documents,
    }
    text = json.dumps(result, ensure_ascii=False, separators=(",", ":")) + "\n"
    if arguments.output:
        with open(arguments.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    json.dump(result["summary"], sys.stderr, indent=1)
    sys.stderr.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
