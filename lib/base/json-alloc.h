/*
 * Where cJSON's memory comes from.
 *
 * cJSON's allocation hooks are process-wide; cgscope installs them once (cgs_json_init). Outside
 * a bump region every cJSON allocation is cgs_xmalloc/free, so out of memory goes to the
 * application's handler as every other allocation does. Inside a region (cgs_jbump_begin ..
 * cgs_jbump_end, per thread, nestable) allocations are pointer bumps in large blocks, and the
 * trees made there are dropped all at once by cgs_jbump_reset: no cJSON_Delete walk, no free
 * per item. The graph loader parses each node in one; the --json writers build each streamed
 * entry in one.
 *
 * Rules inside a region: a tree made there must not outlive the next reset (copy what must
 * stay into an arena first); cJSON_Delete of it is allowed and frees nothing; text that
 * cJSON_Print* returns there must go through cJSON_free, never free().
 */
#ifndef CGS_JSON_ALLOC_H
#define CGS_JSON_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

struct cgs_jbump_block;

struct cgs_jbump {
    struct cgs_jbump_block *head;
    struct cgs_jbump *outer; /* the region this one is inside, restored by cgs_jbump_end */
    size_t block;            /* bytes of a block (larger allocations get their own); 0: 1 MiB */
};

/* Install the hooks (once per process; every cgs_jbump_begin does it too). */
void cgs_json_init(void);

/* Make b (emptied by the call) this thread's region: cgs_jbump_enter of a new region. */
void cgs_jbump_begin(struct cgs_jbump *b);
/* Forget everything allocated in b since its begin or its last reset. */
void cgs_jbump_reset(struct cgs_jbump *b);
/* Leave b (the outer region, if any, is current again) and release its blocks. */
void cgs_jbump_end(struct cgs_jbump *b);

/* A region's trees can be made on one thread and read or dropped on another: enter makes an
 * existing region (b->head kept) current on the calling thread, leave undoes the enter it
 * follows, release frees the blocks (on any thread, once no thread has b entered). */
void cgs_jbump_enter(struct cgs_jbump *b);
void cgs_jbump_leave(struct cgs_jbump *b);
void cgs_jbump_release(struct cgs_jbump *b);
/* Whether cJSON allocates from a region on this thread now. */
bool cgs_jbump_active(void);

#endif
