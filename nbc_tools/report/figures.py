"""nbc-report's figures: every PNG of the folders, in the order a reader
meets them, each embedded (a data: URI) with its caption and sized to print
whole on one page."""
import base64
import os

from ..pdf import figure_max_height_mm
from .tables import esc


# The order a reader meets the figures in (by file name; others follow, by
# name): a run's maps, then its impact, then the comparisons.
FIGURE_ORDER = ["overhead", "overhead_ci_width", "concurrency", "concurrency_slowdown", "bands",
                "impact", "compare_overhead", "diff_overhead", "diff_comm", "diff_comp_slowdown"]
NOT_DRAWN = "not_drawn.txt"  # docs/formats.md: "NAME<TAB>why" per figure left out


def not_drawn(folder):
    """(folder, NAME, why) of every figure the analysis left out below
    folder (its not_drawn.txt files), in folder order."""
    out = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        if NOT_DRAWN in files:
            with open(os.path.join(root, NOT_DRAWN), encoding="utf-8", errors="replace") as f:
                for line in f:
                    name, _, why = line.rstrip("\n").partition("\t")
                    if name:
                        out.append((root, name, why))
    return out


def caption(png):
    """plots/NAME.caption.txt beside the figure (nbc-analyze's caption: what
    it shows, its statistics and provenance), else the first line of its
    gnuplot script, else its name."""
    stem = os.path.splitext(png)[0]
    for path, whole in ((stem + ".caption.txt", True), (stem + ".gp", False)):
        if os.path.isfile(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read().strip() if whole else f.readline().strip()
            if whole and text:
                return text
            if text.startswith("#"):
                return text.lstrip("# ")
    return os.path.basename(png)


def figure_key(png):
    name = os.path.splitext(os.path.basename(png))[0]
    # compare_overhead_2, _3, ...: a comparison drawn as a figure per
    # configuration, each after the one before
    base, _, number = name.rpartition("_")
    if name not in FIGURE_ORDER and base in FIGURE_ORDER and number.isdigit():
        return FIGURE_ORDER.index(base), int(number), name
    rank = FIGURE_ORDER.index(name) if name in FIGURE_ORDER else len(FIGURE_ORDER)
    return rank, 0, name


def embedded(png):
    """The PNG as a data: URI, so that report.html stands alone wherever it
    is copied; None when unreadable."""
    try:
        with open(png, "rb") as f:
            return "data:image/png;base64," + base64.b64encode(f.read()).decode("ascii")
    except OSError:
        return None


def figures(top, folders, notes):
    """Every PNG in and below top and the given folders (a study's runs and
    comparisons), once each, folder by folder, each folder's in FIGURE_ORDER;
    embedded, with the folder and the caption."""
    groups, seen = [], set()
    for folder in [top] + folders:
        pngs = []
        for root, dirs, files in os.walk(folder):
            dirs.sort()
            for f in files:
                path = os.path.join(root, f)
                if f.lower().endswith(".png") and os.path.realpath(path) not in seen:
                    seen.add(os.path.realpath(path))
                    pngs.append(path)
        if pngs:
            groups.append((folder, sorted(pngs, key=figure_key)))
    out, count = [], 0
    left_out = [entry for folder in [top] + folders for entry in not_drawn(folder)]
    for folder, pngs in groups:
        out.append("<h3>%s</h3>" % esc(os.path.basename(os.path.abspath(folder))))
        for png in pngs:
            uri = embedded(png)
            if uri is None:
                notes.append("%s: unreadable, not shown" % png)
                continue
            count += 1
            name = os.path.splitext(os.path.basename(png))[0]
            text = caption(png)
            # The image as tall as its page leaves beside its caption.
            out.append('<figure id="fig-%d" data-name="%s" data-toc="Figure %d (%s)">'
                       '<img src="%s" alt="%s" style="max-height: %dmm">'
                       "<figcaption><b>Figure %d (%s).</b> %s</figcaption></figure>"
                       % (count, esc(name), count, esc(name), uri, esc(text.split("\n")[0]),
                          figure_max_height_mm(text), count, esc(name),
                          esc(text).replace("\n", "<br>")))
    if left_out:
        out.append("<p>Not drawn, with nothing to show:</p><ul>%s</ul>" % "".join(
            "<li>%s (%s): %s</li>" % (esc(name), esc(os.path.relpath(root, top)), esc(why))
            for root, name, why in left_out))
    return count, "\n".join(out) or "<p class=missing>no figure (PNG) in this folder</p>"
