/* analysis/stats: order statistics, quantiles of the usual distributions
 * and the block bootstrap (README.md, "Uncertainty"). Plain numbers: no
 * input file and no cell; only the error type of analysis/inputs. */
#ifndef ANALYSIS_STATS_STATS_H
#define ANALYSIS_STATS_STATS_H

#include "analysis/inputs/inputs.h"

#include <stddef.h>
#include <stdint.h>

/* An estimate's interval; NAN bounds when undefined. */
typedef struct metric_bounds {
    double lo;
    double hi;
} metric_bounds;

/* The standard normal quantile Phi^-1(p), 0 < p < 1. */
double analysis_normal_quantile(double p);

/* ---- Order statistics (order.c) and distributions (bootstrap.c) ------------ */

/* Median and quartiles with linear interpolation between order statistics
 * (the usual "type 7" definition). Sorts values in place; NAN when n == 0. */
double stats_median(double *values, size_t n);
double stats_quantile_sorted(const double *sorted, size_t n, double q);
void stats_sort(double *values, size_t n);

/* Student's t quantile with df degrees of freedom (df >= 1), and the
 * standard normal distribution function. */
double stats_student_quantile(double p, long df);
double stats_normal_cdf(double x);

/* Sarle's bimodality coefficient (g^2 + 1) / (k + 3 (n-1)^2 / ((n-2)(n-3)))
 * with the sample skewness g and excess kurtosis k; NAN below 4 values. */
double stats_bimodality(const double *values, size_t n);

/* The share of sorted values outside Tukey's fences (quartiles -+ 1.5 IQR);
 * those inside are sorted[first_inside .. first_inside + inside). */
double stats_outside_fences(const double *sorted, size_t n, size_t *first_inside, size_t *inside);

/* ---- Block bootstrap (bootstrap.c) ----------------------------------------- */

/* A reproducible generator (xoshiro256**): a seed and a stream number (one
 * per cell and purpose) give the same draws on every machine. */
typedef struct boot_rng {
    uint64_t s[4];
} boot_rng;
void boot_rng_seed(boot_rng *rng, uint64_t seed, uint64_t stream);
/* A uniform draw in [0, n), n > 0. */
size_t boot_below(boot_rng *rng, size_t n);

enum { BOOT_MAX_SERIES = 12 };

/* Quantities computed from the medians (and the means) of a resample's
 * series; out has quantity_count entries. */
typedef void (*boot_statistic_fn)(const double *medians, const double *means, const void *ctx,
                                  double *out);

/* n blocks, series_count values per block: whole blocks are resampled, so
 * the values of one block stay together. */
typedef struct boot_problem {
    size_t n;
    size_t series_count;                   /* at most BOOT_MAX_SERIES */
    const double *series[BOOT_MAX_SERIES]; /* n values each */
    unsigned mean_mask;                    /* series whose mean is needed too */
    size_t quantity_count;
    boot_statistic_fn statistic;
    const void *ctx;
} boot_problem;

/* resamples x quantity_count replicates, row by row, into out. */
int boot_replicates(const boot_problem *problem, long resamples, boot_rng *rng, double *out,
                    analysis_error *err);

/* What the replicates of one quantity say: its interval at `confidence`
 * from n blocks (the percentile interval corrected for the bootstrap's
 * narrowness, README.md) and the replicates' standard deviation; NAN when
 * n < 2 or a replicate is not a number. The replicates are reordered. */
typedef struct boot_summary {
    metric_bounds ci;
    double se;
} boot_summary;
boot_summary boot_summarize(double *replicates, size_t count, size_t n, double confidence);

#endif
