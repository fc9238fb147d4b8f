/* analysis: the diagnosis of a cell (paper section 3.3), one decision table
 * whose rules are written on intervals (metric_bounds; the map applies them
 * to points: the estimates and each bootstrap replicate, intervals.c), and
 * the names of the classes and of the reasons a cell is invalid. */
#include "analysis/analysis_internal.h"
#include "schema/classes.h"

#include <math.h>
#include <string.h>

/* ---- Names ------------------------------------------------------------------ */

_Static_assert((int)DIAG_COUNT == (int)DIAGNOSIS_CLASS_COUNT,
               "enum diagnosis is schema/classes.def's");

const char *analysis_diagnosis_name(enum diagnosis diagnosis)
{
    return diagnosis < DIAG_COUNT ? diagnosis_class_get((int)diagnosis)->name : "?";
}

bool analysis_diagnosis_from_name(const char *name, enum diagnosis *diagnosis)
{
    for (int d = 0; d < DIAG_COUNT; d++) {
        if (strcmp(name, diagnosis_class_get(d)->name) == 0) {
            *diagnosis = (enum diagnosis)d;
            return true;
        }
    }
    return false;
}

/* The class hierarchy (per_run.md, "Claims at two levels"): each class's
 * group as schema/classes.def names it (a class in no group is its own). */
enum diagnosis analysis_diagnosis_group(enum diagnosis diagnosis)
{
    if (diagnosis >= DIAG_COUNT)
        return diagnosis;
    enum diagnosis group;
    const char *name = diagnosis_class_get((int)diagnosis)->group;
    return analysis_diagnosis_from_name(name, &group) ? group : diagnosis;
}

bool analysis_diagnosis_within(enum diagnosis diagnosis, enum diagnosis claim)
{
    return diagnosis == claim || analysis_diagnosis_group(diagnosis) == claim;
}

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

/* ---- Thresholds ------------------------------------------------------------- */

diagnosis_thresholds analysis_default_thresholds(void)
{
    return (diagnosis_thresholds){
        /* Calibration stops within 10 % of a target (section 5.1); a sweep
         * reference 25 % away is not the point of the grid it is drawn at
         * (neighbouring targets are 2x apart: a third of the way there).
         * A flag (comm_off_target, comp_off_target), not a class: the
         * ratios are measured against the achieved times all the same. */
        .off_target_max_error = 0.25,
        /* eq. 1 is >= 0 with exact references (section 3.1); below -0.1 the
         * step was faster than perfect overlap by more than the window
         * barrier's tolerance (1 % of the shorter reference by default) and
         * the few-percent repeatability of the references explain. */
        .imprecision_max_r_overhead = -0.1,
        /* within 30 % of perfect overlap (0) on the way to serialized (1) */
        .overlap_max_r_overhead = 0.3,
        /* the collective progressed when the MPI calls kept at most 30 % of
         * what the computation could have hidden (comm_unhidden_share: 0
         * perfect progress, 1 none, section 3.3.1) */
        .progressed_max_unhidden = 0.3,
        /* Two regimes (README.md). A block is held when at most 30 % of
         * what could be hidden was (the progressed threshold mirrored):
         * between the two a block is neither, so that a cell whose blocks
         * spread across 0.3 (a progress thread sharing the core, ~0.5 in
         * every block) is not read as two regimes. */
        .held_min_unhidden = 0.7,
        /* A regime is at least a quarter of the blocks: one or two blocks
         * of 12 to 18 in the other regime were seen in cells whose median
         * the progress deployment decided (a disturbance, or a thread that
         * got the core once), and quiet MPICH runs without progress had no
         * progressed block at all where the collective was at most twice
         * the computation. The claim's p is exact (binomial at this share),
         * so a lower share would be claimed sooner but mean less. */
        .regime_min_share = 0.25,
        /* What intermittent claims, once the estimates show two regimes:
         * each regime holds at least this share of the blocks, tested
         * exactly (binomial at this share). Not below the trigger: the
         * trigger keeps a cell of one regime out only where its noise
         * does not spread blocks across the thresholds, and in the
         * simulated grids of one regime (test_stopping.c, 16:1 cells) a
         * claim at 0.15 made 34 wrong of 492 claims (mean share 0.068),
         * at 0.10 58 of 511 (0.113), above q = 0.05 (README.md, "Two
         * regimes"). */
        .regime_claim_share = 0.25,
        /* A block's unhidden share divides the collective's excess over the
         * computation by the computation: with the collective k times
         * longer, its reference's spread (a few percent, more beside a
         * progress thread) is magnified k times and a single block cannot
         * be told progressed from held (MPICH without progress, 32 ms next
         * to 1 ms: blocks from -3.9 to 5.6); only the median can. */
        .regime_max_amplification = 2,
        /* r_comm > 1 is communication slower than its reference (eq. 4,
         * sections 3.2.2 and 3.3.3); 20 % above 1 so that the run-to-run
         * variation of small collectives does not read as slowed */
        .comm_slowed_min_r_comm = 1.2,
        /* GEMM steps repeat within a few percent; 10 % slower is a slowdown
         * (r_comp_slowdown > 1, section 3.3.2) */
        .slowed_min_r_comp_slowdown = 1.1,
        /* ... or the extra computation explains half the overhead (a 5 %
         * slower 1 s step next to a 10 ms collective is r_overhead 5) */
        .slowed_min_share_of_overhead = 0.5,
        /* ... provided the step is at least 5 % slower: the share clause
         * divides the step's extra time by the shorter reference, so next
         * to a collective 64x shorter a 1.5 % step-to-step spread of the
         * GEMM (this machine's) moves it by 1, as much as the MPI time of
         * an unprogressed collective. Below 5 % a slowdown is not told
         * from that spread, however long the step: r_comp_slowdown's own
         * interval decides it (half the 10 % above, twice the spread's
         * 95 % half-width) */
        .explaining_min_r_comp_slowdown = 1.05,
        /* A 95 % interval from fewer blocks rests on too little: the
         * bootstrap distribution of a median of n blocks takes few distinct
         * values, the expansion for small n grows fast (t with 9 degrees of
         * freedom is 2.26, 15 % above z), and the null controls of a run
         * with half its blocks holding them need 2 x 5 blocks. */
        .min_blocks = 10,
        /* the rate a referee reads as the usual 5 %, spent on the share of
         * wrong claims among the map's claims (Benjamini and Hochberg
         * 1995), not on the chance of any wrong cell (family-wise: with 49
         * cells x 7 quantities every cell would be uncertain) */
        .false_discovery_rate = 0.05,
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

/* ---- Rules on intervals -------------------------------------------------------- */

/* A rule's answer on an interval: it holds for all of it, for none of it,
 * or for part of it (an interval across a threshold, or a NAN). */
enum tri { TRI_NO, TRI_MAYBE, TRI_YES };

static enum tri tri_and(enum tri a, enum tri b)
{
    return a < b ? a : b;
}
static enum tri tri_or(enum tri a, enum tri b)
{
    return a > b ? a : b;
}
static enum tri tri_not(enum tri a)
{
    return (enum tri)(TRI_YES - a);
}

/* value > threshold */
static enum tri above(metric_bounds value, double threshold)
{
    if (value.lo > threshold)
        return TRI_YES;
    if (value.hi <= threshold)
        return TRI_NO;
    return TRI_MAYBE;
}

/* value < threshold */
static enum tri below(metric_bounds value, double threshold)
{
    if (value.hi < threshold)
        return TRI_YES;
    if (value.lo >= threshold)
        return TRI_NO;
    return TRI_MAYBE;
}

/* a >= b */
static enum tri at_least(metric_bounds a, metric_bounds b)
{
    if (a.lo >= b.hi)
        return TRI_YES;
    if (a.hi < b.lo)
        return TRI_NO;
    return TRI_MAYBE;
}

static metric_bounds scaled(metric_bounds value, double factor)
{
    return factor >= 0 ? (metric_bounds){value.lo * factor, value.hi * factor}
                       : (metric_bounds){value.hi * factor, value.lo * factor};
}

static metric_bounds constant(double value)
{
    return (metric_bounds){value, value};
}

/* The computation was slowed (eq. 3 > 1, section 3.3.2), or, at least 5 %
 * slower, its extra time explains at least half of an overhead beyond the
 * overlap band. */
static enum tri computation_slowed(const diagnosis_input *in, const diagnosis_thresholds *th)
{
    enum tri explains_overhead = tri_and(
        tri_and(above(in->r_overhead, th->overlap_max_r_overhead),
                at_least(in->r_comp_slowdown, constant(th->explaining_min_r_comp_slowdown))),
        at_least(in->comp_extra_in_overhead,
                 scaled(in->r_overhead, th->slowed_min_share_of_overhead)));
    return tri_or(at_least(in->r_comp_slowdown, constant(th->slowed_min_r_comp_slowdown)),
                  explains_overhead);
}

/* r_comm ~ 0: the collective progressed during the computation. */
static enum tri communication_progressed(const diagnosis_input *in, const diagnosis_thresholds *th)
{
    return tri_not(above(in->comm_unhidden_share, th->progressed_max_unhidden));
}

/* r_comm > 1: the collective took longer than its reference. r_comm counts
 * the wait from the last rank's arrival at it (eq. 4, README.md "The
 * statistics"): a rank that computed faster waiting for a slower one is an
 * imbalance of the computation, not a slower collective. */
static enum tri communication_slowed(const diagnosis_input *in, const diagnosis_thresholds *th)
{
    return above(in->r_comm, th->comm_slowed_min_r_comm);
}

typedef enum tri (*diagnosis_rule_fn)(const diagnosis_input *in, const diagnosis_thresholds *th);

static enum tri rule_invalid(const diagnosis_input *in, const diagnosis_thresholds *th)
{
    (void)th;
    return in->valid ? TRI_NO : TRI_YES;
}

/* An interval from fewer blocks means little (thresholds.min_blocks). */
static enum tri rule_few_blocks(const diagnosis_input *in, const diagnosis_thresholds *th)
{
    return in->blocks < th->min_blocks ? TRI_YES : TRI_NO;
}

/* Faster than perfect overlap: the references are imprecise, and the cell
 * is not an overlap. Only where the collective progressed, the one class
 * a negative r_overhead would otherwise give: when the MPI calls held the
 * collective (comm_unhidden_share > 0.3), a negative r_overhead is the
 * computation faster than its reference by more than that MPI time, the
 * long reference's spread over the short one (64:1: 1.5 % of the step is
 * 1), and the MPI time decides the class, as it does for a positive one. */
static enum tri rule_imprecision(const diagnosis_input *in, const diagnosis_thresholds *th)
{
    return tri_and(below(in->r_overhead, th->imprecision_max_r_overhead),
                   communication_progressed(in, th));
}

static enum tri rule_overlap(const diagnosis_input *in, const diagnosis_thresholds *th)
{
    return tri_and(tri_not(above(in->r_overhead, th->overlap_max_r_overhead)),
                   tri_and(communication_progressed(in, th), tri_not(computation_slowed(in, th))));
}

static enum tri rule_no_progress(const diagnosis_input *in, const diagnosis_thresholds *th)
{
    return tri_and(
        tri_and(tri_not(communication_progressed(in, th)), tri_not(communication_slowed(in, th))),
        tri_not(computation_slowed(in, th)));
}

static enum tri rule_comp_slowdown(const diagnosis_input *in, const diagnosis_thresholds *th)
{
    return tri_and(computation_slowed(in, th), communication_progressed(in, th));
}

/* Section 3.3.3, "Contention without overlap": "communication was
 * serialized, without any overlap, but at the same time computation was
 * slowed down" (an aggressive progress thread). Its prose, not its formal
 * condition "both r_comp_slowdown > 1 and r_comm > 1": a serialized
 * collective is r_comm ~ 1, which that inequality leaves out of its own
 * scenario. So: the computation slowed and the collective not progressed
 * (comm_unhidden_share above progressed_max_unhidden), whether or not it
 * was also slowed (r_comm > 1.2 is never progressed: its MPI time then
 * exceeds the whole collective). */
static enum tri rule_contention(const diagnosis_input *in, const diagnosis_thresholds *th)
{
    return tri_and(computation_slowed(in, th), tri_not(communication_progressed(in, th)));
}

static enum tri rule_comm_slowed(const diagnosis_input *in, const diagnosis_thresholds *th)
{
    return tri_and(communication_slowed(in, th), tri_not(computation_slowed(in, th)));
}

static enum tri rule_always(const diagnosis_input *in, const diagnosis_thresholds *th)
{
    (void)in;
    (void)th;
    return TRI_YES;
}

/* First match wins; README.md lists the same table. */
static const struct {
    enum diagnosis diagnosis;
    diagnosis_rule_fn applies;
} diagnosis_rules[] = {
    {DIAG_INVALID, rule_invalid},
    {DIAG_UNCERTAIN, rule_few_blocks},
    {DIAG_IMPRECISION, rule_imprecision},
    {DIAG_OVERLAP, rule_overlap},
    {DIAG_NO_PROGRESS, rule_no_progress},
    {DIAG_COMP_SLOWDOWN, rule_comp_slowdown},
    {DIAG_CONTENTION, rule_contention},
    {DIAG_COMM_SLOWED, rule_comm_slowed},
    /* what no rule above explains: an overhead beyond the overlap band
     * with both ratios fine, the collective progressed and the computation
     * not slowed (rank skew, references that moved, noise) */
    {DIAG_UNEXPLAINED, rule_always},
};

enum diagnosis analysis_diagnose(const diagnosis_input *input,
                                 const diagnosis_thresholds *thresholds)
{
    /* The first rule that holds on the whole interval decides. A rule that
     * holds on part of it (TRI_MAYBE) before that one could have decided
     * for part of the interval: the interval spans two classes (a NAN
     * answers MAYBE too: nothing is known). */
    bool maybe = false;
    for (size_t i = 0; i < sizeof diagnosis_rules / sizeof *diagnosis_rules; i++) {
        enum tri answer = diagnosis_rules[i].applies(input, thresholds);
        if (answer == TRI_YES)
            return maybe ? DIAG_UNCERTAIN : diagnosis_rules[i].diagnosis;
        maybe = maybe || answer == TRI_MAYBE;
    }
    return DIAG_UNCERTAIN; /* not reached: the last rule always holds */
}

static metric_bounds point(double value)
{
    return (metric_bounds){value, value};
}

/* Each regime in at least `share` of the blocks, in blocks that can be
 * told apart (points: lo = hi; a NAN compares false). */
static bool regimes_at_least(const diagnosis_input *in, const diagnosis_thresholds *th,
                             double share)
{
    return in->progressed_block_share.lo >= share && in->held_block_share.lo >= share &&
           in->unhidden_amplification.hi <= th->regime_max_amplification;
}

bool analysis_two_regimes(const diagnosis_input *in, const diagnosis_thresholds *th)
{
    return regimes_at_least(in, th, th->regime_min_share);
}

bool analysis_intermittent_holds(const diagnosis_input *in, const diagnosis_thresholds *th)
{
    return regimes_at_least(in, th, th->regime_claim_share);
}

diagnosis_input analysis_diagnosis_point(const cell_metrics *cell)
{
    double shorter = fmin(cell->t_comm_ref, cell->t_comp_ref);
    return (diagnosis_input){
        .valid = cell->valid && !isnan(cell->r_overhead),
        .blocks = cell->blocks,
        .r_overhead = point(cell->r_overhead),
        .r_comm = point(cell->r_comm),
        .r_comp_slowdown = point(cell->r_comp_slowdown),
        .comm_unhidden_share = point(cell->comm_unhidden_share),
        .comp_extra_in_overhead = point((cell->t_comp - cell->t_comp_ref_local) / shorter),
        .progressed_block_share = point(cell->progressed_block_share),
        .held_block_share = point(cell->held_block_share),
        .unhidden_amplification = point(cell->unhidden_amplification),
    };
}

diagnosis_input diagnosis_input_of(const double q[Q_COUNT], bool valid, long blocks)
{
    return (diagnosis_input){
        .valid = valid,
        .blocks = blocks,
        .r_overhead = point(q[Q_R_OVERHEAD]),
        .r_comm = point(q[Q_R_COMM]),
        .r_comp_slowdown = point(q[Q_R_COMP_SLOWDOWN]),
        .comm_unhidden_share = point(q[Q_COMM_UNHIDDEN]),
        .comp_extra_in_overhead = point(q[Q_COMP_EXTRA]),
        .progressed_block_share = point(q[Q_PROGRESSED_SHARE]),
        .held_block_share = point(q[Q_HELD_SHARE]),
        .unhidden_amplification = point(q[Q_UNHIDDEN_AMPLIFICATION]),
    };
}
