#!/usr/bin/env python3
"""The labels in a heatmap's cells against the cells' width, from the SVG
gnuplot wrote (1 unit = 1 pt) and the font's own advance widths (DejaVu
Sans' hmtx table, read with the standard library): independent of the
width estimate the figures are laid out with.

    cell_labels.py FONT.ttf SVG...

A cell label is a text at the cells' size (7 pt) centred on its cell; the
cells' width is the least distance between the labels' distinct centres
(the cells of a log grid of doubling targets are equally wide). Prints
per SVG `FILE cell_pt widest_pt widest_label` and per label wider than
its cell a line `too wide: FILE LABEL WIDTH_pt > CELL_pt`; exit 1 when there
is one, 2 for a file it cannot read.

    cell_labels.py FONT.ttf --width PT TEXT

prints the width (pt) of TEXT at PT."""
import re
import struct
import sys
import xml.etree.ElementTree as ET

LABEL_PT = 7.0


def fail(text):
    print("cell_labels.py: " + text, file=sys.stderr)
    sys.exit(2)


def advance_widths(path):
    """{character: advance width in em} from a TrueType font's cmap (format
    4, Windows Unicode BMP) and hmtx tables."""
    try:
        data = open(path, "rb").read()
    except OSError as e:
        fail("%s: %s" % (path, e))
    tables = {}
    for i in range(struct.unpack(">H", data[4:6])[0]):
        tag, _, offset, _ = struct.unpack(">4sIII", data[12 + 16 * i:28 + 16 * i])
        tables[tag.decode("latin-1")] = offset
    head, hhea, hmtx, cmap = (tables[t] for t in ("head", "hhea", "hmtx", "cmap"))
    units = struct.unpack(">H", data[head + 18:head + 20])[0]
    metrics = struct.unpack(">H", data[hhea + 34:hhea + 36])[0]
    sub = None
    for i in range(struct.unpack(">H", data[cmap + 2:cmap + 4])[0]):
        platform, encoding, offset = struct.unpack(">HHI", data[cmap + 4 + 8 * i:cmap + 12 + 8 * i])
        if platform == 3 and encoding == 1:
            sub = cmap + offset
    if sub is None or struct.unpack(">H", data[sub:sub + 2])[0] != 4:
        fail("%s: no format 4 Unicode cmap" % path)
    segments = struct.unpack(">H", data[sub + 6:sub + 8])[0] // 2
    at = sub + 14

    def array(signed=False):
        nonlocal at
        values = struct.unpack(">%d%s" % (segments, "h" if signed else "H"), data[at:at + 2 * segments])
        at += 2 * segments
        return values

    ends = array()
    at += 2  # reservedPad
    starts, deltas = array(), array(signed=True)
    range_at = at
    ranges = array()

    def glyph(code):
        for k in range(segments):
            if starts[k] <= code <= ends[k]:
                if ranges[k] == 0:
                    return (code + deltas[k]) & 0xFFFF
                a = range_at + 2 * k + ranges[k] + 2 * (code - starts[k])
                g = struct.unpack(">H", data[a:a + 2])[0]
                return (g + deltas[k]) & 0xFFFF if g else 0
        return 0

    def advance(g):
        g = min(g, metrics - 1)
        return struct.unpack(">H", data[hmtx + 4 * g:hmtx + 4 * g + 2])[0] / units

    return lambda text: sum(advance(glyph(ord(c))) for c in text)


def main():
    if len(sys.argv) < 3:
        fail("usage: cell_labels.py FONT.ttf SVG... | FONT.ttf --width PT TEXT")
    width_em = advance_widths(sys.argv[1])
    if sys.argv[2] == "--width":
        print("%.2f" % (width_em(sys.argv[4]) * float(sys.argv[3])))
        return
    bad = False
    for path in sys.argv[2:]:
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError) as e:
            fail("%s: %s" % (path, e))
        labels = []  # (x, text)
        for g in root.iter():
            if not g.tag.endswith("g") or g.get("text-anchor") != "middle":
                continue
            if abs(float(g.get("font-size", "0")) - LABEL_PT) > 0.01:
                continue
            m = re.match(r"translate\(([-0-9.]+),", g.get("transform", ""))
            text = "".join("".join(t.itertext()) for t in g if t.tag.endswith("text")).strip()
            if m and text:
                labels.append((float(m.group(1)), text))
        xs = sorted({round(x, 1) for x, _ in labels})
        gaps = [b - a for a, b in zip(xs, xs[1:])]
        if not gaps:
            print("%s no cells side by side" % path)
            continue
        cell = min(gaps)
        widest = max(labels, key=lambda l: width_em(l[1]))
        print("%s %.1f %.1f %s" % (path, cell, width_em(widest[1]) * LABEL_PT, widest[1]))
        for _, text in labels:
            width = width_em(text) * LABEL_PT
            if width > cell:
                bad = True
                print("too wide: %s %s %.1f_pt > %.1f_pt" % (path, text, width, cell))
    sys.exit(1 if bad else 0)


main()
