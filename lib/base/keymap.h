/*
 * An integer-keyed hash map (open addressing, linear probing): keys and values are 64-bit
 * integers, keys nonzero (a pointer through CGS_KEY, an id); a pointer value is stored as
 * CGS_KEY(p) and read back with CGS_PTR(type, v).
 * With lib/base/strmap.h (string keys) the only hash maps in cgscope.
 */
#ifndef CGS_KEYMAP_H
#define CGS_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cgs_keymap {
    uint64_t *keys; /* 0: an empty slot */
    uint64_t *vals;
    size_t cap, count;
};

#define CGS_KEY(p) ((uint64_t)(uintptr_t)(p))
#define CGS_PTR(type, v) ((type *)(uintptr_t)(v))

/* The value slot of key (nonzero); with insert, a new slot holding 0 when it is absent, else
 * NULL. A slot stays valid until the next insert. */
uint64_t *cgs_keymap_slot(struct cgs_keymap *m, uint64_t key, bool insert);

/* The value of key, or 0. */
uint64_t cgs_keymap_get(const struct cgs_keymap *m, uint64_t key);

/* Free the map's arrays; it is empty again (and reusable). */
void cgs_keymap_release(struct cgs_keymap *m);

#endif
