"""Counts the pixels of two colours in a screenshot, for check-snippets.sh.

    count-colours.py SHOT RRGGBB RRGGBB   → prints "<count of the first> <count of the second>"

SHOT is an XWD file (`xwd -root`, from Xvfb) or a binary PPM (`grim -t ppm`, from Wayland).
"""
import struct
import sys

data = open(sys.argv[1], "rb").read() if len(sys.argv) > 1 else b""
wanted, other = int(sys.argv[2], 16), int(sys.argv[3], 16)
seen = {wanted: 0, other: 0}
if data.startswith(b"P6"):
    magic, size, depth, pixels = data.split(b"\n", 3)
    width, height = map(int, size.split())
    for i in range(0, width * height * 3, 3):
        value = int.from_bytes(pixels[i:i + 3], "big")
        if value in seen:
            seen[value] += 1
elif len(data) >= 100:
    header = struct.unpack(">25I", data[:100])
    size, width, height, byte_order, line, colours = header[0], header[4], header[5], header[7], header[12], header[19]
    start = size + colours * 12
    for y in range(height):
        row = data[start + y * line:start + y * line + width * 4]
        for x in range(width):
            value = struct.unpack("<I" if byte_order == 0 else ">I", row[x * 4:x * 4 + 4])[0] & 0xFFFFFF
            if value in seen:
                seen[value] += 1
print(seen[wanted], seen[other])
