/* analysis/analyze: the whole analysis of one run folder (nbc-analyze, and
 * nbc-compare for a run not analyzed yet): load its inputs, compute its
 * cells and impact, write its tables and draw its figures. */
#ifndef ANALYSIS_ANALYZE_ANALYZE_H
#define ANALYSIS_ANALYZE_ANALYZE_H

#include "analysis/figures/figures.h"

analysis_options analysis_default_options(void);

/* Load, compute, write the tables and (options->plots) draw: nbc-analyze. */
int analysis_analyze_run(const char *run_dir, const analysis_options *options, analysis_error *err);

#endif
