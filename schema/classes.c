/* The verdict's classes (classes.h), expanded from schema/classes.def. */
#include "schema/classes.h"

#include <math.h>
#include <string.h>

static const verdict_class_info classes[VERDICT_CLASS_COUNT] = {
#define VERDICT_CLASS(id, name, group, lo, hi, words, colour, abbrev)                              \
    [VERDICT_##id] = {name, group, lo, hi, words, colour, abbrev},
#include "schema/classes.def"
#undef VERDICT_CLASS
};

const verdict_class_info *verdict_class_get(verdict_class c)
{
    return (unsigned)c < VERDICT_CLASS_COUNT ? &classes[c] : NULL;
}

const char *verdict_class_name(verdict_class c)
{
    return (unsigned)c < VERDICT_CLASS_COUNT ? classes[c].name : "?";
}

bool verdict_class_find(const char *name, verdict_class *out)
{
    for (int c = 0; c < VERDICT_CLASS_COUNT; c++) {
        if (strcmp(classes[c].name, name) == 0) {
            *out = (verdict_class)c;
            return true;
        }
    }
    return false;
}

bool verdict_class_is_band(verdict_class c)
{
    return (unsigned)c < VERDICT_CLASS_COUNT && !isnan(classes[c].band_lo);
}

bool verdict_band_of(double value, verdict_class *out)
{
    if (isnan(value))
        return false;
    for (int c = 0; c < VERDICT_CLASS_COUNT; c++) {
        if (verdict_class_is_band((verdict_class)c) && value >= classes[c].band_lo &&
            value < classes[c].band_hi) {
            *out = (verdict_class)c;
            return true;
        }
    }
    return false;
}

bool verdict_group_class(verdict_class band, verdict_class *out)
{
    if (!verdict_class_is_band(band))
        return false;
    for (int c = 0; c < VERDICT_CLASS_COUNT; c++) {
        if (!verdict_class_is_band((verdict_class)c) &&
            strcmp(classes[c].group, classes[band].group) == 0) {
            *out = (verdict_class)c;
            return true;
        }
    }
    return false;
}

bool verdict_class_claim(verdict_class c, double *lo, double *hi)
{
    if ((unsigned)c >= VERDICT_CLASS_COUNT)
        return false;
    if (verdict_class_is_band(c)) {
        *lo = classes[c].band_lo;
        *hi = classes[c].band_hi;
        return true;
    }
    /* The group's bands are adjacent (classes.def orders them): their
     * union is one range. */
    bool any = false;
    for (int b = 0; b < VERDICT_CLASS_COUNT; b++) {
        if (!verdict_class_is_band((verdict_class)b) || strcmp(classes[b].group, classes[c].group))
            continue;
        *lo = any ? fmin(*lo, classes[b].band_lo) : classes[b].band_lo;
        *hi = any ? fmax(*hi, classes[b].band_hi) : classes[b].band_hi;
        any = true;
    }
    return any;
}
