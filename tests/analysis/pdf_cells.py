#!/usr/bin/env python3
"""Checks of a printed report's tables, from weasyprint's own layout.

    pdf_cells.py REPORT.html

Lays REPORT.html out as weasyprint prints it (the layout report.pdf is
drawn from) and fails (exit 1, a line per problem) when a text of a table
cell runs past its cell's right edge by more than 1 pt: a word wider than
its column, printed over the next cell (a PDF read back has no cell
borders to tell this from a long line). Run with the Python that has
weasyprint (the weasyprint command's). Prints a line of figures when all
holds."""
import sys

SLACK_PT = 1.0


def overflowing(document):
    """(page, text, pt past the cell) of every cell text past its cell."""
    from weasyprint.formatting_structure import boxes

    out, cells = [], [0]

    def walk(box, cell, page):
        if isinstance(box, boxes.TableCellBox):
            cell = box
            cells[0] += 1
        if isinstance(box, boxes.TextBox) and cell is not None:
            past = box.position_x + box.width - (cell.content_box_x() + cell.width)
            if past > SLACK_PT:
                out.append((page, box.text, past))
        for child in getattr(box, "children", None) or []:
            walk(child, cell, page)

    for number, page in enumerate(document.pages, 1):
        walk(page._page_box, None, number)
    return out, cells[0]


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        import weasyprint
    except ImportError:
        print("weasyprint cannot be imported by %s" % sys.executable, file=sys.stderr)
        return 2
    problems, cells = overflowing(weasyprint.HTML(filename=argv[0]).render())
    for page, text, past in problems:
        print("page %d: '%s' runs %.1f pt past its table cell" % (page, text[:40], past))
    if problems:
        return 1
    print("tables: %d cells, every text inside its cell" % cells)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
