/* analysis/stats: order statistics (README.md, "The statistics"). */
#include "analysis/stats/stats.h"

#include <math.h>
#include <stdlib.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void stats_sort(double *values, size_t n)
{
    if (n > 1)
        qsort(values, n, sizeof *values, compare_doubles);
}

double stats_quantile_sorted(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double position = q * (double)(n - 1);
    size_t below = (size_t)floor(position);
    if (below + 1 >= n)
        return sorted[n - 1];
    double fraction = position - (double)below;
    return sorted[below] + fraction * (sorted[below + 1] - sorted[below]);
}

double stats_median(double *values, size_t n)
{
    stats_sort(values, n);
    return stats_quantile_sorted(values, n, 0.5);
}
