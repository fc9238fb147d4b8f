#!/usr/bin/env bash
# What the Python tools write is what tests/data/pytools/ recorded:
# nbc-verdict's lines (a run folder, a study folder with and without its
# verdict.csv, --map), nbc-report's report.html of a run folder and of a
# study folder (and the text of report.pdf with weasyprint and
# poppler-utils), nbc-fingerprint's csv, svg, html and lines, each tool's
# --help and a refusal. The inputs: tests/data/example_run analyzed
# (nbc-analyze --no-plots; the records of report_pdf_records.json beside
# it, as e2e_report_pdf.sh adds them), figures of fixed bytes and captions
# in a folder of their own (the tools' order, captions and embedding, not
# nbc-analyze's drawings), and a study.json over it with example_study's
# verdict.csv and impact.csv. A change of what nbc-analyze writes or of the
# tools' words means recording again: RECORD=1 tests/run.sh THIS_SCRIPT.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
for tool in nbc-analyze nbc-verdict nbc-report nbc-fingerprint; do
    [ -x "$TOOLS_DIR/$tool" ] || fail "$TOOLS_DIR/$tool is not built"
done
command -v python3 >/dev/null || skip "python3 is not installed"
make_scratch
expected=$BENCH_NBC_ROOT/tests/data/pytools
tools=$TOOLS_ABS
got=$SCRATCH/got
mkdir -p "$got"

run=$SCRATCH/work/run
mkdir -p "$SCRATCH/work"
cp -R tests/data/example_run "$run"
python3 tests/analysis/add_records.py "$run" tests/analysis/report_pdf_records.json ||
    fail "cannot add the records to $run"
"$tools/nbc-analyze" --no-plots -q "$run" >"$SCRATCH/analyze.out" 2>&1 ||
    fail "nbc-analyze failed: $(cat "$SCRATCH/analyze.out")"
# summary.txt of fixed words (nbc-report shows it whole, nbc-analyze
# words it); figures of fixed bytes (a 1 x 1 PNG), one captioned by its caption.txt,
# one by its gnuplot script's first line, one by its name alone.
python3 - "$run/figs" <<'PY' || fail "cannot write the figures"
import os, struct, sys, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) +
       chunk(b"IDAT", zlib.compress(b"\x00\x20\x60\xa0")) + chunk(b"IEND", b""))
os.makedirs(sys.argv[1])
open(os.path.join(sys.argv[1], "..", "summary.txt"), "w").write(
    "run: 36 cells, 30 valid <nbc-analyze's words & figures>\nintervals: 95 % per cell\n")
for name in ("zeta", "impact", "overhead"):
    open(os.path.join(sys.argv[1], name + ".png"), "wb").write(png)
open(os.path.join(sys.argv[1], "overhead.caption.txt"), "w").write(
    "r_overhead of each cell <b>(eq. 1)</b>\nmedians over 3 blocks & their 95 % intervals\n")
open(os.path.join(sys.argv[1], "impact.gp"), "w").write("# r_MPI_impact per size\nplot 1\n")
PY
# A study of that run: example_study's verdict over launches; a skipped way
# for nbc-fingerprint; a second study folder without verdict.csv.
study=$SCRATCH/work/study
mkdir -p "$study" "$SCRATCH/work/plain"
cp tests/data/example_study/verdict.csv tests/data/example_study/impact.csv "$study/"
printf '%s\n' '{"study": {"mpi": ["openmpi"], "collectives": ["ibcast"]},' \
    ' "skipped": ["openmpi-ibcast-dedicated: no core is left free"],' \
    ' "runs": [{"index": 1, "name": "openmpi-ibcast-basic", "launch": 1, "status": "complete", "run_dir": "run"}]}' \
    >"$study/study.json"
cp "$study/study.json" "$SCRATCH/work/plain/"
cd "$SCRATCH/work" || fail "cannot enter $SCRATCH/work"

# transcript FILE COMMAND...: appends the command, its output (stderr too)
# and its exit status to FILE.
transcript() {
    local file=$1 status=0
    shift
    echo "\$ ${*#"$tools/"}" >>"$got/$file"
    "$@" >>"$got/$file" 2>&1 || status=$?
    echo "[exit status $status]" >>"$got/$file"
}
pdf=""
command -v weasyprint >/dev/null && command -v pdftotext >/dev/null && pdf=1
no_pdf=()
[ -n "$pdf" ] || no_pdf=(--no-pdf)
for t in nbc-verdict nbc-report nbc-fingerprint; do transcript help.txt "$tools/$t" --help; done
transcript help.txt "$tools/nbc-report" --no-such-option
transcript verdict.txt "$tools/nbc-verdict" run
transcript verdict.txt "$tools/nbc-verdict" --map study run
transcript verdict.txt "$tools/nbc-verdict" plain
transcript verdict.txt "$tools/nbc-verdict" "$BENCH_NBC_ROOT/tests/data/example_study"
transcript verdict.txt "$tools/nbc-verdict" no-such-folder
transcript report.txt "$tools/nbc-report" "${no_pdf[@]}" run
transcript report.txt "$tools/nbc-report" "${no_pdf[@]}" study
transcript report.txt "$tools/nbc-report" "$BENCH_NBC_ROOT/tests/data/example_study"
transcript fingerprint.txt "$tools/nbc-fingerprint" "${no_pdf[@]}" study
transcript fingerprint.txt "$tools/nbc-fingerprint" study plain
cp run/report.html "$got/report_run.html"
cp study/report.html "$got/report_study.html"
for f in csv svg html; do cp "study/fingerprint.$f" "$got/"; done
if [ -n "$pdf" ]; then
    pdftotext -enc UTF-8 run/report.pdf "$got/report_run.pdf.txt"
    pdftotext -enc UTF-8 study/report.pdf "$got/report_study.pdf.txt"
    pdftotext -enc UTF-8 study/fingerprint.pdf "$got/fingerprint.pdf.txt"
fi

# What must vary, made one word: the scratch folder and the source tree
# (paths), the time of writing, the version and revision (git's), and
# argparse's heading of options (Python < 3.10 says "optional arguments").
# A PDF's text is compared without its white space: where its lines break
# depends on the paths' lengths; its words and their order do not.
python3 - "$got" "$SCRATCH/work" "$BENCH_NBC_ROOT" "$TOOLS_ABS" <<'PY' || fail "cannot normalise the outputs"
import os, re, sys
got, work, root, tools = sys.argv[1:]
for name in sorted(os.listdir(got)):
    path = os.path.join(got, name)
    text = open(path, encoding="utf-8").read()
    pdf = name.endswith(".pdf.txt")
    flat = lambda t: re.sub(r"\s+|-", "", t) if pdf else t
    # (a PDF's text: a line may break at a hyphen, which pdftotext drops;
    # the contents' dot leaders fill what the page numbers leave)
    text = re.sub(r"\.{4,}", "...", flat(text))
    for where, word in ((work, "WORK"), (tools, "TOOLS"), (root, "ROOT")):
        text = text.replace(flat(where), word)
    space = r"\s*" if pdf else " "
    text = re.sub(r"\d{4}-?\d\d-?\d\d%s\d\d:\d\d%sUTC" % (space, space), "DATE", text)
    text = re.sub(r"(nbc-?[a-z]+)%s[^\s(]+%s\(revision%s[^)]*\)" % (space, space, space),
                  r"\1 VERSION (revision REVISION)", text)
    text = text.replace("optional arguments:", "options:")
    if pdf:  # lines of 100 characters, so that a difference reads
        text = "\n".join(text[i:i + 100] for i in range(0, len(text), 100)) + "\n"
    open(path, "w", encoding="utf-8").write(text)
PY
if [ -n "${RECORD:-}" ]; then
    mkdir -p "$expected"
    cp "$got"/* "$expected/"
    echo "recorded into $expected: $(cd "$got" && echo *)"
    exit 0
fi
[ -d "$expected" ] || fail "no reference in $expected (RECORD=1 records it)"
compared=0
for f in "$expected"/*; do
    name=$(basename "$f")
    case $name in *.pdf.txt) [ -n "$pdf" ] || continue ;; esac
    [ -f "$got/$name" ] || fail "$name was not written"
    diff -u "$f" "$got/$name" >"$SCRATCH/diff" || fail "$name differs from its reference:"$'\n'"$(head -n 40 "$SCRATCH/diff")"
    compared=$((compared + 1))
done
for f in "$got"/*; do [ -f "$expected/$(basename "$f")" ] || fail "$(basename "$f") has no reference"; done
[ -n "$pdf" ] || echo "note: weasyprint or pdftotext is not installed: the PDFs' text not compared"
figure "$compared outputs of nbc-verdict, nbc-report and nbc-fingerprint as recorded"
