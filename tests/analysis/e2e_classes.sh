#!/usr/bin/env bash
# The verdict's class table (schema/classes.def) as schema_doc --json exports
# it to Python and shell: names, abbreviations and colours unique; the bands
# of r_overhead contiguous from -inf to +inf (hidden < partial < none, each
# bound once); colours told apart: a CIEDE2000 difference of at least 10
# between any two, under normal vision and under simulated deuteranopia and
# protanopia (Machado et al. 2009 at severity 1). The rule behind 10: a
# difference of 1 is just noticeable between large patches side by side,
# but a class is read from one small cell of a printed map against its key,
# and for marks of a few millimetres the difference needed to tell two
# colours apart grows to 5-10 (Szafir 2017, "Modeling color difference for
# visualization design"); the threshold takes the top of that range. And
# nbc-verdict's verdicts (nbc_tools/verdict/) spell no class as a literal
# string (they read the table).
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

def ciede2000(lab1, lab2):
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1, h2 = math.degrees(math.atan2(b1, a1)) % 360, math.degrees(math.atan2(b2, a2)) % 360
    dh = 0 if c1 * c2 == 0 else (h2 - h1 + 180) % 360 - 180
    d_hue = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    l_mean, c_mean = (l1 + l2) / 2, (c1 + c2) / 2
    h_mean = h1 + h2 if c1 * c2 == 0 else (h1 + dh / 2) % 360
    t = (1 - 0.17 * math.cos(math.radians(h_mean - 30)) + 0.24 * math.cos(math.radians(2 * h_mean))
         + 0.32 * math.cos(math.radians(3 * h_mean + 6)) - 0.20 * math.cos(math.radians(4 * h_mean - 63)))
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    s_c, s_h = 1 + 0.045 * c_mean, 1 + 0.015 * c_mean * t
    r_t = (-2 * math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7))
           * math.sin(math.radians(60 * math.exp(-(((h_mean - 275) / 25) ** 2)))))
    dl, dc, dhh = (l2 - l1) / s_l, (c2 - c1) / s_c, d_hue / s_h
    return math.sqrt(dl ** 2 + dc ** 2 + dhh ** 2 + r_t * dc * dhh)

# Machado, Oliveira and Fernandes 2009, severity 1, on linear RGB
SIMULATIONS = {
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
}

def simulated(matrix):
    return lambda rgb: [min(1, max(0, sum(matrix[i][j] * rgb[j] for j in range(3))))
                        for i in range(3)]

# the colour science checked on the published pairs (Sharma, Wu and Dalal 2005)
for lab1, lab2, want in (((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425),
                         ((50, -1.3802, -84.2814), (50, 0, -82.7485), 1.0000),
                         ((50, 2.5, 0), (73, 25, -18), 27.1492)):
    assert abs(ciede2000(lab1, lab2) - want) < 1e-3, (lab1, lab2, ciede2000(lab1, lab2))
worst = {}
visions = [("normal", lambda c: c)] + [(k, simulated(m)) for k, m in SIMULATIONS.items()]
for vision, see in visions:
    labs = {c["name"]: lab(see(linear(c["colour"]))) for c in classes}
    worst[vision] = min((ciede2000(labs[a], labs[b]), a, b) for i, a in enumerate(names)
                        for b in names[i + 1:])
    assert worst[vision][0] >= 10, (vision, worst[vision])
# The verdict's modules, a study's and one launch's, read the table.
for module in ("study", "launch"):
    path = "%s/nbc_tools/verdict/%s.py" % (sys.argv[2], module)
    text = open(path).read()
    for name in names:
        if re.search(r"""["']%s["']""" % re.escape(name), text):
            sys.exit("%s spells the class '%s' (read schema_doc --json)" % (path, name))
print("figure: %d classes, bands contiguous; closest colours (CIEDE2000) %.1f (%s, %s), under "
      "deuteranopia %.1f (%s, %s), under protanopia %.1f (%s, %s)"
      % ((len(classes),) + worst["normal"] + worst["deuteranopia"] + worst["protanopia"]))
PY
rm -f "$BUILD/classes.json.tmp"
