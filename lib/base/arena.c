#include "lib/base/arena.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cgs_arena_block {
    struct cgs_arena_block *next;
    size_t used, cap;
    alignas(max_align_t) unsigned char data[];
};

#define ALIGN       (alignof(max_align_t))
#define FIRST_BLOCK ((size_t)64 * 1024)
#define MAX_BLOCK   ((size_t)16 * 1024 * 1024)

static cgs_oom_fn oom_handler;

void cgs_set_oom_handler(cgs_oom_fn fn)
{
    oom_handler = fn;
}

static _Noreturn void oom(size_t size)
{
    char msg[96];
    int n;
    if (oom_handler)
        oom_handler(size); /* the application's way out; it must not return */
    n = snprintf(msg, sizeof(msg), "fatal: out of memory allocating %zu bytes\n", size);
    if (n > 0 && write(2, msg, (size_t)n) < 0)
        n = 0; /* nothing more can be done */
    abort();
}

void *cgs_xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        oom(size);
    return p;
}

void *cgs_xcalloc(size_t n, size_t size)
{
    void *p;
    if (size && n > SIZE_MAX / size)
        oom(SIZE_MAX);
    p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom(n * size);
    return p;
}

void *cgs_xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q)
        oom(size);
    return q;
}

char *cgs_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(cgs_xmalloc(n), s, n);
}

size_t cgs_array_bytes(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        oom(SIZE_MAX);
    return n * size;
}

void cgs_arena_init(struct cgs_arena *a)
{
    memset(a, 0, sizeof(*a));
}

void cgs_arena_release(struct cgs_arena *a)
{
    struct cgs_arena_block *b = a->head;
    while (b) {
        struct cgs_arena_block *next = b->next;
        free(b);
        b = next;
    }
    cgs_arena_init(a);
}

static struct cgs_arena_block *new_block(struct cgs_arena *a, size_t need)
{
    size_t cap = a->block_size ? a->block_size : FIRST_BLOCK;
    struct cgs_arena_block *b;

    if (cap < need)
        cap = need;
    b = malloc(sizeof(*b) + cap);
    if (!b)
        oom(sizeof(*b) + cap);
    b->used = 0;
    b->cap = cap;
    a->reserved += sizeof(*b) + cap;
    if (a->block_size < MAX_BLOCK)
        a->block_size = (a->block_size ? a->block_size : FIRST_BLOCK) * 2;
    return b;
}

void *cgs_arena_alloc(struct cgs_arena *a, size_t size)
{
    struct cgs_arena_block *b = a->head;
    size_t off;
    void *p;

    if (size > CGS_ARENA_MAX)
        return NULL;
    if (!size)
        size = 1;
    size = (size + ALIGN - 1) & ~(ALIGN - 1);
    if (!b || b->cap - b->used < size) {
        struct cgs_arena_block *nb = new_block(a, size);
        if (b && size > MAX_BLOCK / 4) {
            /* a big one-off: keep the current block for small allocations */
            nb->next = b->next;
            b->next = nb;
            b = nb;
        } else {
            nb->next = b;
            a->head = nb;
            b = nb;
        }
    }
    off = b->used;
    b->used += size;
    a->used += size;
    p = b->data + off;
    memset(p, 0, size);
    return p;
}

void *cgs_arena_calloc(struct cgs_arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    return cgs_arena_alloc(a, n * size);
}

char *cgs_arena_strndup(struct cgs_arena *a, const char *s, size_t n)
{
    char *p = cgs_arena_alloc(a, n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *cgs_arena_strdup(struct cgs_arena *a, const char *s)
{
    return cgs_arena_strndup(a, s, strlen(s));
}
