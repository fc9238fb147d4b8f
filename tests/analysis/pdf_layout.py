#!/usr/bin/env python3
"""Checks of a printed report's layout, read back with poppler-utils.

    pdf_layout.py REPORT.pdf SCRATCH

pdftohtml -xml gives each page's size, text boxes (font, bold) and image
boxes; pdfimages -list and pdfinfo count the images and the pages. Fails
(exit 1, a line per problem) when
- an image's box crosses its page's edge (a figure cut at the page bottom);
- figure N's caption ("Figure N (", bold) is not on the page of image N
  (a caption alone on the next page; the PDF's images are its figures);
- a page holds nothing but headings: no image, and at most one line of
  text, or only lines in bold larger than the body text (the commonest
  size of the text that is not bold);
- text runs past the right margin (taken as wide as the left one: the
  smallest left edge of any text in the document), by more than 2 pt.
Text repeated at the same height on most pages (a page number) is the
page's furniture and does not count as its text. Prints a line of figures
when all holds."""
import collections
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

SLACK_PT = 2.0  # glyph boxes are approximate


def run(*command):
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit("%s failed (%d): %s" % (command[0], done.returncode, done.stderr.strip()))
    return done.stdout


# A text box: its bold lead (the text of a <b> it starts with, else "") and
# bold (all of it in bold).
Text = collections.namedtuple("Text", "top left right size bold lead text")


def pages_of(pdf, scratch):
    """[{number, width, height, texts: [Text], images: [(top, left, bottom, right)]}]
    from pdftohtml -xml at 1 pt a unit."""
    base = os.path.join(scratch, "layout")
    run("pdftohtml", "-xml", "-zoom", "1", "-q", "-nodrm", pdf, base)
    root = ET.parse(base + ".xml").getroot()
    sizes, pages = {}, []
    for page in root.iter("page"):
        for spec in page.iter("fontspec"):
            sizes[spec.get("id")] = float(spec.get("size"))
        texts, images = [], []
        for t in page.iter("text"):
            content = "".join(t.itertext()).strip()
            if not content:
                continue
            starts_bold = len(t) > 0 and t[0].tag == "b" and not (t.text or "").strip()
            bold = starts_bold and all(c.tag == "b" and not (c.tail or "").strip() for c in t)
            top, left = float(t.get("top")), float(t.get("left"))
            texts.append(Text(top, left, left + float(t.get("width")),
                              sizes.get(t.get("font"), 0), bold,
                              "".join(t[0].itertext()) if starts_bold else "", content))
        for i in page.iter("image"):
            top, left = float(i.get("top")), float(i.get("left"))
            images.append((top, left, top + float(i.get("height")), left + float(i.get("width"))))
        pages.append({"number": int(page.get("number")), "width": float(page.get("width")),
                      "height": float(page.get("height")), "texts": texts, "images": images})
    return pages


def furniture(pages):
    """(top, text with digits as #) of the lines found on most pages."""
    seen = collections.Counter()
    for page in pages:
        seen.update({(round(t.top), re.sub(r"\d+", "#", t.text)) for t in page["texts"]})
    return {key for key, n in seen.items() if len(pages) >= 3 and n >= 0.8 * len(pages)}


def check(pdf, scratch):
    pages = pages_of(pdf, scratch)
    problems = []
    info = run("pdfinfo", pdf)
    count = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    if count != len(pages):
        problems.append("pdfinfo counts %d pages, pdftohtml %d" % (count, len(pages)))
    listed = len(run("pdfimages", "-list", pdf).splitlines()[2:])
    placed = sum(len(p["images"]) for p in pages)
    if listed != placed:
        problems.append("pdfimages lists %d images, pdftohtml places %d" % (listed, placed))
    fixed = furniture(pages)
    for page in pages:
        page["texts"] = [t for t in page["texts"]
                         if (round(t.top), re.sub(r"\d+", "#", t.text)) not in fixed]
    plain = collections.Counter(t.size for p in pages for t in p["texts"] if not t.bold)
    body = plain.most_common(1)[0][0] if plain else 0
    texts = [t for p in pages for t in p["texts"]]
    left_margin = min((t.left for t in texts), default=0)

    image_page = [p["number"] for p in pages for _ in p["images"]]
    for page in pages:
        n, width, height = page["number"], page["width"], page["height"]
        for top, left, bottom, right in page["images"]:
            if top < -SLACK_PT or left < -SLACK_PT or bottom > height + SLACK_PT or \
                    right > width + SLACK_PT:
                problems.append("page %d: an image's box (%.0f, %.0f)-(%.0f, %.0f) crosses the "
                                "page's edge (%.0f x %.0f)" % (n, left, top, right, bottom,
                                                               width, height))
        lines = {round(t.top) for t in page["texts"]}
        headings = [t for t in page["texts"] if t.bold and t.size > body]
        if not page["images"] and (len(lines) <= 1 or len(headings) == len(page["texts"])):
            problems.append("page %d holds only a heading: %s" % (
                n, " / ".join(t.text for t in page["texts"]) or "(no text)"))
        limit = width - left_margin + SLACK_PT
        over = [t for t in page["texts"] if t.right > limit]
        if over:
            problems.append("page %d: %d text boxes run past the right margin (%.0f pt), as far "
                            "as %.0f pt: %s" % (n, len(over), limit, max(t.right for t in over),
                                                over[0].text[:40]))
        for t in page["texts"]:
            figure = re.match(r"Figure (\d+) \(", t.lead)
            if figure:
                k = int(figure.group(1))
                if k > len(image_page) or image_page[k - 1] != n:
                    problems.append("page %d: the caption of figure %d, whose image is on page %s"
                                    % (n, k, image_page[k - 1] if k <= len(image_page) else
                                       "none"))
    for line in problems:
        print(line)
    if problems:
        return 1
    print("layout: %d pages, %d images inside their pages with their captions, no page of "
          "headings only, text within %.0f pt margins (body text %.0f pt)"
          % (len(pages), placed, left_margin, body))
    return 0


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    return check(argv[0], argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
