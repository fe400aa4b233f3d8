/*
 * A growable arena: a chain of blocks, like git's mem_pool. Everything
 * allocated from an arena lives until cgs_arena_release(); nothing is freed
 * one by one. Also the heap helpers used outside arenas (xmalloc & co.): an
 * out-of-memory condition prints one clear line and aborts.
 */
#ifndef CGS_ARENA_H
#define CGS_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/diag.h"

struct cgs_arena_block;

struct cgs_arena {
    struct cgs_arena_block *head; /* newest block first */
    size_t block_size;            /* size of the next ordinary block */
    size_t used;                  /* bytes handed out, for statistics */
    size_t reserved;              /* bytes taken from the heap */
};

#define CGS_ARENA_INIT                                                                             \
    {                                                                                              \
        NULL, 0, 0, 0                                                                              \
    }

void cgs_arena_init(struct cgs_arena *a);

/* Free every block; the arena is left empty and usable. */
void cgs_arena_release(struct cgs_arena *a);

/*
 * Zeroed memory aligned for any object. Returns NULL only when size is
 * absurd (over CGS_ARENA_MAX); out of memory aborts.
 */
void *cgs_arena_alloc(struct cgs_arena *a, size_t size);

/* n * size bytes, zeroed; NULL when the product overflows or is absurd. */
void *cgs_arena_calloc(struct cgs_arena *a, size_t n, size_t size);

/* Copies of strings, NUL-terminated, in the arena. */
char *cgs_arena_strdup(struct cgs_arena *a, const char *s);
char *cgs_arena_strndup(struct cgs_arena *a, const char *s, size_t n);

#define CGS_ARENA_MAX ((size_t)1 << 40)

/* Heap allocation that never returns NULL: OOM prints and aborts. */
/*
 * What an allocation failure in the x-helpers does: the handler set here (the CLI's reports
 * the failure and exits 2), else a message and abort(). A handler must not return.
 */
typedef void (*cgs_oom_fn)(size_t size);
void cgs_set_oom_handler(cgs_oom_fn fn);

void *cgs_xmalloc(size_t size);
void *cgs_xcalloc(size_t n, size_t size);
void *cgs_xrealloc(void *p, size_t size);
char *cgs_xstrdup(const char *s);

/*
 * Grow a heap array x of alloc slots so that it holds at least nr items
 * (git's ALLOC_GROW).
 */
#define CGS_ALLOC_GROW(x, nr, alloc)                                                               \
    do {                                                                                           \
        if ((size_t)(nr) > (size_t)(alloc)) {                                                      \
            size_t cgs_new_ = ((size_t)(alloc) + 16) * 3 / 2;                                      \
            if (cgs_new_ < (size_t)(nr))                                                           \
                cgs_new_ = (size_t)(nr);                                                           \
            (x) = cgs_xrealloc((x), cgs_array_bytes(cgs_new_, sizeof(*(x))));                      \
            (alloc) = cgs_new_;                                                                    \
        }                                                                                          \
    } while (0)

/* n * size, aborting on overflow (used by CGS_ALLOC_GROW). */
size_t cgs_array_bytes(size_t n, size_t size);

#endif
