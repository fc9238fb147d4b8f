#!/usr/bin/env bash
# The verdict's class table (schema/classes.def) as schema_doc --json exports
# it to Python and shell: names, abbreviations and colours unique; the bands
# of r_overhead contiguous from -inf to +inf (hidden < partial < none, each
# bound once); colours told apart (CIE76 distance at least 20 between any
# two, also under a simulated deuteranopia, Machado et al. 2009 at severity
# 1); and nbc-verdict's verdicts (nbc_tools/verdict/) spell no class as a
# literal string (they read the table).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
doc=$TOOLS_DIR/schema_doc
[ -x "$doc" ] || fail "$doc is not built"
command -v python3 >/dev/null || skip "python3 is not installed"
"$doc" --json >"$BUILD/classes.json.tmp" || fail "schema_doc --json failed"
python3 - "$BUILD/classes.json.tmp" "$BENCH_NBC_ROOT" <<'PY' || fail "the class table is not sound"
import json, math, re, sys
classes = json.load(open(sys.argv[1]))["classes"]
names = [c["name"] for c in classes]
for key in ("name", "abbrev", "colour"):
    values = [c[key] for c in classes]
    assert len(set(values)) == len(values), "%s repeated: %s" % (key, values)
bands = sorted((c for c in classes if c["band"]), key=lambda c: c["band_hi"] or math.inf)
assert bands[0]["band_lo"] is None and bands[-1]["band_hi"] is None, bands
for a, b in zip(bands, bands[1:]):
    assert a["band_hi"] == b["band_lo"], (a, b)

def linear(hexcolour):
    rgb = [int(hexcolour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    return [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in rgb]

def lab(rgb):
    m = ((0.4124, 0.3576, 0.1805), (0.2126, 0.7152, 0.0722), (0.0193, 0.1192, 0.9505))
    xyz = [sum(m[i][j] * rgb[j] for j in range(3)) for i in range(3)]
    white = (0.9505, 1.0, 1.089)
    f = [t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in
         (x / w for x, w in zip(xyz, white))]
    return (116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2]))

DEUTAN = ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
          (-0.011820, 0.042940, 0.968881))

def deutan(rgb):
    return [min(1, max(0, sum(DEUTAN[i][j] * rgb[j] for j in range(3)))) for i in range(3)]

worst = {}
for vision, see in (("normal", lambda c: c), ("deuteranopia", deutan)):
    labs = {c["name"]: lab(see(linear(c["colour"]))) for c in classes}
    worst[vision] = min((math.dist(labs[a], labs[b]), a, b) for i, a in enumerate(names)
                        for b in names[i + 1:])
    assert worst[vision][0] >= 20, (vision, worst[vision])
# The verdict's modules, a study's and one launch's, read the table.
for module in ("study", "launch"):
    path = "%s/nbc_tools/verdict/%s.py" % (sys.argv[2], module)
    text = open(path).read()
    for name in names:
        if re.search(r"""["']%s["']""" % re.escape(name), text):
            sys.exit("%s spells the class '%s' (read schema_doc --json)" % (path, name))
print("figure: %d classes, bands contiguous; closest colours %.0f (%s, %s), under "
      "deuteranopia %.0f (%s, %s)" % ((len(classes),) + worst["normal"] + worst["deuteranopia"]))
PY
rm -f "$BUILD/classes.json.tmp"
