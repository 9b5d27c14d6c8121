"""Counts the pixels of two colours in an XWD screenshot (`xwd -root`), for check-snippets.sh.

    count-colours.py SHOT.xwd RRGGBB RRGGBB   → prints "<count of the first> <count of the second>"
"""
import struct
import sys

data = open(sys.argv[1], "rb").read()
if len(data) < 100:
    print("0 0")
    sys.exit()
header = struct.unpack(">25I", data[:100])
size, width, height, byte_order, line, colours = header[0], header[4], header[5], header[7], header[12], header[19]
start = size + colours * 12
wanted, other = int(sys.argv[2], 16), int(sys.argv[3], 16)
seen = {wanted: 0, other: 0}
for y in range(height):
    row = data[start + y * line:start + y * line + width * 4]
    for x in range(width):
        value = struct.unpack("<I" if byte_order == 0 else ">I", row[x * 4:x * 4 + 4])[0] & 0xFFFFFF
        if value in seen:
            seen[value] += 1
print(seen[wanted], seen[other])
