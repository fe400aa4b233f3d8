/*
 * Following sources as they grow (`cgscope top`): files and folders (a folder of per-rank
 * logs: every regular file in it, new ones picked up), read into one lib/dash.h model.
 * A file that does not exist yet is waited for; a file that shrinks or is replaced (another
 * inode) means a new run: the model is reset and every source read again from the start.
 * No curses, no threads: the caller polls.
 */
#ifndef CGS_FOLLOW_H
#define CGS_FOLLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/dash.h"

struct cgs_follow_file {
    char *path;
    bool seen;         /* it existed at some poll */
    dev_t dev;
    ino_t ino;
    off_t off;         /* bytes read */
    struct timespec mtime; /* cache index: re-read when it changes */
    struct cgs_feed feed;
};

struct cgs_follow {
    char **roots;      /* what the user named */
    uint32_t n_roots;
    struct cgs_follow_file *files;
    uint32_t n_files, alloc_files;
    struct cgs_dash *dash;
    uint64_t resets;   /* times a source was truncated or replaced */
    uint64_t bytes;    /* read so far */
    char status[256];  /* "waiting for trace/ to appear", "" when all is there */
    bool any_root;     /* set by the caller: wait quietly while at least one root exists */
};

void cgs_follow_init(struct cgs_follow *f, const char *const *roots, uint32_t n,
                     struct cgs_dash *dash);
void cgs_follow_release(struct cgs_follow *f);
/* Read what is new; true when the model changed. A root that is a file is never skipped;
   in a folder, hidden files and our own *.tmp-* files are. */
bool cgs_follow_poll(struct cgs_follow *f);

/* The end (--once): what is pending, a last line without '\n' included, is read. */
void cgs_follow_finish(struct cgs_follow *f);

#endif
