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

void cgs_strmap_free(struct cgs_strmap *m)
{
    if (!m)
        return;
    free(m->keys);
    free(m->vals);
    free(m->hashes);
    free(m);
}

static void strmap_grow(struct cgs_strmap *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 64;
    const char **k = cgs_xcalloc(ncap, sizeof(*k));
    void **v = cgs_xcalloc(ncap, sizeof(*v));
    uint32_t *h = cgs_xcalloc(ncap, sizeof(*h));
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->hashes[i])
            continue;
        size_t j = m->hashes[i] & (ncap - 1);
        while (h[j])
            j = (j + 1) & (ncap - 1);
        k[j] = m->keys[i];
        v[j] = m->vals[i];
        h[j] = m->hashes[i];
    }
    free(m->keys);
    free(m->vals);
    free(m->hashes);
    m->keys = k;
    m->vals = v;
    m->hashes = h;
    m->cap = ncap;
}

/* The slot for key: found (hashes[slot] != 0) or where it would go. */
static size_t strmap_slot(const struct cgs_strmap *m, const char *key, uint32_t h)
{
    size_t j = h & (m->cap - 1);
    while (m->hashes[j] && (m->hashes[j] != h || strcmp(m->keys[j], key)))
        j = (j + 1) & (m->cap - 1);
    return j;
}

void *cgs_strmap_get(const struct cgs_strmap *m, const char *key)
{
    if (!m || !m->cap)
        return NULL;
    size_t j = strmap_slot(m, key, hash_str(key));
    return m->hashes[j] ? m->vals[j] : NULL;
}

void *cgs_strmap_put(struct cgs_strmap *m, const char *key, void *val)
{
    uint32_t h = hash_str(key);
    size_t j;
    if ((m->count + 1) * 4 >= m->cap * 3)
        strmap_grow(m);
    j = strmap_slot(m, key, h);
    if (m->hashes[j])
        return m->vals[j];
    m->keys[j] = key;
    m->vals[j] = val;
    m->hashes[j] = h;
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
    if (!m->hashes[j]) {
        m->keys[j] = key;
        m->hashes[j] = h;
        m->count++;
    }
    m->vals[j] = val;
}
