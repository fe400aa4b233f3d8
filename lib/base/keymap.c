/* The integer-keyed hash map: see lib/base/keymap.h. */
#include "lib/base/keymap.h"

#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"

static size_t key_hash(uint64_t x, size_t cap)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return (size_t)x & (cap - 1);
}

void cgs_keymap_release(struct cgs_keymap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof(*m));
}

static void grow(struct cgs_keymap *m)
{
    struct cgs_keymap n = {0};
    n.cap = m->cap ? 2 * m->cap : 16;
    n.keys = cgs_xcalloc(n.cap, sizeof(*n.keys));
    n.vals = cgs_xcalloc(n.cap, sizeof(*n.vals));
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i])
            continue;
        size_t j = key_hash(m->keys[i], n.cap);
        while (n.keys[j])
            j = (j + 1) & (n.cap - 1);
        n.keys[j] = m->keys[i];
        n.vals[j] = m->vals[i];
    }
    n.count = m->count;
    cgs_keymap_release(m);
    *m = n;
}

uint64_t *cgs_keymap_slot(struct cgs_keymap *m, uint64_t key, bool insert)
{
    size_t j;
    if (!key)
        return NULL;
    if (m->cap) {
        for (j = key_hash(key, m->cap); m->keys[j]; j = (j + 1) & (m->cap - 1))
            if (m->keys[j] == key)
                return &m->vals[j];
    }
    if (!insert)
        return NULL;
    if (2 * (m->count + 1) > m->cap)
        grow(m);
    for (j = key_hash(key, m->cap); m->keys[j]; j = (j + 1) & (m->cap - 1))
        ;
    m->keys[j] = key;
    m->vals[j] = 0;
    m->count++;
    return &m->vals[j];
}

uint64_t cgs_keymap_get(const struct cgs_keymap *m, uint64_t key)
{
    uint64_t *v = cgs_keymap_slot((struct cgs_keymap *)m, key, false);
    return v ? *v : 0;
}
