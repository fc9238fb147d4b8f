/* What the driver reads from the analysis's rules, so that one number has
 * one owner (analysis/metrics/rules.c). Apart from measure/measure.h: the
 * analysis's header and the driver's share names. */
#include "analysis/analysis.h"

double nbc_off_target_max_error(void);

double nbc_off_target_max_error(void)
{
    return analysis_default_thresholds().off_target_max_error;
}
