#!/usr/bin/env python3
"""Checks of nbc-report's report.html for the tests.

    report_check.py structure REPORT RUNS FOLDER...
        report.html's sections come in the reader's order (verdicts and
        results, figures, methods, deviations from the paper); RUNS verdict
        lines and results rows; every PNG below the FOLDERs is a figure, once,
        embedded as a data: URI that decodes to a PNG, with a caption; no
        table cell holds raw JSON. Prints a line of figures; exit 1 if not.
    report_check.py page REPORT OUT
        writes OUT, a page that loads REPORT in a frame and writes, once
        loaded, "images N broken B figures F" into its <pre id="out"> (for
        headless Chromium's --dump-dom: an image that did not load has no
        natural width)."""
import base64
import html.parser
import os
import sys

SECTIONS = ["Verdicts and results", "Figures", "Methods", "Deviations from the paper"]


class Report(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.h2, self.figures, self.verdicts, self.cells, self.tables = [], [], 0, [], []
        self.stack = []
        self.in_verdicts = False
        self.rows_seen = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.stack.append(tag)
        if tag == "ul" and a.get("class") == "verdicts":
            self.in_verdicts = True
        elif tag == "li" and self.in_verdicts:
            self.verdicts += 1
        elif tag == "figure":
            self.figures.append({"name": a.get("data-name"), "src": None, "caption": ""})
        elif tag == "img" and self.figures:
            self.figures[-1]["src"] = a.get("src") or ""
        elif tag == "table":
            self.tables.append(0)
        elif tag == "tr":
            self.rows_seen += 1
        elif tag == "th" and self.tables and self.rows_seen == 1:
            self.tables[-1] += 1  # the header row's cells
        if tag == "table":
            self.rows_seen = 0

    def handle_endtag(self, tag):
        if tag == "ul":
            self.in_verdicts = False
        while self.stack and self.stack.pop() != tag:
            pass

    def handle_data(self, data):
        if "h2" in self.stack[-1:]:
            self.h2.append(data.strip())
        elif "figcaption" in self.stack and self.figures:
            self.figures[-1]["caption"] += data
        elif "td" in self.stack[-1:]:
            self.cells.append(data)


def structure(report, runs, folders):
    p = Report()
    with open(report, encoding="utf-8") as f:
        p.feed(f.read())
    errors = []
    order = [next((i for i, h in enumerate(p.h2) if h.startswith(s)), -1) for s in SECTIONS]
    if -1 in order or order != sorted(order):
        errors.append("sections %s, expected in the order %s" % (p.h2, SECTIONS))
    if p.verdicts != runs:
        errors.append("%d verdict lines for %d runs" % (p.verdicts, runs))
    if not p.tables or p.tables[0] != runs + 1:
        errors.append("the results table has %s header cells for %d runs and the quantities"
                      % (p.tables[:1], runs))
    pngs = sorted(os.path.splitext(f)[0] for folder in folders for _, _, files in os.walk(folder)
                  for f in files if f.endswith(".png"))
    names = sorted(f["name"] or "" for f in p.figures)
    if not pngs or names != pngs:
        errors.append("figures %s, PNGs below the folders %s" % (names, pngs))
    for f in p.figures:
        src = f["src"] or ""
        prefix = "data:image/png;base64,"
        if not src.startswith(prefix) or not base64.b64decode(src[len(prefix):]).startswith(
                b"\x89PNG"):
            errors.append("figure %s is not an embedded PNG (%s...)" % (f["name"], src[:40]))
        if len(f["caption"].strip()) <= len("Figure 1 (%s)." % f["name"]):
            errors.append("figure %s has no caption" % f["name"])
    raw = [c for c in p.cells if c.strip().startswith("{")]
    if raw:
        errors.append("raw JSON in a table: %s" % raw[:2])
    if errors:
        print("report.html: " + "; ".join(errors))
        return 1
    print("report.html: %d figures embedded with captions, %d verdict lines, sections %s"
          % (len(p.figures), p.verdicts, " / ".join(p.h2)))
    return 0


PAGE = """<!DOCTYPE html><html><body><iframe id="f" src="%s"></iframe><pre id="out">pending</pre>
<script>
document.getElementById("f").onload = function () {
  var d = this.contentDocument, images = d.images, broken = 0;
  for (var i = 0; i < images.length; i++)
    if (!images[i].complete || images[i].naturalWidth === 0) broken++;
  document.getElementById("out").textContent = "images " + images.length + " broken " + broken +
    " figures " + d.querySelectorAll("figure").length;
};
</script></body></html>
"""


def main(argv):
    if len(argv) >= 3 and argv[0] == "structure":
        return structure(argv[1], int(argv[2]), argv[3:])
    if len(argv) == 3 and argv[0] == "page":
        with open(argv[2], "w", encoding="utf-8") as f:
            f.write(PAGE % os.path.basename(argv[1]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
