/* analysis: the colour scales of the figures (--palette) and the
 * diagnosis classes' colours. */
#include "analysis/analysis_internal.h"

#include <stdio.h>
#include <string.h>

/* Colour scales of section 5.2. */
void plot_overhead_palette(double r_max, char *out, size_t out_size)
{
    /* blue below 0, green at 0, yellow at 1, red from r_max on */
    snprintf(out, out_size, "(-1 '#3b6fd4', 0 '#1a9850', 1 '#ffe030', %g '#d73027')", r_max);
}

/* Diagnosis colours, short labels (for grey printing) and label colours. */
static const struct {
    const char *colour;
    const char *short_label;
    unsigned label_colour;
} diagnosis_style[DIAG_COUNT] = {
    [DIAG_OVERLAP] = {"#1a9850", "OV", 0x000000u},
    [DIAG_NO_PROGRESS] = {"#fee08b", "NP", 0x000000u},
    [DIAG_COMP_SLOWDOWN] = {"#fc8d59", "CS", 0x000000u},
    [DIAG_CONTENTION] = {"#a50026", "CT", 0xffffffu},
    [DIAG_COMM_SLOWED] = {"#c51b7d", "CM", 0xffffffu},
    [DIAG_IMPRECISION] = {"#3b6fd4", "IM", 0xffffffu},
    [DIAG_UNEXPLAINED] = {"#9e9ac8", "UX", 0x000000u},
    [DIAG_UNCERTAIN] = {"#737373", "n/a", 0x000000u},
    [DIAG_UNRESOLVABLE] = {"#8c6d31", "UR", 0xffffffu},
    [DIAG_INVALID] = {"#d9d9d9", "X", 0x000000u},
};

/* Every palette: one row per --palette name. The default keeps section
 * 5.2's colours (blue-green-yellow-red r_overhead, blue-to-red ratio and
 * difference maps, its class colours); the others are perceptually uniform
 * and colour-blind safe: stops from viridisLite (viridis, cividis, 10
 * each) for every value map, r_overhead included, and Paul Tol's schemes
 * for the differences (sunset) and the classes (muted). *_dark: the share
 * of a scale from its dark end(s) where labels turn white, where the
 * colours' relative luminance is below 0.18 (black and white text contrast
 * alike there). */
static const struct palette_style {
    const char *name;
    const char *sequential; /* best (low) to worst (high) */
    double sequential_dark; /* white labels this share from the low end... */
    bool sequential_low;    /* ...only (a dark-to-light map) */
    bool section_colours;   /* section 5.2's r_overhead, difference and class colours */
} palette_styles[PLOT_PALETTE_COUNT] = {
    [PLOT_PALETTE_DEFAULT] = {"default",
                              "(0 '#2166ac', 1 '#92c5de', 2 '#f7f7f7', 3 '#f4a582', 4 '#b2182b')",
                              0.2, false, true},
    [PLOT_PALETTE_VIRIDIS] = {"viridis",
                              "(0 '#440154', 1 '#482878', 2 '#3e4a89', 3 '#31688e', 4 '#26828e', "
                              "5 '#1f9e89', 6 '#35b779', 7 '#6dcd59', 8 '#b4de2c', 9 '#fde725')",
                              0.43, true, false},
    [PLOT_PALETTE_CIVIDIS] = {"cividis",
                              "(0 '#00204d', 1 '#00336f', 2 '#39486b', 3 '#575c6d', 4 '#707173', "
                              "5 '#8a8779', 6 '#a69d75', 7 '#c4b56c', 8 '#e4cf5b', 9 '#ffea46')",
                              0.46, true, false},
};

/* Differences: blue where the second configuration is lower, red higher. */
static const char section_diverging[] =
    "(-1 '#2166ac', -0.5 '#92c5de', 0 '#f7f7f7', 0.5 '#f4a582', 1 '#b2182b')";
static const double section_diverging_dark = 0.2;
static const char tol_sunset[] =
    "(-1 '#364b9a', -0.8 '#4a7bb7', -0.6 '#6ea6cd', -0.4 '#98cae1', -0.2 '#c2e4ef', "
    "0 '#eaeccc', 0.2 '#feda8b', 0.4 '#fdb366', 0.6 '#f67e4b', 0.8 '#dd3d2d', 1 '#a50026')";
static const double tol_sunset_dark = 0.1;

static const struct palette_style *palette_style(plot_palette palette)
{
    return &palette_styles[palette < PLOT_PALETTE_COUNT ? palette : PLOT_PALETTE_DEFAULT];
}

int plot_palette_parse(const char *name, plot_palette *out)
{
    for (int p = 0; p < PLOT_PALETTE_COUNT; p++)
        if (strcmp(name, palette_styles[p].name) == 0) {
            *out = (plot_palette)p;
            return 0;
        }
    return -1;
}

const char *plot_palette_names(void)
{
    static char names[128]; /* the table's names, for messages */
    if (!names[0])
        for (int p = 0; p < PLOT_PALETTE_COUNT; p++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", p ? ", " : "",
                     palette_styles[p].name);
    return names;
}

const char *plot_palette_name(plot_palette palette)
{
    return palette_style(palette)->name;
}

heat_scale plot_sequential_scale(plot_palette palette, const char *label, double min, double max)
{
    const struct palette_style *style = palette_style(palette);
    return (heat_scale){
        label, min, max, style->sequential, style->sequential_dark, style->sequential_low};
}

heat_scale plot_overhead_scale(plot_palette palette, const char *label, double r_max, char *stops,
                               size_t stops_size)
{
    if (!palette_style(palette)->section_colours)
        return plot_sequential_scale(palette, label, -1, r_max);
    plot_overhead_palette(r_max, stops, stops_size);
    return (heat_scale){label, -1, r_max, stops, 0, false};
}

heat_scale plot_diverging_scale(plot_palette palette, const char *label, double saturation)
{
    bool section = palette_style(palette)->section_colours;
    return (heat_scale){label,
                        -saturation,
                        saturation,
                        section ? section_diverging : tol_sunset,
                        section ? section_diverging_dark : tol_sunset_dark,
                        false};
}

/* Paul Tol's "muted" colours per class for the colour-blind-safe palettes;
 * uncertain and invalid keep their greys (they are hatched, not coloured). */
static const struct {
    const char *colour;
    unsigned label_colour;
} tol_muted[DIAG_COUNT] = {
    [DIAG_OVERLAP] = {"#117733", 0xffffffu},       /* green */
    [DIAG_NO_PROGRESS] = {"#ddcc77", 0x000000u},   /* sand */
    [DIAG_COMP_SLOWDOWN] = {"#cc6677", 0x000000u}, /* rose */
    [DIAG_CONTENTION] = {"#882255", 0xffffffu},    /* wine */
    [DIAG_COMM_SLOWED] = {"#aa4499", 0xffffffu},   /* purple */
    [DIAG_IMPRECISION] = {"#332288", 0xffffffu},   /* indigo */
    [DIAG_UNEXPLAINED] = {"#88ccee", 0x000000u},   /* cyan */
    [DIAG_UNCERTAIN] = {"#737373", 0x000000u},     /* hatched grey */
    [DIAG_UNRESOLVABLE] = {"#999933", 0x000000u},  /* olive */
    [DIAG_INVALID] = {"#d9d9d9", 0x000000u},       /* hatched grey */
};

/* A class's colour and its label's colour in a palette. */
const char *plot_diagnosis_colour(plot_palette palette, int d, unsigned *label)
{
    bool section = palette_style(palette)->section_colours;
    *label = section ? diagnosis_style[d].label_colour : tol_muted[d].label_colour;
    return section ? diagnosis_style[d].colour : tol_muted[d].colour;
}

const char *plot_diagnosis_short_label(int d)
{
    return diagnosis_style[d].short_label;
}
