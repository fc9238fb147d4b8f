/* analysis/impact: the paired t-interval of the log ratios (paired.h). */
#include "analysis/impact/impact.h"
#include "analysis/stats/stats.h"

#include <math.h>

impact_paired impact_paired_interval(const double *log_ratios, size_t n, double confidence)
{
    impact_paired out = {.pairs = 0, .ratio = NAN, .lo = NAN, .hi = NAN};
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(log_ratios[i])) {
            sum += log_ratios[i];
            out.pairs++;
        }
    if (!out.pairs)
        return out;
    double mean = sum / (double)out.pairs;
    out.ratio = exp(mean);
    if (out.pairs < 2)
        return out;
    double squares = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(log_ratios[i]))
            squares += (log_ratios[i] - mean) * (log_ratios[i] - mean);
    double sd = sqrt(squares / (double)(out.pairs - 1));
    double t = stats_student_quantile(0.5 + confidence / 2, (long)out.pairs - 1);
    double half = t * sd / sqrt((double)out.pairs);
    out.lo = exp(mean - half);
    out.hi = exp(mean + half);
    return out;
}

bool impact_estimable(const impact_paired *impact, const impact_paired *aa)
{
    if (!isfinite(impact->ratio) || !isfinite(aa->lo) || !isfinite(aa->hi))
        return false;
    double band = fmax(fabs(log(aa->lo)), fabs(log(aa->hi)));
    return fabs(log(impact->ratio)) > band;
}
