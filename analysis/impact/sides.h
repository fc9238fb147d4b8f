/* analysis/impact: what the MPI impact's files share inside the
 * analysis library (not its API: impact.h is). The steps of both programs
 * grouped into sides, one per program and phase, and the ratios of eq. 2
 * computed from them or from a resample. Only the room's files include this. */
#ifndef ANALYSIS_IMPACT_SIDES_H
#define ANALYSIS_IMPACT_SIDES_H

#include "analysis/impact/impact.h"

/* One step of either program. */
typedef struct step_row {
    const char *host;
    long member; /* rank or process */
    long long matrix_n;
    double comp_target_s;
    enum run_phase phase;
    long step;
    double t_s;
    long threads, warmup_steps, reps, procs;
    /* passive.csv's counters (ns; NAN when absent), none for compute_ref */
    double compute_cpu_ns, compute_run_delay_ns, progress_cpu_ns;
} step_row;

/* PROGRAM_AA: compute_ref's A/A partner (phase before only). */
enum program { PROGRAM_PASSIVE, PROGRAM_REF, PROGRAM_AA, PROGRAM_COUNT };

/* The range of values a setting took in one program's rows. */
typedef struct value_range {
    long lo;
    long hi;
    bool seen;
} value_range;

/* The steps of one program in one phase of one group: member m's times are
 * rows[first[m] .. first[m + 1]). */
typedef struct side {
    const step_row *rows;
    size_t *first; /* members + 1 entries */
    size_t members;
    size_t fewest, most; /* steps of a member */
    long procs;          /* compute_ref's own count (per host), or its members (job) */
    value_range threads, warmup, reps;
    double *scratch; /* most entries */
    size_t *draw;    /* most entries */
} side;

/* The impact row of one group: sides[program][phase] hold its steps. */
typedef struct group_sides {
    side sides[PROGRAM_COUNT][PHASE_COUNT];
} group_sides;

/* A resample's draw of rounds per program and phase, shared by every size
 * (joint bootstrap over the sizes). */
typedef struct round_draw {
    const size_t *steps[PROGRAM_COUNT][PHASE_COUNT];
    size_t n[PROGRAM_COUNT][PHASE_COUNT];
} round_draw;

/* Each phase, then over the phases (eq. 2), then the A/A floor. */
enum { IMPACT_OVER_PHASES = PHASE_COUNT, IMPACT_AA, IMPACT_QUANTITIES };

int impact_side_build(side *s, const step_row *rows, size_t n, bool by_host, analysis_error *err);
void impact_side_free(side *s);
bool impact_ranges_differ(const value_range *a, const value_range *b);
/* T: the largest member median, over the steps (rng NULL) or a resample
 * (README.md, "MPI impact"); shared: a draw of step numbers common to the
 * sides of a program and phase (shared_n of them), or NULL. */
double impact_side_statistic(side *s, boot_rng *rng, const size_t *shared, size_t shared_n);
/* r per phase (a pair), over the phases (their geometric mean), and the
 * A/A pair, from the steps or a resample (rounds NULL: each side draws its
 * own). */
void impact_ratios(group_sides *g, unsigned phases, boot_rng *rng, const round_draw *rounds,
                   double out[IMPACT_QUANTITIES], double t_mpi[PHASE_COUNT],
                   double t_ref[PHASE_COUNT]);
void impact_group_free(group_sides *g);
/* The medians over the job's sizes (impact/median.c). */
int impact_joint_medians(group_sides *groups, const impact_row *rows, size_t count,
                         const uncertainty_rules *rules, impact_median *median,
                         analysis_error *err);

#endif
