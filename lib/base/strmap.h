/*
 * A string -> pointer hash map (open addressing). Keys are borrowed: they must
 * live as long as the map (graphs keep them in their arena). The map's own
 * arrays are on the heap: cgs_strmap_free() releases them.
 */
#ifndef CGS_STRMAP_H
#define CGS_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct cgs_strmap {
    struct cgs_strmap_slot {
        uint32_t hash; /* 0 = empty slot */
        const char *key;
        void *val;
    } *slots; /* a slot's hash, key and value side by side: one cache line a probe */
    size_t cap, count;
};

struct cgs_strmap *cgs_strmap_new(void);
void cgs_strmap_free(struct cgs_strmap *m);
/* Release the arrays of a map that is not cgs_strmap_new's (one inside another struct, zeroed
 * to begin with); it is empty after. */
void cgs_strmap_release(struct cgs_strmap *m);
/* The value stored for key, or NULL. */
void *cgs_strmap_get(const struct cgs_strmap *m, const char *key);
/* Insert key -> val unless key is present; returns the value now stored for key. */
void *cgs_strmap_put(struct cgs_strmap *m, const char *key, void *val);
/* Insert key -> val, replacing the value of a key already present. */
void cgs_strmap_set(struct cgs_strmap *m, const char *key, void *val);

/* The string hash of every map and table in cgscope: n bytes of s, 64 bits (multiplicative,
 * eight bytes at a time). */
uint64_t cgs_str_hash(const void *s, size_t n);

#endif
