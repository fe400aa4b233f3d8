/*
 * "Did you mean": the candidate nearest a mistyped name, by edit distance. One helper for
 * every suggestion cgscope makes (commands, options, splitting ops, operators, node names).
 */
#ifndef CGS_NEAREST_H
#define CGS_NEAREST_H

#include <stddef.h>

/* Levenshtein distance of a and b, or cap + 1 when it is larger than cap. */
size_t cgs_edit_distance(const char *a, const char *b, size_t cap);

/* The best candidate so far: offer each with cgs_nearest_offer, read best (NULL: none was
 * within max_distance). */
struct cgs_nearest {
    const char *key;
    const char *best;
    size_t best_d;       /* the best candidate's distance */
    size_t max_distance; /* farther candidates are no suggestion */
};

void cgs_nearest_init(struct cgs_nearest *n, const char *key, size_t max_distance);
/* Offer a candidate; returns its distance (max_distance + 1 when farther). */
size_t cgs_nearest_offer(struct cgs_nearest *n, const char *candidate);

#endif
