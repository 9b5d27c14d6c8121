#!/usr/bin/env python3
"""Prints the package's machine-readable copyright file (DEP-5).

    scripts/lib/deb-copyright.py packaging/deb/copyright.in Package.resolved CHECKOUTS

The file is packaging/deb/copyright.in (forecastd, its data and the toolchain's runtime) followed by one
stanza for each Swift package Package.resolved pins, whose code is linked into the program: its
copyright lines and licence as its own LICENSE and NOTICE files give them, taken from its checkout.
"""

import json
import os
import re
import sys


def text_block(text):
    """Text as a DEP-5 field's continuation lines: one space in front, "." for an empty line."""
    lines = [line.rstrip() for line in text.strip("\n").split("\n")]
    return "\n".join(" " + line if line else " ." for line in lines)


def first_file(folder, names):
    for name in names:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                return f.read()
    return None


def main():
    template, resolved, checkouts = sys.argv[1:4]
    with open(template, encoding="utf-8") as f:
        out = [f.read().rstrip("\n")]
    with open(resolved, encoding="utf-8") as f:
        pins = json.load(f)["pins"]
    licences = []
    for pin in sorted(pins, key=lambda pin: pin["identity"]):
        name = re.sub(r"\.git$", "", pin["location"].rstrip("/").split("/")[-1])
        folder = os.path.join(checkouts, name)
        licence = first_file(folder, ["LICENSE", "LICENSE.txt", "LICENSE.md", "COPYING"])
        if licence is None:
            sys.exit("deb-copyright: %s has no LICENSE file in %s" % (name, folder))
        notice = first_file(folder, ["NOTICE.txt", "NOTICE"])
        holders = []
        for line in (licence + "\n" + (notice or "")).split("\n"):
            found = re.match(r"\s*Copyright\s+(?:\(c\)|©)?\s*(.+)$", line, re.I)
            if found and not re.search(r"notice|owner|holder|license", found.group(1), re.I):
                holder = found.group(1).strip().rstrip(".")
                if holder not in holders:
                    holders.append(holder)
        if not holders:
            holders = ["The %s authors" % name]
        stanza = ["", "Files: swift-packages/%s/*" % name, "Copyright: " + "\n ".join(holders)]
        if "Apache License" in licence and "Version 2.0" in licence:
            stanza.append("License: Apache-2.0")
        else:
            short = "%s-licence" % name
            stanza.append("License: " + short)
            licences.append(["", "License: " + short, text_block(licence)])
        comment = "%s %s (%s)." % (name, pin["state"].get("version") or pin["state"].get("revision", ""), pin["location"])
        if notice:
            comment += "\n\n" + notice
        stanza.append("Comment: " + text_block(comment)[1:])
        out.append("\n".join(stanza))
    for licence in licences:
        out.append("\n".join(licence))
    print("\n".join(out))


if __name__ == "__main__":
    main()
