/* schema: the verdict's classes, one table (schema/classes.def) that the
 * verdict, a launch's reading, the figures and the exported JSON share.
 * No MPI. */
#ifndef SCHEMA_CLASSES_H
#define SCHEMA_CLASSES_H

#include <stdbool.h>

typedef enum verdict_class {
#define VERDICT_CLASS(id, name, group, lo, hi, words, colour, abbrev) VERDICT_##id,
#include "schema/classes.def"
#undef VERDICT_CLASS
    VERDICT_CLASS_COUNT
} verdict_class;

typedef struct verdict_class_info {
    const char *name;  /* "hidden" */
    const char *group; /* "overlap", "none", "unconfirmed", "invalid" */
    double band_lo;    /* r_overhead band [band_lo, band_hi); NAN: not a band */
    double band_hi;
    const char *words;  /* what the class says, for people */
    const char *colour; /* "#RRGGBB" */
    const char *abbrev; /* at most 3 characters, for maps */
} verdict_class_info;

const verdict_class_info *verdict_class_get(verdict_class c);
const char *verdict_class_name(verdict_class c); /* "?" out of range */
/* The class named `name`; false when none is. */
bool verdict_class_find(const char *name, verdict_class *out);
/* Whether the class is a band of r_overhead. */
bool verdict_class_is_band(verdict_class c);
/* The band holding value (a NAN value: false). */
bool verdict_band_of(double value, verdict_class *out);
/* The range [lo, hi) of r_overhead a confident reading of class c claims:
 * a band's bounds; for the class that names a group of bands without being
 * one (hidden_or_partial), the union of the group's bands. false for the others. */
bool verdict_class_claim(verdict_class c, double *lo, double *hi);
/* The class naming band's group as a whole (hidden_or_partial for
 * hidden and partial); false when none does. */
bool verdict_group_class(verdict_class band, verdict_class *out);

#endif
