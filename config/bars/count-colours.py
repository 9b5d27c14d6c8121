"""Counts pixels in a screenshot, for check-snippets.sh.

    count-colours.py SHOT RRGGBB RRGGBB       → "<count of the first colour> <count of the second>", outside colour emoji
    count-colours.py --colour-patches SHOT    → the number of patches of colour (colour emoji) from left to right

SHOT is an XWD file (`xwd -root`, from Xvfb) or a binary PPM (`grim -t ppm`, from Wayland). A patch of colour is a
run of pixel columns holding coloured pixels (channels more than 12 apart: text in any grey, white or black has
none), at least 10 such pixels in all, apart from the next by at least 6 columns without any: a colour emoji is
one patch, a black-and-white glyph none.
"""
import struct
import sys


def pixels(data):
    """(width, height, function giving the 0xRRGGBB value at x, y)."""
    if data.startswith(b"P6"):
        _, size, _, body = data.split(b"\n", 3)
        width, height = map(int, size.split())
        return width, height, lambda x, y: int.from_bytes(body[(y * width + x) * 3:(y * width + x) * 3 + 3], "big")
    header = struct.unpack(">25I", data[:100])
    size, width, height, byte_order, line, colours = header[0], header[4], header[5], header[7], header[12], header[19]
    start = size + colours * 12
    order = "<I" if byte_order == 0 else ">I"
    return width, height, lambda x, y: struct.unpack(order, data[start + y * line + x * 4:start + y * line + x * 4 + 4])[0] & 0xFFFFFF


if sys.argv[1] == "--colour-patches":
    data = open(sys.argv[2], "rb").read() if len(sys.argv) > 2 else b""
    if len(data) < 100:
        print(0)
        sys.exit()
    width, height, at = pixels(data)
    columns = []
    for x in range(width):
        coloured = 0
        for y in range(height):
            value = at(x, y)
            r, g, b = value >> 16, (value >> 8) & 255, value & 255
            if max(r, g, b) - min(r, g, b) > 12:
                coloured += 1
        columns.append(coloured)
    patches, inside, gap = 0, 0, 99
    for coloured in columns + [0] * 6:
        if coloured:
            inside += coloured
            gap = 0
        else:
            gap += 1
            if gap == 6 and inside:
                patches += inside >= 10
                inside = 0
    print(patches)
    sys.exit()

data = open(sys.argv[1], "rb").read() if len(sys.argv) > 1 else b""
wanted, other = int(sys.argv[2], 16), int(sys.argv[3], 16)
seen = {wanted: 0, other: 0}
if data.startswith(b"P6") or len(data) >= 100:
    width, height, at = pixels(data)
    # When both colours are greys (white, the stale grey), the columns of colour emoji (and the one either side)
    # are left out: an emoji's own whites and greys are not the text's colour.
    def grey(value):
        return value >> 16 == (value >> 8) & 255 == value & 255
    emoji = set()
    for x in range(width if grey(wanted) and grey(other) else 0):
        for y in range(height):
            value = at(x, y)
            r, g, b = value >> 16, (value >> 8) & 255, value & 255
            if max(r, g, b) - min(r, g, b) > 12 and value not in seen:
                emoji.update((x - 1, x, x + 1))
                break
    for y in range(height):
        for x in range(width):
            value = at(x, y)
            if value in seen and x not in emoji:
                seen[value] += 1
print(seen[wanted], seen[other])
