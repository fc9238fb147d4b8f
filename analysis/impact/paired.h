/* analysis/impact: the paired design of the MPI impact (eq. 2, paper
 * section 3.2.1). Computation with and without the idle library is
 * measured in pairs close in time (compute_ref, then the passive step; the
 * passive step, then compute_ref); each pair gives one log ratio, and the
 * same design run A/A (compute_ref, then compute_ref) gives the band that
 * a ratio of no effect reads on this machine (analysis/README.md,
 * "MPI impact"). */
#ifndef ANALYSIS_IMPACT_PAIRED_H
#define ANALYSIS_IMPACT_PAIRED_H

#include <stdbool.h>
#include <stddef.h>

/* exp(mean) of n log ratios and its t-interval: mean +- t(df = n - 1) *
 * sd / sqrt(n), back on the ratio scale. The pairs are the independent
 * units (the machine's speed drifts between them, not within one), so
 * their spread, not the steps', is the estimate's noise; with a few pairs
 * Student's t, not the normal, gives the interval its width. lo and hi are
 * NAN below two pairs; ratio is NAN without any. */
typedef struct impact_paired {
    size_t pairs;
    double ratio;
    double lo, hi;
} impact_paired;

impact_paired impact_paired_interval(const double *log_ratios, size_t n, double confidence);

/* Whether an impact is estimable beside an A/A band: its ratio lies
 * farther from 1 (in log) than either end of the band. False when the band
 * is not known (fewer than two A/A pairs) or the band is wider than the
 * effect: the machine reads as much running the same program twice. */
bool impact_estimable(const impact_paired *impact, const impact_paired *aa);

#endif
