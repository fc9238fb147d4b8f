#!/usr/bin/env python3
"""Pixels of a PNG, with the standard library only (zlib): what a figure or
a rendered page shows, for the tests.

    png_pixels.py FILE [#RRGGBB...] [--tolerance N]

prints one line `WIDTH HEIGHT VARIANCE` (the variance of the grey level
over all pixels, 0 for a blank page), then per colour asked one line
`#RRGGBB COUNT`: the pixels within N (default 6) of it in every channel.
Reads 8-bit greyscale, RGB, palette, grey+alpha and RGBA images without
interlacing (what gnuplot's pngcairo and pdftoppm write); alpha is laid
over white. Exit status 2 for a file it cannot read, with the reason."""
import struct
import sys
import zlib


def fail(text):
    print("png_pixels.py: " + text, file=sys.stderr)
    sys.exit(2)


def chunks(data):
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        yield kind, data[pos + 8:pos + 8 + length]
        pos += 12 + length


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def unfilter(raw, width, height, bpp):
    stride = width * bpp
    rows, prev, pos = [], bytearray(stride), 0
    for _ in range(height):
        kind = raw[pos]
        line = bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        if kind == 0:
            rows.append(line)
            prev = line
            continue
        if kind == 2:  # the common case, in one pass
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
            rows.append(line)
            prev = line
            continue
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up = prev[i]
            corner = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + ((left + up) >> 1)) & 0xFF
            elif kind == 4:
                line[i] = (line[i] + paeth(left, up, corner)) & 0xFF
            elif kind != 0:
                fail("unknown row filter %d" % kind)
        rows.append(line)
        prev = line
    return rows


def read_rgb(path):
    """A list of (r, g, b) per pixel and the size."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s: not a PNG file" % path)
    header, idat, palette = None, bytearray(), None
    for kind, body in chunks(data):
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = [tuple(body[i:i + 3]) for i in range(0, len(body), 3)]
        elif kind == b"IDAT":
            idat += body
    if header is None:
        fail("%s: no IHDR chunk" % path)
    width, height, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(colour)
    if depth != 8 or interlace != 0 or channels is None:
        fail("%s: only 8-bit, non-interlaced PNG is read (depth %d, colour type %d, "
             "interlace %d)" % (path, depth, colour, interlace))
    rows = unfilter(zlib.decompress(bytes(idat)), width, height, channels)
    pixels = []
    for line in rows:
        for x in range(width):
            p = line[x * channels:(x + 1) * channels]
            if colour == 3:
                rgb, alpha = palette[p[0]], 255
            elif colour in (0, 4):
                rgb, alpha = (p[0],) * 3, p[1] if colour == 4 else 255
            else:
                rgb, alpha = tuple(p[:3]), p[3] if colour == 6 else 255
            pixels.append(tuple((c * alpha + 255 * (255 - alpha)) // 255 for c in rgb))
    return width, height, pixels


def main(argv):
    tolerance, colours, path, args = 6, [], None, list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--tolerance":
            tolerance = int(args.pop(0))
        elif arg.startswith("#") and len(arg) == 7:
            colours.append(arg.lower())
        elif path is None:
            path = arg
        else:
            fail("usage: png_pixels.py FILE [#RRGGBB...] [--tolerance N]")
    if path is None:
        fail("usage: png_pixels.py FILE [#RRGGBB...] [--tolerance N]")
    width, height, pixels = read_rgb(path)
    greys = [(r * 299 + g * 587 + b * 114) / 1000 for r, g, b in pixels]
    mean = sum(greys) / len(greys)
    variance = sum((v - mean) ** 2 for v in greys) / len(greys)
    print("%d %d %.3f" % (width, height, variance))
    for colour in colours:
        want = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
        count = sum(1 for p in pixels if all(abs(a - b) <= tolerance for a, b in zip(p, want)))
        print("%s %d" % (colour, count))


if __name__ == "__main__":
    main(sys.argv[1:])
