/* analysis: the colour scales of the figures (--palette); the bands'
 * colours are schema/classes.def's. */
#include "analysis/figures/figures.h"
#include "schema/classes.h"

#include <stdio.h>
#include <string.h>

/* Colour scales of section 5.2. */
void plot_overhead_palette(double r_max, char *out, size_t out_size)
{
    /* blue below 0, green at 0, yellow at 1, red from r_max on */
    snprintf(out, out_size, "(-1 '#3b6fd4', 0 '#1a9850', 1 '#ffe030', %g '#d73027')", r_max);
}

/* Every palette: one row per --palette name, the first the default. cividis
 * and viridis are perceptually uniform and colour-blind safe: stops from
 * viridisLite (10 each) for r_overhead's 0..1 and the interval widths, Paul
 * Tol's schemes for ratios and differences (sunset) and the classes
 * (muted). paper keeps section 5.2's colours (blue-green-yellow-red
 * r_overhead, blue-to-red ratio and difference maps, its class colours). *_dark: the share
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
    [PLOT_PALETTE_CIVIDIS] = {"cividis",
                              "(0 '#00204d', 1 '#00336f', 2 '#39486b', 3 '#575c6d', 4 '#707173', "
                              "5 '#8a8779', 6 '#a69d75', 7 '#c4b56c', 8 '#e4cf5b', 9 '#ffea46')",
                              0.46, true, false},
    [PLOT_PALETTE_VIRIDIS] = {"viridis",
                              "(0 '#440154', 1 '#482878', 2 '#3e4a89', 3 '#31688e', 4 '#26828e', "
                              "5 '#1f9e89', 6 '#35b779', 7 '#6dcd59', 8 '#b4de2c', 9 '#fde725')",
                              0.43, true, false},
    [PLOT_PALETTE_PAPER] = {"paper",
                            "(0 '#2166ac', 1 '#92c5de', 2 '#f7f7f7', 3 '#f4a582', 4 '#b2182b')",
                            0.2, false, true},
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
    return &palette_styles[palette < PLOT_PALETTE_COUNT ? palette : PLOT_PALETTE_CIVIDIS];
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
    return (heat_scale){.label = label,
                        .min = min,
                        .max = max,
                        .palette = style->sequential,
                        .dark_fraction = style->sequential_dark,
                        .dark_low_only = style->sequential_low};
}

/* r_overhead on the colour-blind-safe palettes: the palette's colours from
 * 0 (overlap) to 1 (serialized), continuous at both ends and saturated
 * beyond them, so that noise about 0 or 1 takes the colour of its
 * neighbours; a cell whose interval lies wholly beyond an end is marked
 * (worse than serialized above 1, imprecision below 0). */
heat_scale plot_overhead_scale(plot_palette palette, const char *label, double r_max, char *stops,
                               size_t stops_size)
{
    const struct palette_style *style = palette_style(palette);
    if (style->section_colours) {
        plot_overhead_palette(r_max, stops, stops_size);
        return (heat_scale){.label = label, .min = -1, .max = r_max, .palette = stops};
    }
    snprintf(stops, stops_size, "%s", style->sequential);
    heat_scale scale = plot_sequential_scale(palette, label, 0, 1);
    scale.palette = stops;
    scale.saturate_low = scale.saturate_high = true;
    return scale;
}

heat_scale plot_diverging_scale(plot_palette palette, const char *label, double saturation)
{
    bool section = palette_style(palette)->section_colours;
    return (heat_scale){.label = label,
                        .min = -saturation,
                        .max = saturation,
                        .palette = section ? section_diverging : tol_sunset,
                        .dark_fraction = section ? section_diverging_dark : tol_sunset_dark};
}

heat_scale plot_ratio_scale(plot_palette palette, const char *label, double saturation)
{
    heat_scale scale = plot_diverging_scale(palette, label, saturation);
    scale.min = 1 / saturation;
    scale.max = saturation;
    scale.log = true;
    return scale;
}

heat_scale plot_width_scale(plot_palette palette, const char *label, double max)
{
    /* the paper has no sequential map: its palette takes cividis' here */
    plot_palette sequential =
        palette_style(palette)->section_colours ? PLOT_PALETTE_CIVIDIS : palette;
    heat_scale scale = plot_sequential_scale(sequential, label, 0, max);
    scale.saturate_high = true; /* a wider interval: the top colour and a mark */
    return scale;
}
