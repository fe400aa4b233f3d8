/* cJSON's allocation hooks: cgs_xmalloc, or a per-thread bump region (see json-alloc.h). */
#include "lib/base/json-alloc.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

#include "lib/base/arena.h"

#define BLOCK_BYTES ((size_t)1 << 20)

struct cgs_jbump_block {
    struct cgs_jbump_block *next;
    size_t used, cap;
    max_align_t data[];
};

static _Thread_local struct cgs_jbump *cur;

static void *hook_malloc(size_t n)
{
    struct cgs_jbump *b = cur;
    struct cgs_jbump_block *blk;
    if (!b)
        return cgs_xmalloc(n); /* out of memory is the application's handler's */
    n = (n + _Alignof(max_align_t) - 1) & ~(_Alignof(max_align_t) - 1);
    blk = b->head;
    if (!blk || blk->cap - blk->used < n) {
        size_t want = b->block ? b->block : (size_t)BLOCK_BYTES;
        size_t cap = n > want ? n : want;
        blk = cgs_xmalloc(sizeof(*blk) + cap);
        blk->used = 0;
        blk->cap = cap;
        blk->next = b->head;
        b->head = blk;
    }
    void *p = (char *)blk->data + blk->used;
    blk->used += n;
    return p;
}

static bool owns(const struct cgs_jbump *b, const void *p)
{
    for (; b; b = b->outer)
        for (const struct cgs_jbump_block *blk = b->head; blk; blk = blk->next)
            if ((const char *)p >= (const char *)blk->data &&
                (const char *)p < (const char *)blk->data + blk->cap)
                return true;
    return false;
}

/* Memory from any open region (this one or one it is inside) is the region's to drop. */
static void hook_free(void *p)
{
    if (cur && owns(cur, p))
        return;
    free(p);
}

static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

static void install_hooks(void)
{
    cJSON_Hooks h = {hook_malloc, hook_free};
    cJSON_InitHooks(&h);
}

void cgs_json_init(void)
{
    pthread_once(&hooks_once, install_hooks);
}

void cgs_jbump_enter(struct cgs_jbump *b)
{
    cgs_json_init();
    b->outer = cur;
    cur = b;
}

void cgs_jbump_leave(struct cgs_jbump *b)
{
    if (cur == b)
        cur = b->outer;
}

void cgs_jbump_begin(struct cgs_jbump *b)
{
    b->head = NULL;
    b->block = 0;
    cgs_jbump_enter(b);
}

/* Keep only the newest block, emptied: a region that needed several keeps one of full size. */
void cgs_jbump_reset(struct cgs_jbump *b)
{
    struct cgs_jbump_block *blk = b->head;
    if (!blk)
        return;
    while (blk->next) {
        struct cgs_jbump_block *next = blk->next->next;
        free(blk->next);
        blk->next = next;
    }
    blk->used = 0;
}

void cgs_jbump_release(struct cgs_jbump *b)
{
    while (b->head) {
        struct cgs_jbump_block *next = b->head->next;
        free(b->head);
        b->head = next;
    }
}

void cgs_jbump_end(struct cgs_jbump *b)
{
    cgs_jbump_leave(b);
    cgs_jbump_release(b);
}

bool cgs_jbump_active(void)
{
    return cur != NULL;
}
