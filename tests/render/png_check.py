#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/render/chromium.sh: a screenshot of the SVG is not blank (mostly
# white but with a picture in it) and shows each QP state's band colour
# (render_svg.c's state_color) in at least MIN pixels; RTS on both halves
# (both lifelines). The PNG is decoded here with zlib (8-bit RGB or RGBA,
# no interlace), without PIL.
# usage: png_check.py FILE.png RESET,INIT,...   exit 0, or 1 saying why
import struct
import sys
import zlib

COLORS = {"RESET": (0x9e, 0x9e, 0x9e), "INIT": (0xfd, 0xd8, 0x35),
          "RTR": (0x42, 0xa5, 0xf5), "RTS": (0x43, 0xa0, 0x47),
          "ERROR": (0xe5, 0x39, 0x35)}
MIN = 150	# pixels: a band of 16 x 10 at least
TOL = 6		# per channel, for colour management


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if typ == b"IHDR":
            w, h, depth, ctype, _, _, inter = struct.unpack(">IIBBBBB", body)
        elif typ == b"IDAT":
            idat += body
        pos += 12 + n
    if depth != 8 or ctype not in (2, 6) or inter:
        raise ValueError("PNG depth %d colour type %d interlace %d not "
                         "handled" % (depth, ctype, inter))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, p = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[p], bytearray(raw[p + 1:p + 1 + stride])
        p += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    w, h, bpp, rows = decode(sys.argv[1])
    want = sys.argv[2].split(",")
    count = {s: [0, 0] for s in want}
    white = 0
    for y in range(h):
        line = rows[y]
        for x in range(0, w):
            r, g, b = line[x * bpp], line[x * bpp + 1], line[x * bpp + 2]
            if r > 250 and g > 250 and b > 250:
                white += 1
                continue
            for s in want:
                c = COLORS[s]
                if (abs(r - c[0]) <= TOL and abs(g - c[1]) <= TOL and
                        abs(b - c[2]) <= TOL):
                    count[s][x >= w // 2] += 1
    errs = []
    share = white / float(w * h)
    if share > 0.995 or share < 0.5:
        errs.append("%.1f%% white: blank or not our picture" % (share * 100))
    for s in want:
        if sum(count[s]) < MIN:
            errs.append("%s band colour: %d pixels" % (s, sum(count[s])))
    if "RTS" in count and min(count["RTS"]) < MIN:
        errs.append("RTS on one side only: %s" % count["RTS"])
    if errs:
        print("%s (%dx%d): %s" % (sys.argv[1], w, h, "; ".join(errs)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
