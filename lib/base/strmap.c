/* String -> pointer hash map: open addressing over heap arrays. */
#include "lib/base/strmap.h"

#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"

uint64_t cgs_str_hash(const void *data, size_t n)
{
    const unsigned char *s = data;
    size_t i = 0;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (; n - i >= 8; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    for (; i < n; i++)
        h = (h ^ s[i]) * 0x100000001b3ull;
    h ^= h >> 29;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 32;
    return h;
}

/* The map's slot hash: cgs_str_hash's low bits, never 0 (0 marks empty slots). */
static uint32_t hash_str(const char *s)
{
    uint32_t h = (uint32_t)cgs_str_hash(s, strlen(s));
    return h ? h : 1;
}

struct cgs_strmap *cgs_strmap_new(void)
{
    return cgs_xcalloc(1, sizeof(struct cgs_strmap));
}

void cgs_strmap_release(struct cgs_strmap *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->count = 0;
}

void cgs_strmap_free(struct cgs_strmap *m)
{
    if (!m)
        return;
    free(m->slots);
    free(m);
}

static void strmap_grow(struct cgs_strmap *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 64;
    struct cgs_strmap_slot *n = cgs_xcalloc(ncap, sizeof(*n));
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].hash)
            continue;
        size_t j = m->slots[i].hash & (ncap - 1);
        while (n[j].hash)
            j = (j + 1) & (ncap - 1);
        n[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = n;
    m->cap = ncap;
}

/* The slot for key: found (its hash != 0) or where it would go. */
static size_t strmap_slot(const struct cgs_strmap *m, const char *key, uint32_t h)
{
    size_t j = h & (m->cap - 1);
    while (m->slots[j].hash && (m->slots[j].hash != h || strcmp(m->slots[j].key, key)))
        j = (j + 1) & (m->cap - 1);
    return j;
}

void *cgs_strmap_get(const struct cgs_strmap *m, const char *key)
{
    if (!m || !m->cap)
        return NULL;
    size_t j = strmap_slot(m, key, hash_str(key));
    return m->slots[j].hash ? m->slots[j].val : NULL;
}

void *cgs_strmap_put(struct cgs_strmap *m, const char *key, void *val)
{
    uint32_t h = hash_str(key);
    size_t j;
    if ((m->count + 1) * 4 >= m->cap * 3)
        strmap_grow(m);
    j = strmap_slot(m, key, h);
    if (m->slots[j].hash)
        return m->slots[j].val;
    m->slots[j] = (struct cgs_strmap_slot){h, key, val};
    m->count++;
    return val;
}

void cgs_strmap_set(struct cgs_strmap *m, const char *key, void *val)
{
    uint32_t h = hash_str(key);
    size_t j;
    if ((m->count + 1) * 4 >= m->cap * 3)
        strmap_grow(m);
    j = strmap_slot(m, key, h);
    if (!m->slots[j].hash) {
        m->slots[j].key = key;
        m->slots[j].hash = h;
        m->count++;
    }
    m->slots[j].val = val;
}
