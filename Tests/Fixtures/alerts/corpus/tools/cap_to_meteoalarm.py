#!/usr/bin/python3
"""Convert a CAP XML document into the JSON form of MeteoAlarm's feeds, which forecastd's MeteoAlarm
decoder reads (Sources/Warnings/MeteoAlarmDecoder.swift):

    {"warnings": [{"alert": {<the CAP alert as JSON>}, "uuid": "<uuid>"}, ...]}

Usage:
    cap_to_meteoalarm.py DOCUMENT.xml [OUTPUT.json]     (default output: standard output)

Why: the warnings corpus (Tests/Fixtures/alerts/corpus) holds CAP 1.2 documents of many national
services, and forecastd has no CAP XML reader; MeteoAlarm's JSON feed carries exactly the CAP fields
as JSON, so a CAP document converted to it goes through the same decoder as a MeteoAlarm answer.

The JSON keeps the CAP element names and document order, as MeteoAlarm's feed does:
- `alert`: identifier, sender, sent, status, msgType, source, scope, restriction, addresses, code
  (list), note, references, incidents, and `info` (list, every info block in document order).
- each `info`: language, category (list), event, responseType (list), urgency, severity, certainty,
  audience, eventCode (list of {valueName, value}), effective, onset, expires, senderName, headline,
  description, instruction, web, contact, parameter (list of {valueName, value}), resource (list of
  {resourceDesc, mimeType, size, uri, digest}) and `area` (list, every area in document order).
- each `area`: areaDesc, polygon (list of strings, as written), circle (list of strings), geocode
  (list of {valueName, value}), altitude, ceiling.
Element text is kept exactly as written (white space included; an empty element gives ""), so the
decoder sees what the service sent. Elements of other namespaces (XML signatures) and unknown
elements are left out. A document whose root is `<alerts>` holding several `<alert>` elements (as
SMHI publishes) gives one warning per alert, in order; so does any other wrapper that holds CAP
alerts (an EDXL-DE distribution, as NSW RFS published them): its CAP `<alert>` elements are found
wherever they are. CAP 1.0, 1.1 and 1.2 namespaces are accepted (the fields read here are the same in
all three); so is a document without a namespace.

`uuid` (MeteoAlarm's own id of a warning, which a CAP document lacks) is made up here, stably: a
UUID-5 of the alert's identifier and its position in the document.
"""

import json
import sys
import uuid
import xml.etree.ElementTree as ElementTree

CAP_NAMESPACES = (
    "urn:oasis:names:tc:emergency:cap:1.2",
    "urn:oasis:names:tc:emergency:cap:1.1",
    "urn:oasis:names:tc:emergency:cap:1.0",
    "",
)

ALERT_TEXT = ("identifier", "sender", "sent", "status", "msgType", "source", "scope", "restriction",
              "addresses", "note", "references", "incidents")
ALERT_LISTS = ("code",)
INFO_TEXT = ("language", "event", "urgency", "severity", "certainty", "audience", "effective", "onset",
             "expires", "senderName", "headline", "description", "instruction", "web", "contact")
INFO_LISTS = ("category", "responseType")
INFO_PAIRS = ("eventCode", "parameter")
RESOURCE_TEXT = ("resourceDesc", "mimeType", "size", "uri", "derefUri", "digest")
AREA_TEXT = ("areaDesc", "altitude", "ceiling")
AREA_LISTS = ("polygon", "circle")


class ConversionError(Exception):
    """The document is not a CAP alert (or list of alerts)."""


def _split(tag):
    """(namespace, local name) of an ElementTree tag."""
    if tag.startswith("{"):
        namespace, _, name = tag[1:].partition("}")
        return namespace, name
    return "", tag


def _children(element, namespace):
    """The child elements in the CAP namespace, as (local name, element), in document order."""
    for child in element:
        if not isinstance(child.tag, str):  # comments, processing instructions
            continue
        child_namespace, name = _split(child.tag)
        if child_namespace == namespace:
            yield name, child


def _text(element):
    return element.text if element.text is not None else ""


def _pair(element, namespace):
    pair = {}
    for name, child in _children(element, namespace):
        if name in ("valueName", "value"):
            pair[name] = _text(child)
    return pair


def _fields(element, namespace, texts, lists, pairs=(), nested=None):
    """The CAP fields of one element as a dict in document order: single texts, repeated texts
    (lists), value pairs (lists of dicts) and nested blocks (lists of dicts, via `nested`)."""
    out = {}
    for name, child in _children(element, namespace):
        if name in texts:
            out[name] = _text(child)
        elif name in lists:
            out.setdefault(name, []).append(_text(child))
        elif name in pairs:
            out.setdefault(name, []).append(_pair(child, namespace))
        elif nested and name in nested:
            out.setdefault(name, []).append(nested[name](child, namespace))
    return out


def _area(element, namespace):
    area = _fields(element, namespace, AREA_TEXT, AREA_LISTS, pairs=("geocode",))
    return area


def _resource(element, namespace):
    return _fields(element, namespace, RESOURCE_TEXT, ())


def _info(element, namespace):
    return _fields(element, namespace, INFO_TEXT, INFO_LISTS, INFO_PAIRS,
                   nested={"resource": _resource, "area": _area})


def _alert(element, namespace):
    return _fields(element, namespace, ALERT_TEXT, ALERT_LISTS, nested={"info": _info})


def convert_root(root):
    """The MeteoAlarm-form dict for a parsed CAP document (root `alert` or `alerts`)."""
    namespace, name = _split(root.tag)
    if namespace in CAP_NAMESPACES and name == "alert":
        alerts = [(namespace, root)]
    else:
        # A list of alerts (<alerts>) or a wrapper such as EDXL-DE: every CAP alert inside, in order.
        alerts = [(_split(element.tag)[0], element) for element in root.iter()
                  if isinstance(element.tag, str) and element is not root
                  and _split(element.tag)[1] == "alert" and _split(element.tag)[0] in CAP_NAMESPACES]
        if not alerts:
            raise ConversionError(f"the root element <{name}> (namespace {namespace!r}) is no CAP alert "
                                  "and holds none")
    warnings = []
    for index, (namespace, element) in enumerate(alerts):
        alert = _alert(element, namespace)
        stable = f"{alert.get('identifier', '')}#{index}"
        warnings.append({"alert": alert, "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, stable))})
    return {"warnings": warnings}


def convert_bytes(data):
    """The MeteoAlarm-form dict for CAP XML bytes."""
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as error:
        raise ConversionError(f"not well-formed XML: {error}") from error
    return convert_root(root)


def convert_file(path):
    with open(path, "rb") as handle:
        return convert_bytes(handle.read())


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        feed = convert_file(argv[1])
    except (OSError, ConversionError) as error:
        print(f"cap_to_meteoalarm: {argv[1]}: {error}", file=sys.stderr)
        return 1
    text = json.dumps(feed, ensure_ascii=False, indent=1) + "\n"
    if len(argv) == 3:
        with open(argv[2], "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
