/* analysis: the block bootstrap behind every interval (README.md,
 * "Uncertainty"), and the distribution statistics it needs: Student's t,
 * the normal distribution, Sarle's bimodality coefficient, Tukey's fences. */
#include "analysis/stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Distributions ------------------------------------------------------------ */

double stats_normal_cdf(double x)
{
    return 0.5 * erfc(-x / sqrt(2.0));
}

/* P(|T| <= t) for Student's t with integer df: the finite series of
 * Abramowitz and Stegun 26.7.3 (df odd) and 26.7.4 (df even), exact. */
static double student_central(double t, long df)
{
    double theta = atan(t / sqrt((double)df));
    double c2 = cos(theta) * cos(theta), s = sin(theta);
    double sum = 0, term = 1;
    if (df % 2 == 0) {
        /* sin(theta) (1 + 1/2 c^2 + 1.3/(2.4) c^4 + ... up to c^(df-2)) */
        for (long k = 0; 2 * k <= df - 2; k++) {
            sum += term;
            term *= c2 * (double)(2 * k + 1) / (double)(2 * k + 2);
        }
        return s * sum;
    }
    if (df == 1)
        return 2 * theta / M_PI;
    /* 2/pi (theta + sin cos (1 + 2/3 c^2 + 2.4/(3.5) c^4 + ... up to c^(df-3))) */
    for (long k = 0; 2 * k <= df - 3; k++) {
        sum += term;
        term *= c2 * (double)(2 * k + 2) / (double)(2 * k + 3);
    }
    return 2 / M_PI * (theta + s * cos(theta) * sum);
}

/* The standard normal quantile, by bisection on stats_normal_cdf. */
static double normal_quantile(double p)
{
    double lo = -40, hi = 40;
    for (int i = 0; i < 200 && hi - lo > 1e-13; i++) {
        double mid = (lo + hi) / 2;
        if (stats_normal_cdf(mid) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

double analysis_normal_quantile(double p)
{
    return p > 0 && p < 1 ? normal_quantile(p) : NAN;
}

double stats_student_quantile(double p, long df)
{
    if (!(p > 0 && p < 1) || df < 1)
        return NAN;
    if (p < 0.5)
        return -stats_student_quantile(1 - p, df);
    double central = 2 * p - 1; /* P(|T| <= t) wanted */
    double lo = 0, hi = 1;
    while (student_central(hi, df) < central && hi < 1e300)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = (lo + hi) / 2;
        if (student_central(mid, df) < central)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* ---- Shape of a distribution ------------------------------------------------------ */

double stats_bimodality(const double *values, size_t n)
{
    if (n < 4)
        return NAN;
    double mean = 0;
    for (size_t i = 0; i < n; i++)
        mean += values[i];
    mean /= (double)n;
    double m2 = 0, m3 = 0, m4 = 0;
    for (size_t i = 0; i < n; i++) {
        double d = values[i] - mean;
        m2 += d * d;
        m3 += d * d * d;
        m4 += d * d * d * d;
    }
    m2 /= (double)n;
    m3 /= (double)n;
    m4 /= (double)n;
    if (!(m2 > 0))
        return NAN; /* all equal: one mode */
    double nn = (double)n;
    /* the sample skewness and excess kurtosis, bias-corrected (SAS, SPSS) */
    double g = sqrt(nn * (nn - 1)) / (nn - 2) * m3 / pow(m2, 1.5);
    double k = (nn - 1) / ((nn - 2) * (nn - 3)) * ((nn + 1) * (m4 / (m2 * m2) - 3) + 6);
    return (g * g + 1) / (k + 3 * (nn - 1) * (nn - 1) / ((nn - 2) * (nn - 3)));
}

double stats_outside_fences(const double *sorted, size_t n, size_t *first_inside, size_t *inside)
{
    *first_inside = *inside = 0;
    if (n == 0)
        return NAN;
    double q1 = stats_quantile_sorted(sorted, n, 0.25), q3 = stats_quantile_sorted(sorted, n, 0.75);
    double low = q1 - 1.5 * (q3 - q1), high = q3 + 1.5 * (q3 - q1);
    size_t begin = 0, end = n;
    while (begin < n && sorted[begin] < low)
        begin++;
    while (end > begin && sorted[end - 1] > high)
        end--;
    *first_inside = begin;
    *inside = end - begin;
    return (double)(n - *inside) / (double)n;
}

/* ---- Random numbers -------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void boot_rng_seed(boot_rng *rng, uint64_t seed, uint64_t stream)
{
    uint64_t mixed = stream;
    uint64_t state = seed ^ splitmix64(&mixed);
    for (int i = 0; i < 4; i++)
        rng->s[i] = splitmix64(&state);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman and Vigna, 2018) */
static uint64_t boot_next(boot_rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform in [0, n) without bias (Lemire, 2019). */
size_t boot_below(boot_rng *rng, size_t n)
{
    uint64_t bound = n;
    __uint128_t m = (__uint128_t)boot_next(rng) * bound;
    uint64_t low = (uint64_t)m;
    if (low < bound) {
        uint64_t threshold = -bound % bound;
        while (low < threshold) {
            m = (__uint128_t)boot_next(rng) * bound;
            low = (uint64_t)m;
        }
    }
    return (size_t)(m >> 64);
}

/* ---- Resamples ------------------------------------------------------------------- */

typedef struct ranked {
    double value;
    size_t index;
} ranked;

static int compare_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* The median of a resample held as counts over the n blocks, walking the
 * blocks in the order of their values: the mean of the order statistics
 * (n-1)/2 and n/2 (0-based), the definition of stats_median. O(n) without
 * sorting the resample. */
static double counted_median(const double *values, const size_t *order, const uint32_t *counts,
                             size_t n)
{
    size_t low_rank = (n - 1) / 2, high_rank = n / 2, seen = 0;
    double low = 0;
    bool have_low = false;
    for (size_t i = 0; i < n; i++) {
        size_t b = order[i];
        seen += counts[b];
        if (!have_low && seen > low_rank) {
            low = values[b];
            have_low = true;
        }
        if (seen > high_rank)
            return (low + values[b]) / 2;
    }
    return NAN; /* not reached: the counts add up to n */
}

int boot_replicates(const boot_problem *p, long resamples, boot_rng *rng, double *out,
                    analysis_error *err)
{
    size_t n = p->n, series_count = p->series_count;
    if (n == 0 || series_count > BOOT_MAX_SERIES)
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "bootstrap of %zu blocks, %zu series", n,
                             series_count);
    size_t *order = malloc(series_count * n * sizeof *order);
    uint32_t *counts = malloc(n * sizeof *counts);
    ranked *sorting = malloc(n * sizeof *sorting);
    if (!order || !counts || !sorting) {
        free(order);
        free(counts);
        free(sorting);
        return analysis_fail(err, ANALYSIS_ERR_SYSTEM, "out of memory (bootstrap of %zu blocks)",
                             n);
    }
    for (size_t s = 0; s < series_count; s++) {
        for (size_t b = 0; b < n; b++)
            sorting[b] = (ranked){p->series[s][b], b};
        qsort(sorting, n, sizeof *sorting, compare_ranked);
        for (size_t b = 0; b < n; b++)
            order[s * n + b] = sorting[b].index;
    }
    double medians[BOOT_MAX_SERIES], means[BOOT_MAX_SERIES] = {0};
    for (long r = 0; r < resamples; r++) {
        memset(counts, 0, n * sizeof *counts);
        for (size_t i = 0; i < n; i++)
            counts[boot_below(rng, n)]++;
        for (size_t s = 0; s < series_count; s++) {
            medians[s] = counted_median(p->series[s], order + s * n, counts, n);
            if (!(p->mean_mask & (1u << s)))
                continue;
            double sum = 0;
            for (size_t b = 0; b < n; b++)
                sum += (double)counts[b] * p->series[s][b];
            means[s] = sum / (double)n;
        }
        p->statistic(medians, means, p->ctx, out + (size_t)r * p->quantity_count);
    }
    free(order);
    free(counts);
    free(sorting);
    return ANALYSIS_OK;
}

/* ---- Intervals ------------------------------------------------------------------- */

/* The percentile interval of the bootstrap is too narrow for few blocks: it
 * behaves as estimate -+ z sigma_n, where the classical interval is
 * estimate -+ t_(n-1) s, with sigma_n = sqrt((n-1)/n) s. The expanded
 * percentile interval (Hesterberg 2015, "What teachers should know about
 * the bootstrap", The American Statistician 69(4); R package resample,
 * ExpandProbs) takes the percentiles p' with z_p' sqrt((n-1)/n) = t_(n-1,p)
 * instead. Returns the lower tail p'. */
static double expanded_tail(size_t n, double confidence)
{
    double nn = (double)n;
    double z = -normal_quantile((1 - confidence) / 2);
    return stats_normal_cdf(-sqrt(nn / (nn - 1)) * z);
}

/* The k-th smallest of v[0..n) (0-based), v reordered so that v[k] holds
 * it with no larger value before it and no smaller one after it (Hoare's
 * selection): two quantiles of 2000 replicates without sorting them. */
static double select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break; /* v[j+1 .. i-1] all equal the pivot */
    }
    return v[k];
}

/* Quantile p with linear interpolation between order statistics (type 7,
 * as stats_quantile_sorted) of unsorted values, reordered. */
static double select_quantile(double *v, size_t n, double p)
{
    double h = (double)(n - 1) * p;
    size_t below = (size_t)floor(h);
    double low = select_kth(v, n, below);
    if (below + 1 >= n)
        return low;
    double high = v[below + 1];
    for (size_t i = below + 2; i < n; i++) /* after the selection: >= low */
        high = v[i] < high ? v[i] : high;
    return low + (h - (double)below) * (high - low);
}

boot_summary boot_summarize(double *replicates, size_t count, size_t n, double confidence)
{
    boot_summary none = {{NAN, NAN}, NAN};
    if (n < 2 || count < 2)
        return none;
    double mean = 0, square = 0;
    for (size_t i = 0; i < count; i++) {
        if (isnan(replicates[i]))
            return none;
        mean += replicates[i] / (double)count;
    }
    for (size_t i = 0; i < count; i++)
        square += (replicates[i] - mean) * (replicates[i] - mean);
    double tail = expanded_tail(n, confidence);
    double lo = select_quantile(replicates, count, tail);
    return (boot_summary){{lo, select_quantile(replicates, count, 1 - tail)},
                          sqrt(square / (double)(count - 1))};
}
