/*
 * Following sources as they grow (`cgscope top`): files and folders (a folder of per-rank
 * logs: every regular file in it, new ones picked up), read into one lib/run/dash.h model.
 * A file that does not exist yet is waited for; a file that shrinks or is replaced (another
 * inode) means a new run: the model is reset and every source read again from the start.
 * No curses, no threads: the caller polls.
 */
#ifndef CGS_FOLLOW_H
#define CGS_FOLLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "lib/run/dash.h"
#include "lib/readers/sniff.h"
#include "lib/readers/unpack.h"

struct cgs_follow_file {
    char *path;
    bool seen;         /* it existed at some poll */
    bool stream;       /* a pipe, FIFO or standard input ("-"): read once, as it comes */
    bool ended;        /* a stream at its end, or a file refused (see sniffed, error) */
    int fd;            /* a stream's descriptor while it is read; -1 */
    enum cgs_input_kind sniffed; /* from its first bytes (UNKNOWN before any) */
    bool refused;      /* of a kind no dashboard reads (a PNG, a graph JSON): not fed */
    bool unpacking;    /* gzip, xz or zstd: bytes go through unpack */
    struct cgs_unpack unpack;
    char error[512];   /* why it could not be read (corrupt or truncated compressed data) */
    dev_t dev;
    ino_t ino;
    off_t off;         /* bytes read */
    uint64_t unpacked; /* bytes unpacked from it (a compressed file) */
    struct timespec mtime; /* cache index: re-read when it changes */
    struct cgs_feed feed;
    struct cgs_ahead *ahead; /* read (and unpacked) ahead by a helper thread: see follow.c */
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
    bool blocking;     /* set by the caller (one-shot commands): a stream is read to its end */
    bool polled;       /* polled once */
    /* set by the caller (one-shot reads), or NULL: work for the feeding thread while it would
     * wait for a helper that reads ahead (the model as fed so far is its to read, not to
     * change); true when it did some (it is asked again before any wait), false when it has
     * none left for now */
    bool (*idle)(void *ctx);
    void *idle_ctx;
};

/* A compressed log may unpack to at most this many times its size once past 256 MiB (a real
 * TORCH_TRACE log compresses 10-50x; a decompression bomb, 1,000x and far more). */
#define CGS_FOLLOW_UNPACK_RATIO 1000.0
/* Raise (or, 0, lift) that bound for the process (CGSCOPE_MAX_UNPACK_RATIO). */
void cgs_follow_set_unpack_ratio(double ratio);

/* How far a one-shot read (blocking) of a file has got, for the process: fn hears of each chunk
 * read (done bytes of size on disk; for a compressed file, done bytes unpacked and size 0) and,
 * with end set, of the file's end. The CLI prints it on a terminal; NULL: nothing is said. */
typedef void (*cgs_follow_progress_fn)(void *ctx, const char *path, uint64_t done, uint64_t size,
                                       bool end);
void cgs_follow_set_progress(cgs_follow_progress_fn fn, void *ctx);

/* For tests: the caller's idle work (cgs_follow.idle) is also done after every piece fed, as
 * much of it as there is, not only while the feeding thread would wait for a helper: what it
 * does is then seen on any input, at every point of the read. Process-wide. */
void cgs_follow_set_idle_always(bool on);

void cgs_follow_init(struct cgs_follow *f, const char *const *roots, uint32_t n,
                     struct cgs_dash *dash);
void cgs_follow_release(struct cgs_follow *f);
/* Read what is new; true when the model changed. A root that is a file is never skipped;
   in a folder, hidden files and our own *.tmp-* files are. */
bool cgs_follow_poll(struct cgs_follow *f);

/* The end (--once): what is pending, a last line without '\n' included, is read; a
   compressed file that ends early gets its error. */
void cgs_follow_finish(struct cgs_follow *f);

/*
 * After cgs_follow_finish, for one-shot commands: say (through warn) every source that gave
 * no record of the kinds in want (a bit per enum cgs_src_kind) -- what it actually is ("a PNG
 * image", "empty", "a folder with no log in it", the unpacking error) -- and return how many
 * records of those kinds were read. 0 means nothing the command answers about was read.
 */
uint64_t cgs_follow_verdict(const struct cgs_follow *f, unsigned want, const char *wanted,
                            void (*warn)(const char *file, const char *msg, void *ctx), void *ctx);

#endif
