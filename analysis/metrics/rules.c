/* analysis: the per-run analysis's rules (the off-target flag, the
 * bootstrap) and the names of the reasons a cell is invalid. A cell's
 * reading is the band of r_overhead (analysis/verdict). */
#include "analysis/metrics/metrics.h"

#include <math.h>
#include <string.h>

static const bit_name invalid_reason_names[] = {
    {INVALID_COMM_CALIBRATION, "comm_calibration"},
    {INVALID_COMP_CALIBRATION, "comp_calibration"},
    {INVALID_LATE, "late"},
    {INVALID_NO_BLOCKS, "no_blocks"},
    {INVALID_UNREACHABLE, "unreachable"},
    {INVALID_NOT_MEASURED, "not_measured"},
};
enum { INVALID_REASON_COUNT = sizeof invalid_reason_names / sizeof *invalid_reason_names };

void analysis_invalid_reasons_text(unsigned reasons, char *out, size_t out_size)
{
    bits_text(invalid_reason_names, INVALID_REASON_COUNT, reasons, out, out_size);
}

bool analysis_invalid_reasons_from_text(const char *text, unsigned *reasons)
{
    *reasons = 0;
    if (strcmp(text, "none") == 0)
        return true;
    for (const char *word = text;;) {
        size_t len = strcspn(word, "+");
        bool known = false;
        for (size_t i = 0; i < INVALID_REASON_COUNT && !known; i++) {
            const char *name = invalid_reason_names[i].name;
            if (strlen(name) == len && strncmp(word, name, len) == 0) {
                *reasons |= invalid_reason_names[i].bit;
                known = true;
            }
        }
        if (!known)
            return false;
        if (word[len] == '\0')
            return true;
        word += len + 1;
    }
}

/* ---- Rules ------------------------------------------------------------------ */

cell_thresholds analysis_default_thresholds(void)
{
    return (cell_thresholds){
        /* Calibration stops within 10 % of a target (section 5.1); a sweep
         * reference 25 % away is not the point of the grid it is drawn at
         * (neighbouring targets are 2x apart: a third of the way there).
         * A flag (comm_off_target, comp_off_target), not a reading: the
         * ratios are measured against the achieved times all the same. */
        .off_target_max_error = 0.25,
    };
}

uncertainty_rules analysis_default_uncertainty(void)
{
    return (uncertainty_rules){
        /* the 1 % tails of 2000 replicates hold 20 of them: percentiles
         * stable to a few hundredths of the interval's width */
        .resamples = 2000,
        .seed = 1,
        .confidence = 0.95,
    };
}

cell_rules analysis_default_rules(void)
{
    return (cell_rules){.thresholds = analysis_default_thresholds(),
                        .uncertainty = analysis_default_uncertainty(),
                        .late_tolerance = NAN};
}
