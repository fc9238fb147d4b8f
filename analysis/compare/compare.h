/* analysis/compare: nbc-compare, two or more run folders grouped into
 * configurations and their launches, drawn side by side; for two
 * configurations their differences and the equal-work comparison
 * (analysis/README.md, "nbc-compare"). compare_internal.h is what its own
 * files share. */
#ifndef ANALYSIS_COMPARE_COMPARE_H
#define ANALYSIS_COMPARE_COMPARE_H

#include "analysis/figures/figures.h"

#include <stddef.h>

/* nbc-compare: two or more run folders drawn side by side on their common
 * cells into out_dir; runs without cells.csv are analyzed first. The summary
 * table goes to options->report and out_dir/summary.csv. */
int analysis_compare_runs(const char *const *run_dirs, size_t run_count, const char *out_dir,
                          const analysis_options *options, analysis_error *err);

#endif
