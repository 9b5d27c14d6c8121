#!/usr/bin/env python3
"""Build forecastd's offline gazetteer, Sources/Gazetteer/Resources/gazetteer.bin.

Reads the GeoNames extract in a geodata directory (cities1000.tsv.gz and countries.tsv,
see that directory's README.md) and writes one little-endian binary file that the Swift
`Gazetteer` maps into memory and searches without any work at load time.

Usage:
    scripts/build-gazetteer.py [GEODATA_DIR] [-o OUTPUT]

GEODATA_DIR defaults to Sources/Gazetteer/GeoNames in the repository (a copy of the
GeoNames extract, with its README and licence); OUTPUT defaults to Sources/Gazetteer/Resources/gazetteer.bin in the
repository. The same input always gives the same bytes: there is no timestamp in the file
and every ordering is total.

File format, version 2 (all integers little-endian; every section starts at a multiple of
16 bytes; N = place count, R = region count):

    header, 128 bytes:
        0   8  magic b"FCGAZET\\x00"
        8   4  format version (2)
        12  4  header length (128)
        16  8  file length in bytes
        24  4  CRC-32 (zlib) of every byte after the header
        28  4  N, the place count
        32  4  R, the region count (distinct country + admin1 + time zone triples)
        36  4  string table length in bytes
        40  4  attribution string reference
        44  4  coordinate scale exponent E (30): unit vectors are stored as round(v * 2^E)
        48  8  reserved (0)
        56 .. 128: eighteen UInt32 section offsets, in this order, unused ones 0:
            nodes    N x 16 bytes: the k-d tree, the only part a nearest search reads
                     Int32 x, y, z   the place's unit vector times 2^E, rounded
                     UInt32 split    bits 0-1: the node's split axis (0 = x, 1 = y, 2 = z);
                                     bits 2-31: the largest population in the node's subtree
                                     (itself included), which lets a search for the cities
                                     whose area may cover a point skip subtrees of villages
            records  N x 16 bytes, read only for the place found
                     UInt32 name     string reference of the place's name
                     UInt32 population
                     UInt32 geonameID
                     UInt32 region   index into regions
            regions  R x 16 bytes
                     UInt32 admin1, time zone, country name: string references
                     2 bytes ISO 3166-1 country code (ASCII), 2 bytes zero
            strings  UTF-8 bytes, each distinct string once: the attribution, then region
                     strings, then place names, then folded names
            names    N x 8 bytes, the name index, sorted by folded name (bytewise), then by
                     population, largest first, then by GeoNames id
                     UInt32 folded   string reference of the place's folded name
                     UInt32 place    index of the place (node and record)
            region keys  R x 8 bytes, for matching a search's qualifier without folding
                     UInt32 admin1   string reference of the region's folded admin1 name
                     UInt32 country  string reference of the region's folded country name

    Record i describes node i. Keeping what a search reads apart from what it returns, and
    each in one 16-byte unit, means a lookup touches as few cache lines and pages as it can.

    A string reference is offset << 8 | length (strings are at most 255 bytes; the table
    is at most 16 MiB).

Folding (`fold` below; Sources/Gazetteer/NameFolding.swift does the same to a query, and a
test checks that every place is found by its own name): Unicode NFKD; nonspacing marks
dropped (São -> Sao); each code point lower-cased on its own; letters that do not decompose
spelled out (ß -> ss, æ -> ae, ø -> o, œ -> oe, ł -> l, đ/ð -> d, þ -> th, ı -> i, ...);
apostrophes and the Catalan middle dot dropped (St. John's -> st johns); every other code
point that is not a letter, digit or mark becomes a space; runs of spaces become one, and
the ends are trimmed (Saint-Ouen -> saint ouen).

Place data: GeoNames (https://www.geonames.org/), CC BY 4.0.
"""

from __future__ import annotations

import argparse
import gzip
import math
import struct
import sys
import unicodedata
import zlib
from decimal import Decimal, InvalidOperation
from pathlib import Path

MAGIC = b"FCGAZET\x00"
FORMAT_VERSION = 2
HEADER_LENGTH = 128
SCALE_EXPONENT = 30
SCALE = float(1 << SCALE_EXPONENT)
SECTION_SLOTS = 18
ALIGNMENT = 16
ATTRIBUTION = "Place data from GeoNames (geonames.org), CC BY 4.0"

REPOSITORY = Path(__file__).resolve().parent.parent
DEFAULT_GEODATA = REPOSITORY / "Sources" / "Gazetteer" / "GeoNames"
DEFAULT_OUTPUT = REPOSITORY / "Sources" / "Gazetteer" / "Resources" / "gazetteer.bin"

# Letters that NFKD leaves alone, spelled the way English-language maps write them.
SPELLED_OUT = {
    "ß": "ss", "æ": "ae", "ø": "o", "œ": "oe", "ł": "l", "đ": "d", "ð": "d", "þ": "th",
    "ı": "i", "ħ": "h", "ŧ": "t", "ŋ": "ng", "ĸ": "k",
}
# Dropped rather than turned into a space, so that "St. John's" folds like "St Johns".
DROPPED = {"'", "\u2018", "\u2019", "\u02bb", "\u02bc", "\u02be", "\u02bf", "`", "\u00b4", "\u00b7"}
# A population must leave the node's two axis bits free.
POPULATION_LIMIT = 1 << 30

CITIES_COLUMNS = ["geonameid", "name", "latitude", "longitude", "country_code", "admin1", "population", "timezone"]


class InputError(Exception):
    """A problem with the input files, reported as file:line: message."""


def fixed_e5(text: str, where: str, limit: int) -> int:
    """Parses a decimal degree string into an exact integer count of 1e-5 degrees."""
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise InputError(f"{where}: {text!r} is not a decimal number") from None
    scaled = value.scaleb(5)
    if scaled != scaled.to_integral_value():
        raise InputError(f"{where}: {text!r} has more than 5 decimals; the gazetteer stores 1e-5 degrees")
    result = int(scaled)
    if not -limit * 100000 <= result <= limit * 100000:
        raise InputError(f"{where}: {text!r} is outside -{limit}...{limit}")
    return result


def read_countries(path: Path) -> dict[str, str]:
    countries: dict[str, str] = {}
    with path.open(encoding="utf-8") as file:
        header = file.readline().rstrip("\n").split("\t")
        if header[:3] != ["iso", "iso3", "name"]:
            raise InputError(f"{path}:1: expected columns iso, iso3, name, ...; found {header}")
        for number, line in enumerate(file, start=2):
            fields = line.rstrip("\n").split("\t")
            code, name = fields[0], fields[2]
            if len(code) != 2 or not code.isascii() or not code.isupper():
                raise InputError(f"{path}:{number}: country code {code!r} is not two capital letters")
            countries[code] = name
    return countries


def read_places(path: Path, countries: dict[str, str]) -> list[dict]:
    places = []
    with gzip.open(path, "rt", encoding="utf-8", newline="\n") as file:
        header = file.readline().rstrip("\n").split("\t")
        if header != CITIES_COLUMNS:
            raise InputError(f"{path}:1: expected columns {CITIES_COLUMNS}; found {header}")
        for number, line in enumerate(file, start=2):
            fields = line.rstrip("\n").split("\t")
            where = f"{path}:{number}"
            if len(fields) != len(CITIES_COLUMNS):
                raise InputError(f"{where}: expected {len(CITIES_COLUMNS)} tab-separated fields, found {len(fields)}")
            geonameid, name, latitude, longitude, country, admin1, population, timezone = fields
            if country not in countries:
                raise InputError(f"{where}: country code {country!r} is not in countries.tsv")
            if not name:
                raise InputError(f"{where}: empty place name")
            places.append(
                {
                    "id": int(geonameid),
                    "name": name,
                    "lat": fixed_e5(latitude, where, 90),
                    "lon": fixed_e5(longitude, where, 180),
                    "country": country,
                    "admin1": admin1,
                    "population": int(population or "0"),
                    "timezone": timezone,
                }
            )
    return places


def unit_vector(lat_e5: int, lon_e5: int) -> tuple[int, int, int]:
    """The place's unit vector, quantised to 2^-30 (about 6 mm on the Earth)."""
    lat = math.radians(lat_e5 / 100000)
    lon = math.radians(lon_e5 / 100000)
    x = math.cos(lat) * math.cos(lon)
    y = math.cos(lat) * math.sin(lon)
    z = math.sin(lat)
    return (round(x * SCALE), round(y * SCALE), round(z * SCALE))


def coordinate_e5(vector: tuple[int, int, int]) -> tuple[float, float]:
    """Latitude and longitude in 1e-5 degrees, unrounded, as the Swift reader computes them."""
    x, y, z = vector
    # atan2 of z against the equatorial length stays accurate near the poles, where asin does not.
    latitude = math.degrees(math.atan2(z, math.hypot(x, y))) * 100000
    longitude = math.degrees(math.atan2(y, x)) * 100000
    return latitude, longitude


def check_round_trip(place: dict) -> None:
    """Fails unless the reader, rounding to 1e-5 degrees, gets the source coordinate back.

    A margin of 0.1 (1e-6 degrees, a fifth of the way to a rounding boundary) leaves room for
    the last-bit differences between one maths library and another.
    """
    latitude, longitude = coordinate_e5(place["vector"])
    longitude_error = (longitude - place["lon"] + 18000000) % 36000000 - 18000000
    if abs(latitude - place["lat"]) > 0.1 or abs(longitude_error) > 0.1:
        raise InputError(
            f"geonameid {place['id']}: the stored vector does not give back "
            f"{place['lat'] / 1e5}, {place['lon'] / 1e5} (got {latitude / 1e5}, {longitude / 1e5})"
        )


def fold(text: str) -> str:
    """The form names are compared in: no accents, no case, no punctuation (see the docstring)."""
    pieces = []
    for character in unicodedata.normalize("NFKD", text):
        if unicodedata.category(character) == "Mn":
            continue
        # One code point at a time: str.lower() on the whole string turns a final capital sigma
        # into a final small sigma from its context, which Swift's per-scalar mapping does not.
        for lower in character.lower():
            if lower in DROPPED:
                continue
            if lower in SPELLED_OUT:
                pieces.append(SPELLED_OUT[lower])
            elif unicodedata.category(lower)[0] in "LNM":
                pieces.append(lower)
            else:
                pieces.append(" ")
    return " ".join("".join(pieces).split())


class StringTable:
    """Each distinct string once, in first-use order (which is deterministic)."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.offsets: dict[str, int] = {}

    def reference(self, text: str) -> int:
        encoded = text.encode("utf-8")
        if len(encoded) > 255:
            raise InputError(f"string longer than 255 bytes: {text[:40]!r}...")
        offset = self.offsets.get(text)
        if offset is None:
            offset = len(self.data)
            self.offsets[text] = offset
            self.data += encoded
        if offset >= 1 << 24:
            raise InputError("string table exceeds 16 MiB")
        return offset << 8 | len(encoded)


def build_tree(places: list[dict]) -> tuple[list[dict], list[int], list[int]]:
    """Orders places as an implicit balanced k-d tree.

    Returns the places in node order, each node's split axis and the largest population in
    each node's subtree.
    """
    count = len(places)
    ordered: list[dict | None] = [None] * count
    axes = [0] * count
    largest = [0] * count

    def place_range(members: list[dict], lo: int) -> None:
        # An explicit stack keeps deep ranges off Python's recursion limit.
        stack = [(members, lo)]
        while stack:
            members, lo = stack.pop()
            if not members:
                continue
            if len(members) == 1:
                ordered[lo] = members[0]
                largest[lo] = members[0]["population"]
                continue
            spreads = []
            for axis in range(3):
                values = [place["vector"][axis] for place in members]
                spreads.append(max(values) - min(values))
            axis = spreads.index(max(spreads))
            members = sorted(members, key=lambda place: (place["vector"][axis], place["id"]))
            mid = len(members) // 2
            ordered[lo + mid] = members[mid]
            axes[lo + mid] = axis
            largest[lo + mid] = max(place["population"] for place in members)
            stack.append((members[:mid], lo))
            stack.append((members[mid + 1 :], lo + mid + 1))

    place_range(places, 0)
    return ordered, axes, largest  # type: ignore[return-value]


def padded(data: bytes) -> bytes:
    return data + b"\x00" * (-len(data) % ALIGNMENT)


def build(geodata: Path) -> bytes:
    countries = read_countries(geodata / "countries.tsv")
    places = read_places(geodata / "cities1000.tsv.gz", countries)
    if not places:
        raise InputError(f"{geodata / 'cities1000.tsv.gz'}: no places")
    if len(set(place["id"] for place in places)) != len(places):
        raise InputError("cities1000.tsv.gz: geonameids are not unique")
    for place in places:
        place["vector"] = unit_vector(place["lat"], place["lon"])
        check_round_trip(place)
        if not 0 <= place["population"] < POPULATION_LIMIT:
            raise InputError(f"geonameid {place['id']}: population {place['population']} is not below 2^30")
        if not 0 <= place["id"] < 1 << 32:
            raise InputError(f"geonameid {place['id']}: the id does not fit 32 bits")

    ordered, axes, largest = build_tree(places)

    # First-use order puts the few region strings together at the start of the table, where
    # lookups all over the world share their pages.
    strings = StringTable()
    attribution = strings.reference(ATTRIBUTION)
    region_keys = sorted({(place["country"], place["admin1"], place["timezone"]) for place in ordered})
    region_index = {key: index for index, key in enumerate(region_keys)}
    regions = b"".join(
        struct.pack(
            "<III2sH",
            strings.reference(admin1),
            strings.reference(timezone),
            strings.reference(countries[country]),
            country.encode("ascii"),
            0,
        )
        for country, admin1, timezone in region_keys
    )
    nodes = b"".join(
        struct.pack("<iiiI", *place["vector"], most << 2 | axis) for place, axis, most in zip(ordered, axes, largest)
    )
    records = b"".join(
        struct.pack(
            "<IIII",
            strings.reference(place["name"]),
            place["population"],
            place["id"],
            region_index[(place["country"], place["admin1"], place["timezone"])],
        )
        for place in ordered
    )

    # Folded strings come last in the table, after every name a lookup decodes.
    folded = [fold(place["name"]) for place in ordered]
    order = sorted(
        range(len(ordered)),
        key=lambda index: (folded[index].encode("utf-8"), -ordered[index]["population"], ordered[index]["id"]),
    )
    names = b"".join(struct.pack("<II", strings.reference(folded[index]), index) for index in order)
    region_folds = b"".join(
        struct.pack("<II", strings.reference(fold(admin1)), strings.reference(fold(countries[country])))
        for country, admin1, _ in region_keys
    )

    body = bytearray()
    offsets = []
    for section in (nodes, records, regions, bytes(strings.data), names, region_folds):
        offsets.append(HEADER_LENGTH + len(body))
        body += padded(section)
    file_length = HEADER_LENGTH + len(body)
    if file_length >= 1 << 32:
        raise InputError("gazetteer exceeds 4 GiB")
    offsets += [0] * (SECTION_SLOTS - len(offsets))
    header = MAGIC + struct.pack(
        f"<IIQIIIIIIQ{SECTION_SLOTS}I",
        FORMAT_VERSION,
        HEADER_LENGTH,
        file_length,
        zlib.crc32(body),
        len(ordered),
        len(region_keys),
        len(strings.data),
        attribution,
        SCALE_EXPONENT,
        0,
        *offsets,
    )
    assert len(header) == HEADER_LENGTH, len(header)
    return header + bytes(body)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "geodata",
        nargs="?",
        type=Path,
        default=DEFAULT_GEODATA,
        help=f"directory holding cities1000.tsv.gz and countries.tsv (default: {DEFAULT_GEODATA})",
    )
    parser.add_argument(
        "-o", "--output", type=Path, default=DEFAULT_OUTPUT, help=f"file to write (default: {DEFAULT_OUTPUT})"
    )
    arguments = parser.parse_args()
    try:
        data = build(arguments.geodata)
    except (InputError, OSError) as error:
        print(f"build-gazetteer: {error}", file=sys.stderr)
        return 1
    arguments.output.parent.mkdir(parents=True, exist_ok=True)
    temporary = arguments.output.with_name(arguments.output.name + ".tmp")
    temporary.write_bytes(data)
    # Replacing by rename never leaves a half-written file where a running daemon maps it.
    temporary.replace(arguments.output)
    count = struct.unpack_from("<I", data, 28)[0]
    print(f"build-gazetteer: wrote {arguments.output} ({len(data):,} bytes, {count:,} places)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
