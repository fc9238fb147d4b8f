"""The fingerprint's figure: SVG, one row per way, four panels (progressed
share, r_overhead, r_comp_slowdown, r_MPI_impact), a journal column wide.

Drawn here, not by gnuplot as the run's figures are: the fingerprint is a
page a user opens anywhere (nbc-run --fingerprint, even where gnuplot is
not installed: the other figures are then skipped with a message), with
its figure inline in the HTML, and its marks are text-aligned rows of
intervals, not a heatmap; the figure's values are the table's beside it."""
import html
import math

from .data import STATS


# (3.5 in wide: a journal column; units are points)
WIDTH_PT, LABEL_PT, PANEL_PT, GAP_PT, ROW_PT, TOP_PT, FONT_PT = 252, 72, 40, 6, 12, 22, 7
DARK, LIGHT, GREY = "#0072B2", "#A6CEE3", "#888888"  # Okabe-Ito blue, a light blue


def panels():
    """(title, subtitle, column, lo, hi, log scale, ticks, reference lines)
    of each panel. Fixed ranges, so that pages compare: r_overhead linear
    (0 perfect overlap, 1 serialized), the slowdown ratios on a log scale
    centred near 1 (x2 and /2 equally far); beyond a range, a median is an
    open dot and an interval ends in an arrow at the edge."""
    return [("progressed", "% of cells", "progressed_share", 0.0, 1.0, False,
             [(0, "0"), (0.5, "50"), (1, "100")], []),
            ("overhead", "r, eq. 1", "overhead", -0.5, 3.0, False,
             [(0, "0"), (1, "1"), (2, "2"), (3, "3")], [0, 1]),
            ("slowdown", "r, eq. 3", "slowdown", 0.5, 4.0, True,
             [(1, "1"), (2, "2"), (4, "4")], [1]),
            ("MPI impact", "r, eq. 2", "impact", 0.5, 4.0, True,
             [(1, "1"), (2, "2"), (4, "4")], [1])]


def scaler(x0, lo, hi, log):
    """x of a value in a panel starting at x0, clamped to [lo, hi]."""
    f = math.log if log else (lambda v: v)
    return lambda v: x0 + (f(min(max(v, lo), hi)) - f(lo)) / (f(hi) - f(lo)) * PANEL_PT


def svg_text(x, y, text, anchor="start", weight="normal", fill="black", size=FONT_PT):
    return ('<text x="%.1f" y="%.1f" text-anchor="%s" font-weight="%s" fill="%s" '
            'font-size="%g">%s</text>' % (x, y, anchor, weight, fill, size, html.escape(text)))


def figure_svg(rows):
    groups = []
    for r in rows:
        if (r["library"], r["collective_name"]) not in groups:
            groups.append((r["library"], r["collective_name"]))
    lines = len(rows) + len(groups)
    height = TOP_PT + lines * ROW_PT + 12
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%gin" height="%gin" '
           'viewBox="0 0 %d %d" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">'
           % (WIDTH_PT / 72, height / 72, WIDTH_PT, height)]
    specs = panels()
    bottom = TOP_PT + lines * ROW_PT
    for i, (title, sub, _, lo, hi, log, ticks, refs) in enumerate(specs):
        x0 = LABEL_PT + i * (PANEL_PT + GAP_PT)
        scale = scaler(x0, lo, hi, log)
        out.append(svg_text(x0 + PANEL_PT / 2, 8, title, "middle"))
        out.append(svg_text(x0 + PANEL_PT / 2, 16, sub, "middle", fill=GREY))
        out.append('<rect x="%.1f" y="%d" width="%d" height="%d" fill="none" stroke="%s" '
                   'stroke-width="0.4"/>' % (x0, TOP_PT - 2, PANEL_PT, bottom - TOP_PT + 2, GREY))
        for ref in refs:
            out.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="%s" '
                       'stroke-width="0.5" stroke-dasharray="1.5,1.5"/>'
                       % (scale(ref), scale(ref), TOP_PT - 2, bottom, GREY))
        for value, text in ticks:
            # (a label at a panel's edge stays inside it, clear of the next panel's)
            anchor = "start" if value <= lo else "end" if value >= hi else "middle"
            out.append(svg_text(scale(value), bottom + 8, text, anchor))
    y = TOP_PT
    for library, coll in groups:
        out.append(svg_text(1, y + 8.5, "%s, %s" % (library, coll), weight="bold"))
        y += ROW_PT
        for r in rows:
            if (r["library"], r["collective_name"]) != (library, coll):
                continue
            measured = r["status"] == "measured"
            out.append(svg_text(4, y + 8.5, r["label"], fill="black" if measured else GREY))
            mid = y + ROW_PT / 2
            if not measured:
                # (over the panels' frames and reference lines of that row)
                out.append('<rect x="%d" y="%.1f" width="%d" height="%d" fill="white"/>'
                           % (LABEL_PT, y, WIDTH_PT - LABEL_PT, ROW_PT))
                out.append(svg_text(LABEL_PT + 2, y + 8.5,
                                    "not run: %s (reason in the table)" % r["status"],
                                    fill=GREY))
                y += ROW_PT
                continue
            for i, (_, _, column, lo, hi, log, _, _) in enumerate(specs):
                x0 = LABEL_PT + i * (PANEL_PT + GAP_PT)
                scale = scaler(x0, lo, hi, log)
                if column == "progressed_share":
                    for share, color, h in ((r["progressed_point_share"], LIGHT, 8),
                                            (r["progressed_share"], DARK, 4)):
                        if math.isfinite(share):
                            out.append('<rect x="%.1f" y="%.1f" width="%.2f" height="%d" '
                                       'fill="%s"/>' % (x0, mid - h / 2, scale(share) - x0,
                                                        h, color))
                    continue
                m, a, b = (r[c] for c in STATS[column])
                if math.isfinite(a) and math.isfinite(b):
                    out.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="black" '
                               'stroke-width="0.8"/>' % (scale(a), scale(b), mid, mid))
                    for end, edge, sign in ((a, lo, -1), (b, hi, 1)):
                        if (end - edge) * sign > 0:  # the interval goes on beyond the axis
                            x = scale(edge)
                            out.append('<path d="M%.1f,%.1f l%.1f,-2 l0,4 z" fill="black"/>'
                                       % (x, mid, -2.5 * sign))
                if math.isfinite(m):
                    clipped = not lo <= m <= hi
                    out.append('<circle cx="%.1f" cy="%.1f" r="1.8" fill="%s" stroke="black" '
                               'stroke-width="0.5"/>' % (scale(m), mid,
                                                          "white" if clipped else "black"))
            y += ROW_PT
    out.append("</svg>")
    return "\n".join(out) + "\n"


CAPTION = (
    "Progress fingerprint: one row per way of driving progress of each library and "
    "collective. progressed: the share of the valid cells where the collective progressed "
    "during the computation (r_overhead's band hidden or partial), dark with its 95 % "
    "interval below the band none, light by point estimate. overhead "
    "(r_overhead, eq. 1; dashed: 0 perfect overlap, 1 serialized) and slowdown "
    "(r_comp_slowdown, eq. 3): median over the valid cells, bar its distribution-free 95 % "
    "interval (order statistics; none under 6 cells). MPI impact (r_MPI_impact, eq. 2): "
    "at the largest computation size, bar its 95 % interval. Both slowdown "
    "ratios are on a log scale. An open dot is a median outside the axis, drawn at its end; "
    "an arrow, an interval that goes on beyond it.")
