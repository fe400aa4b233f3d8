/* Following growing sources into a dash model (lib/run/follow.h). */
#include "lib/run/follow.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/base/arena.h"
#include "lib/readers/file.h"
#include "lib/readers/load.h"

/* What a compressed source may unpack to (a bomb stops there, with its error). */
#define UNPACK_MAX ((uint64_t)64 << 30)

/* How many bytes a compressed log may unpack to per byte of it (0: no bound). */
static double unpack_ratio = CGS_FOLLOW_UNPACK_RATIO;

void cgs_follow_set_unpack_ratio(double ratio)
{
    unpack_ratio = ratio;
}

static cgs_follow_progress_fn progress_fn;
static void *progress_ctx;

void cgs_follow_set_progress(cgs_follow_progress_fn fn, void *ctx)
{
    progress_fn = fn;
    progress_ctx = ctx;
}

static void ahead_free(struct cgs_ahead *a);

void cgs_follow_init(struct cgs_follow *f, const char *const *roots, uint32_t n,
                     struct cgs_dash *dash)
{
    memset(f, 0, sizeof(*f));
    f->dash = dash;
    f->roots = cgs_xcalloc(n ? n : 1, sizeof(char *));
    for (uint32_t i = 0; i < n; i++)
        f->roots[f->n_roots++] = cgs_xstrdup(roots[i]);
}

void cgs_follow_release(struct cgs_follow *f)
{
    for (uint32_t i = 0; i < f->n_files; i++) {
        cgs_feed_release(&f->files[i].feed);
        cgs_unpack_release(&f->files[i].unpack);
        ahead_free(f->files[i].ahead);
        if (f->files[i].fd >= 0)
            close(f->files[i].fd);
        free(f->files[i].path);
    }
    for (uint32_t i = 0; i < f->n_roots; i++)
        free(f->roots[i]);
    free(f->files);
    free(f->roots);
    memset(f, 0, sizeof(*f));
}

static struct cgs_follow_file *file_for(struct cgs_follow *f, const char *path)
{
    struct cgs_follow_file *x;
    for (uint32_t i = 0; i < f->n_files; i++)
        if (!strcmp(f->files[i].path, path))
            return &f->files[i];
    CGS_ALLOC_GROW(f->files, f->n_files + 1, f->alloc_files);
    x = &f->files[f->n_files++];
    memset(x, 0, sizeof(*x));
    x->path = cgs_xstrdup(path);
    x->fd = -1;
    cgs_feed_init(&x->feed, cgs_path_is_stdin(path) ? CGS_STDIN_NAME : x->path, CGS_SRC_UNKNOWN);
    return x;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* In a folder, the files a run writes: TORCH_TRACE's *.log, events *.jsonl, cache indexes. */
static bool is_run_log(const char *name)
{
    size_t n = strlen(name);
    /* compressed logs (attached to bug reports) count as what they hold */
    if (n > 3 && (!strcmp(name + n - 3, ".gz") || !strcmp(name + n - 3, ".xz")))
        n -= 3;
    else if (n > 4 && !strcmp(name + n - 4, ".zst"))
        n -= 4;
    return (n > 4 && !strncmp(name + n - 4, ".log", 4)) ||
           (n > 6 && !strncmp(name + n - 6, ".jsonl", 6)) ||
           strstr(name, "torch_trace") || strstr(name, "magi_compile_cache") ||
           strstr(name, "vllm_compile_cache");
}

static int follow_index(const char *path, void *ctx)
{
    file_for(ctx, path);
    return 0;
}

/* The files of a folder, in name order (so ranks come in order); a cache folder's indexes
 * also up to three levels down (vLLM's <hash>/rank_0_0/backbone/vllm_compile_cache.py). */
static void scan_dir(struct cgs_follow *f, const char *dir)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, alloc = 0;
    if (!dp)
        return;
    char sub[4096];
    struct stat sst;
    /* the folder `top --dir DIR -- CMD` makes: its run's TORCH_TRACE folder is DIR/trace,
       and DIR/cmd.log is the command's own output, not a log of compiles */
    bool top_dir = (size_t)snprintf(sub, sizeof(sub), "%s/trace", dir) < sizeof(sub) &&
                   !stat(sub, &sst) && S_ISDIR(sst.st_mode);
    while ((e = readdir(dp))) {
        char path[4096];
        struct stat st;
        if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp-") || !is_run_log(e->d_name) ||
            (top_dir && !strcmp(e->d_name, "cmd.log")))
            continue;
        snprintf(path, sizeof(path), "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/",
                 e->d_name);
        if (stat(path, &st) || !S_ISREG(st.st_mode))
            continue;
        CGS_ALLOC_GROW(names, n + 1, alloc);
        names[n++] = cgs_xstrdup(path);
    }
    closedir(dp);
    if (n > 1)
        qsort(names, n, sizeof(*names), by_name);
    if (top_dir)
        scan_dir(f, sub);
    for (size_t i = 0; i < n; i++) {
        file_for(f, names[i]);
        free(names[i]);
    }
    free(names);
    if (!n)
        cgs_find_named(dir, cgs_cache_index_names, 2, 3, follow_index, f);
}

static void reset_all(struct cgs_follow *f)
{
    cgs_dash_reset(f->dash);
    for (uint32_t i = 0; i < f->n_files; i++) {
        struct cgs_follow_file *x = &f->files[i];
        if (x->stream)
            continue; /* what a pipe gave cannot be read again */
        cgs_feed_release(&x->feed);
        cgs_feed_init(&x->feed, x->path, CGS_SRC_UNKNOWN);
        cgs_unpack_release(&x->unpack);
        ahead_free(x->ahead);
        x->ahead = NULL;
        x->unpacking = x->refused = x->ended = false;
        x->sniffed = CGS_IN_UNKNOWN;
        x->error[0] = '\0';
        x->off = 0;
        x->seen = false;
    }
    f->resets++;
}

/* A kind the dashboard reads, or may: anything that is text and not something else. */
static bool feedable(enum cgs_input_kind k)
{
    return k == CGS_IN_TRACE_LOG || k == CGS_IN_EVENTS || k == CGS_IN_CACHE_INDEX ||
           k == CGS_IN_JSON || k == CGS_IN_TEXT || k == CGS_IN_UNKNOWN;
}

struct sink_ctx {
    struct cgs_follow *f;
    struct cgs_follow_file *x;
    bool first;
};

static bool idle_always; /* tests: the idle work after every piece fed */

void cgs_follow_set_idle_always(bool on)
{
    idle_always = on;
}

/* A piece of x's records to the model (and, for tests, the caller's idle work after it). */
static void feed(struct cgs_follow *f, struct cgs_follow_file *x, const char *data, size_t len)
{
    cgs_feed_data(f->dash, &x->feed, data, len);
    while (idle_always && f->idle && f->idle(f->idle_ctx))
        ;
}

static void to_feed(void *ctx, const char *data, size_t len)
{
    struct sink_ctx *c = ctx;
    if (c->x->refused)
        return;
    if (c->first && !c->x->feed.line_no && !c->x->feed.text_len && !c->x->feed.line_len) {
        /* the first unpacked bytes: what the compressed file holds (its head, as a file's) */
        enum cgs_input_kind k = cgs_sniff(data, len < CGS_SNIFF_HEAD ? len : CGS_SNIFF_HEAD, NULL);
        c->first = false;
        if (!feedable(k)) {
            c->x->sniffed = k;
            c->x->refused = true;
            return;
        }
    }
    c->first = false;
    feed(c->f, c->x, data, len);
    c->x->unpacked += len;
    if (progress_fn && c->f->blocking)
        progress_fn(progress_ctx, c->x->path, c->x->unpacked, 0, false);
}

/* What x's first bytes are (k) decides how it is read: unpacked (unless its unpacker did not
 * start: init_error), refused, or fed as it is. false when nothing of it is to be fed. */
static bool first_kind(struct cgs_follow_file *x, enum cgs_input_kind k, const char *init_error,
                       struct sink_ctx *c)
{
    x->sniffed = k;
    if (cgs_input_kind_compressed(k)) {
        if (init_error) {
            snprintf(x->error, sizeof(x->error), "%s", init_error);
            return false;
        }
        x->unpacking = true;
        c->first = true;
    } else if (!feedable(k)) {
        x->refused = true;
        return false;
    }
    return true;
}

/* Bytes of x as read: sniffed first, unpacked when compressed, fed. */
static void take(struct cgs_follow *f, struct cgs_follow_file *x, const char *buf, size_t n)
{
    struct sink_ctx c = {f, x, false};
    if (x->refused || x->error[0])
        return;
    if (x->sniffed == CGS_IN_UNKNOWN && x->off == 0 && n) {
        enum cgs_input_kind k = cgs_sniff(buf, n < CGS_SNIFF_HEAD ? n : CGS_SNIFF_HEAD, x->path);
        struct cgs_diag d = CGS_DIAG_INIT;
        bool failed = false;
        if (cgs_input_kind_compressed(k)) {
            failed = cgs_unpack_init(&x->unpack, k, UNPACK_MAX, 0, &d) != 0;
            x->unpack.max_ratio = unpack_ratio;
        }
        if (!first_kind(x, k, failed ? d.msg : NULL, &c))
            return;
    }
    if (x->unpacking) {
        struct cgs_diag d = CGS_DIAG_INIT;
        if (cgs_unpack_feed(&x->unpack, buf, n, to_feed, &c, &d))
            snprintf(x->error, sizeof(x->error), "%s", d.msg);
        return;
    }
    feed(f, x, buf, n);
}

/*
 * Reading ahead. A one-shot read of logs (graphs, breaks, check on a folder of ranks or on one
 * big compressed log) spends a third of its time in liblzma, on one core, while the records
 * wait. With a second core, helper threads read the files after the first one and unpack them
 * while this thread feeds the dashboard, file after file, as before; one big compressed file
 * alone is unpacked by a helper a segment ahead of the feeding. What a helper did is recorded,
 * not interpreted: the size of each read, the first bytes' kind, each piece the unpacker gave
 * and after which read, and where it failed; the feeding thread replays that through the same
 * steps as take() and cgs_follow_finish(), so the model, errors and verdicts are those of
 * reading the file here. A file nobody has started yet is read here when its turn comes; one a
 * helper reads is fed as its segments come; one a helper gave up on before starting (not a
 * plain file, too big to hold) is read here from its start. While this thread waits, it reads
 * and unpacks a later small file itself, as a helper would, whole.
 */
#define AHEAD_CHUNK (1u << 16)               /* as read_new reads */
#define AHEAD_SEG_BYTES ((size_t)2 << 20)    /* unpacked between two publications, about */
#define AHEAD_MAX_RAW ((uint64_t)256 << 20)  /* a compressed file past this: read here */
#define AHEAD_MAX_WHOLE ((uint64_t)32 << 20) /* a plain file, or unpacked whole, past this: here */
#define AHEAD_MAX_HELD ((size_t)32 << 20)    /* no file is started while this much waits */
#define AHEAD_FILE_HELD ((size_t)8 << 20)    /* a file unpacks on while less of it waits */
#define AHEAD_SPARE 8                        /* segments kept for reuse (their pages touched) */
#define AHEAD_ALONE_MIN ((off_t)1 << 20)     /* one file alone: read ahead from this size */
#define AHEAD_MAX_HELPERS 3
#define AHEAD_FINISH UINT32_MAX              /* a piece given at the end of the input */

enum ahead_state { AHEAD_WAITING, AHEAD_BUSY, AHEAD_DONE, AHEAD_HERE };

struct ahead_piece {
    uint32_t chunk; /* after which read (AHEAD_FINISH: at the end) */
    uint32_t len;
};

/* The pieces the unpacker gave for some reads, published together. */
struct ahead_seg {
    struct ahead_seg *next;
    char *out;
    size_t out_len, out_alloc;
    struct ahead_piece *pieces;
    uint32_t n_pieces, alloc_pieces;
    uint32_t fed;   /* pieces fed */
    size_t fed_out; /* and their bytes */
};

struct cgs_ahead {
    enum ahead_state state;   /* the rest under the pool's lock once started */
    bool started;             /* read and sniffed: its reader takes it to its end */
    bool stop;                /* the feeding thread needs no more of it (refused, failed) */
    bool whole;               /* unpacked whole by the feeding thread (no waiting for room) */
    off_t size;               /* its size when the read began (0: unknown) */
    struct stat st;
    enum cgs_input_kind sniffed;
    char *raw;                /* the file as read (freed once unpacked or fed) */
    uint32_t *chunk;          /* the reads' sizes */
    uint32_t n_chunks, alloc_chunks;
    uint32_t ready;           /* reads whose pieces are published */
    struct ahead_seg *segs, *last; /* published, not fed */
    struct ahead_seg *cur;    /* being filled by its reader */
    struct ahead_pool *pool;
    uint32_t cur_chunk;       /* the read whose pieces the unpacker gives now */
    bool too_big;             /* unpacked whole past AHEAD_MAX_WHOLE */
    bool init_failed;         /* the unpacker did not start: error says why */
    uint32_t error_chunk;     /* the read that failed to unpack (AHEAD_FINISH: none) */
    char error[512];
    char finish_error[512];   /* the stream cut short */
    size_t held;              /* bytes published and not fed */
};

struct ahead_pool {
    struct cgs_follow *f;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t held;
    bool stop;
    bool alone;     /* one big file: a helper reads it, the feeding thread waits for it */
    struct ahead_seg *spare; /* fed segments, for reuse */
    int n_spare;
};

/* Free the segments of the list s (linked by next). */
static void segs_free(struct ahead_seg *s)
{
    for (struct ahead_seg *next; s; s = next) {
        next = s->next;
        free(s->out);
        free(s->pieces);
        free(s);
    }
}

/* What a reader holds of a file: freed. */
static void ahead_drop(struct cgs_ahead *a)
{
    free(a->raw);
    free(a->chunk);
    segs_free(a->segs);
    segs_free(a->cur);
}

static void ahead_free(struct cgs_ahead *a)
{
    if (a)
        ahead_drop(a);
    free(a);
}

/* Back to nothing read (a reader gave up before starting it): read here. */
static void ahead_clear(struct cgs_ahead *a)
{
    struct ahead_pool *p = a->pool;
    ahead_drop(a);
    memset(a, 0, sizeof(*a));
    a->pool = p;
    a->state = AHEAD_HERE;
}

static void ahead_sink(void *ctx, const char *data, size_t len)
{
    struct cgs_ahead *a = ctx;
    struct ahead_seg *s;
    if (a->too_big || !len)
        return;
    if (!a->cur) { /* a fed segment's memory, already touched, when there is one */
        struct ahead_pool *p = a->pool;
        pthread_mutex_lock(&p->mu);
        if ((a->cur = p->spare)) {
            p->spare = a->cur->next;
            p->n_spare--;
        }
        pthread_mutex_unlock(&p->mu);
        if (!a->cur)
            a->cur = cgs_xcalloc(1, sizeof(*a->cur));
    }
    s = a->cur;
    if (a->whole && s->out_len + len > AHEAD_MAX_WHOLE) {
        a->too_big = true;
        return;
    }
    if (!s->out) { /* room for a few reads' worth: a log compresses 10-50x */
        s->out_alloc = len > ((size_t)4 << 20) ? len : (size_t)4 << 20;
        s->out = cgs_xmalloc(s->out_alloc);
    }
    CGS_ALLOC_GROW(s->out, s->out_len + len, s->out_alloc);
    memcpy(s->out + s->out_len, data, len);
    s->out_len += len;
    CGS_ALLOC_GROW(s->pieces, s->n_pieces + 1, s->alloc_pieces);
    s->pieces[s->n_pieces++] = (struct ahead_piece){a->cur_chunk, (uint32_t)len};
}

/* Publish what the reader unpacked so far, the reads before `ready` complete; with done, the
 * file is. Then, for a file a helper unpacks in segments, wait while enough of it waits to be
 * fed: true when the feeding thread needs no more. */
static bool ahead_publish(struct ahead_pool *p, struct cgs_ahead *a, uint32_t ready, bool done)
{
    bool stop;
    pthread_mutex_lock(&p->mu);
    if (a->cur) {
        a->cur->next = NULL;
        if (a->last)
            a->last->next = a->cur;
        else
            a->segs = a->cur;
        a->last = a->cur;
        a->held += a->cur->out_len;
        p->held += a->cur->out_len;
        a->cur = NULL;
    }
    a->ready = ready;
    if (done)
        a->state = AHEAD_DONE;
    pthread_cond_broadcast(&p->cv);
    while (!done && !a->whole && a->held > AHEAD_FILE_HELD && !a->stop && !p->stop)
        pthread_cond_wait(&p->cv, &p->mu);
    stop = a->stop || p->stop;
    pthread_mutex_unlock(&p->mu);
    return stop;
}

/* Unpack what a read, publishing what it gave at the end of the first read past
 * AHEAD_SEG_BYTES of it (whole: all at the end); false when, whole, it is too big to hold
 * (nothing was published). */
static bool ahead_unpack(struct ahead_pool *p, struct cgs_ahead *a)
{
    struct cgs_unpack u;
    struct cgs_diag d = CGS_DIAG_INIT;
    size_t at = 0;
    bool stopped = false;
    if (cgs_unpack_init(&u, a->sniffed, UNPACK_MAX, 0, &d)) {
        a->init_failed = true;
        snprintf(a->error, sizeof(a->error), "%s", d.msg);
        ahead_publish(p, a, a->n_chunks, true);
        return true;
    }
    u.max_ratio = unpack_ratio;
    for (uint32_t k = 0; k < a->n_chunks; at += a->chunk[k++]) {
        if (!a->whole && a->cur && a->cur->out_len >= AHEAD_SEG_BYTES &&
            ahead_publish(p, a, k, false)) {
            stopped = true;
            break;
        }
        a->cur_chunk = k;
        if (cgs_unpack_feed(&u, a->raw + at, a->chunk[k], ahead_sink, a, &d)) {
            a->error_chunk = k;
            snprintf(a->error, sizeof(a->error), "%s", d.msg);
            break;
        }
        if (a->too_big)
            break;
    }
    if (a->error_chunk == AHEAD_FINISH && !stopped && !a->too_big) {
        a->cur_chunk = AHEAD_FINISH;
        if (cgs_unpack_finish(&u, ahead_sink, a, &d))
            snprintf(a->finish_error, sizeof(a->finish_error), "%s", d.msg);
    }
    cgs_unpack_release(&u);
    free(a->raw);
    a->raw = NULL;
    if (a->too_big)
        return false;
    ahead_publish(p, a, a->n_chunks, true);
    return true;
}

/* A reader's read of one file: false when it is left to the feeding thread (nothing of it was
 * published). Read, not mapped: a file cut short while it waits to be fed cannot fault
 * (SIGBUS) in the feeding thread. */
static bool ahead_read(struct ahead_pool *p, struct cgs_ahead *a, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    size_t len = 0, room;
    if (fd < 0)
        return false;
    if (fstat(fd, &a->st) || !S_ISREG(a->st.st_mode) ||
        (uint64_t)a->st.st_size > (a->whole ? AHEAD_MAX_WHOLE : AHEAD_MAX_RAW)) {
        close(fd);
        return false;
    }
    room = (size_t)a->st.st_size + AHEAD_CHUNK;
    a->raw = cgs_xmalloc(room);
    for (;;) {
        ssize_t n;
        if (room - len < AHEAD_CHUNK) {
            close(fd);
            return false; /* it grows as it is read: read here, as it comes */
        }
        n = read(fd, a->raw + len, AHEAD_CHUNK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        CGS_ALLOC_GROW(a->chunk, a->n_chunks + 1, a->alloc_chunks);
        a->chunk[a->n_chunks++] = (uint32_t)n;
        len += (size_t)n;
        if (a->n_chunks > 1)
            continue;
        /* the first read's kind, as take() sniffs it */
        a->sniffed = cgs_sniff(a->raw, len < CGS_SNIFF_HEAD ? len : CGS_SNIFF_HEAD, path);
        if (p->alone && !cgs_input_kind_compressed(a->sniffed)) {
            close(fd);
            return false; /* one plain file: nothing to unpack, read here as it comes */
        }
    }
    close(fd);
    a->error_chunk = AHEAD_FINISH;
    if (cgs_input_kind_compressed(a->sniffed)) {
        if (!a->whole) { /* its reads and kind are known: from here the feeding may start */
            pthread_mutex_lock(&p->mu);
            a->started = true;
            pthread_cond_broadcast(&p->cv);
            pthread_mutex_unlock(&p->mu);
        }
        return ahead_unpack(p, a);
    }
    if ((uint64_t)len > AHEAD_MAX_WHOLE)
        return false;
    pthread_mutex_lock(&p->mu);
    a->started = true;
    a->held = len;
    p->held += len;
    pthread_mutex_unlock(&p->mu);
    ahead_publish(p, a, a->n_chunks, true);
    return true;
}

/* Read the first waiting file from `from` on (the lock held, and held again after), as a
 * helper (whole: as the feeding thread does while it waits): false when none waits. */
static bool ahead_one(struct ahead_pool *p, uint32_t from, bool whole)
{
    struct cgs_follow *f = p->f;
    for (uint32_t i = from; i < f->n_files; i++) {
        struct cgs_ahead *a = f->files[i].ahead;
        if (!a || a->state != AHEAD_WAITING)
            continue;
        if (whole && (!a->size || (uint64_t)a->size > AHEAD_MAX_WHOLE / 16))
            continue; /* unpacked whole, it could be large: a helper takes it */
        a->state = AHEAD_BUSY;
        a->whole = whole;
        pthread_mutex_unlock(&p->mu);
        bool ok = ahead_read(p, a, f->files[i].path);
        pthread_mutex_lock(&p->mu);
        if (!ok) {
            ahead_clear(a);
            pthread_cond_broadcast(&p->cv);
        }
        return true;
    }
    return false;
}

static void *ahead_helper(void *arg)
{
    struct ahead_pool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->held > AHEAD_MAX_HELD && !p->stop)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->stop || !ahead_one(p, 0, false))
            break;
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* The caller's work for the feeding thread while it would wait (the lock held, and held again
 * after): whether it did some. */
static bool ahead_idle(struct ahead_pool *p)
{
    bool did;
    if (!p->f->idle)
        return false;
    pthread_mutex_unlock(&p->mu);
    did = p->f->idle(p->f->idle_ctx);
    pthread_mutex_lock(&p->mu);
    return did;
}

/* The feeding thread's turn at x (file i): false when it reads x itself; true when a reader
 * has started it (its reads and kind known), waiting for that meanwhile and unpacking a later
 * small file as it waits. */
static bool ahead_claim(struct ahead_pool *p, uint32_t i)
{
    struct cgs_ahead *a = p->f->files[i].ahead;
    bool theirs;
    pthread_mutex_lock(&p->mu);
    if (a->state == AHEAD_WAITING && !p->alone)
        a->state = AHEAD_HERE;
    while ((a->state == AHEAD_BUSY && !a->started) || a->state == AHEAD_WAITING)
        if ((p->held > AHEAD_MAX_HELD || !ahead_one(p, i + 1, true)) && !ahead_idle(p))
            pthread_cond_wait(&p->cv, &p->mu);
    theirs = a->state != AHEAD_HERE;
    pthread_mutex_unlock(&p->mu);
    return theirs;
}

/* Wait until read k's pieces of file i are published (unpacking a later small file as this
 * thread waits); the read that failed to unpack, once known. */
static void ahead_wait(struct ahead_pool *p, uint32_t i, uint32_t k, uint32_t *ready,
                       uint32_t *error_chunk)
{
    struct cgs_ahead *a = p->f->files[i].ahead;
    pthread_mutex_lock(&p->mu);
    while (a->ready <= k && a->state != AHEAD_DONE)
        if ((p->held > AHEAD_MAX_HELD || !ahead_one(p, i + 1, true)) && !ahead_idle(p))
            pthread_cond_wait(&p->cv, &p->mu);
    *ready = a->state == AHEAD_DONE ? a->n_chunks : a->ready;
    *error_chunk = a->state == AHEAD_DONE ? a->error_chunk : AHEAD_FINISH;
    pthread_mutex_unlock(&p->mu);
}

/* Bytes of a a reader published, fed: their room given back (the lock held). */
static void ahead_fed(struct ahead_pool *p, struct cgs_ahead *a, size_t bytes)
{
    a->held -= bytes;
    p->held -= bytes;
    pthread_cond_broadcast(&p->cv);
}

/* The first published segment, fed: freed (or kept for reuse), its room given back. */
static void ahead_pop(struct ahead_pool *p, struct cgs_ahead *a)
{
    struct ahead_seg *s;
    pthread_mutex_lock(&p->mu);
    s = a->segs;
    a->segs = s->next;
    if (!a->segs)
        a->last = NULL;
    ahead_fed(p, a, s->out_len);
    if (p->n_spare < AHEAD_SPARE) {
        s->out_len = s->fed_out = 0;
        s->n_pieces = s->fed = 0;
        s->next = p->spare;
        p->spare = s;
        p->n_spare++;
        s = NULL;
    } else {
        s->next = NULL;
    }
    pthread_mutex_unlock(&p->mu);
    segs_free(s);
}

/* The first published segment not fed (its reader appends under the lock). */
static struct ahead_seg *ahead_head(struct ahead_pool *p, struct cgs_ahead *a)
{
    struct ahead_seg *s;
    pthread_mutex_lock(&p->mu);
    s = a->segs;
    pthread_mutex_unlock(&p->mu);
    return s;
}

/* No more of x is needed (refused, failed): its reader may stop. */
static void ahead_enough(struct ahead_pool *p, struct cgs_ahead *a)
{
    pthread_mutex_lock(&p->mu);
    a->stop = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* take() for the k-th read of a file a reader read: the same steps, the unpacking replayed. */
static void ahead_take(struct ahead_pool *p, struct cgs_follow *f, struct cgs_follow_file *x,
                       uint32_t k, size_t at, uint32_t error_chunk)
{
    struct cgs_ahead *a = x->ahead;
    struct sink_ctx c = {f, x, false};
    if (x->refused || x->error[0])
        return;
    if (k == 0 && !first_kind(x, a->sniffed, a->init_failed ? a->error : NULL, &c))
        return;
    if (!x->unpacking) {
        feed(f, x, a->raw + at, a->chunk[k]);
        return;
    }
    /* a read's pieces are in one segment; a segment fed to its end goes */
    for (struct ahead_seg *s; (s = ahead_head(p, a));) {
        for (; s->fed < s->n_pieces && s->pieces[s->fed].chunk == k; s->fed++) {
            to_feed(&c, s->out + s->fed_out, s->pieces[s->fed].len);
            s->fed_out += s->pieces[s->fed].len;
        }
        if (s->fed < s->n_pieces)
            break;
        ahead_pop(p, a);
    }
    if (error_chunk == k)
        snprintf(x->error, sizeof(x->error), "%s", a->error);
}

/* read_new() for a file a reader read (the first poll of a blocking read), progress told as
 * read_new tells it. */
static void ahead_replay(struct ahead_pool *p, struct cgs_follow *f, uint32_t i, bool *changed)
{
    struct cgs_follow_file *x = &f->files[i];
    struct cgs_ahead *a = x->ahead;
    uint32_t ready = 0, error_chunk = AHEAD_FINISH;
    size_t at = 0;
    x->seen = true;
    x->dev = a->st.st_dev;
    x->ino = a->st.st_ino;
    x->mtime = a->st.st_mtim;
    for (uint32_t k = 0; k < a->n_chunks; at += a->chunk[k++]) {
        bool needed = !x->refused && !x->error[0];
        if (k >= ready)
            ahead_wait(p, i, k, &ready, &error_chunk);
        ahead_take(p, f, x, k, at, error_chunk);
        if (needed && (x->refused || x->error[0]))
            ahead_enough(p, a);
        x->off += a->chunk[k];
        f->bytes += a->chunk[k];
        *changed = true;
        if (progress_fn && !x->unpacking)
            progress_fn(progress_ctx, x->path, (uint64_t)x->off, (uint64_t)a->st.st_size, false);
    }
    if (progress_fn && *changed)
        progress_fn(progress_ctx, x->path, x->unpacking ? x->unpacked : (uint64_t)x->off,
                    x->unpacking ? 0 : (uint64_t)a->st.st_size, true);
    if (*changed && !x->unpacking)
        cgs_feed_idle(f->dash, &x->feed);
    /* what is left is the end's pieces, or nothing wanted (refused, failed) */
    while ((x->refused || x->error[0]) && ahead_head(p, a))
        ahead_pop(p, a);
    if (a->raw) { /* a plain file, fed */
        pthread_mutex_lock(&p->mu);
        ahead_fed(p, a, a->held);
        pthread_mutex_unlock(&p->mu);
        free(a->raw);
        a->raw = NULL;
    }
}

/* cgs_follow_finish's step for a file a reader read: what the end gave its unpacker. */
static void ahead_finish(struct cgs_follow *f, struct cgs_follow_file *x)
{
    struct cgs_ahead *a = x->ahead;
    struct sink_ctx c = {f, x, false};
    if (!x->unpacking || x->error[0] || x->refused)
        return;
    for (struct ahead_seg *s = a->segs; s; s = s->next)
        for (; s->fed < s->n_pieces; s->fed_out += s->pieces[s->fed++].len)
            if (s->pieces[s->fed].chunk == AHEAD_FINISH)
                to_feed(&c, s->out + s->fed_out, s->pieces[s->fed].len);
    if (a->finish_error[0])
        snprintf(x->error, sizeof(x->error), "%s", a->finish_error);
}

/* Helpers for a one-shot read of several files, or of one big one, with cores to spare. */
static int ahead_start(struct cgs_follow *f, struct ahead_pool *p, pthread_t *tid)
{
    uint32_t files = 0;
    int want = cgs_load_threads() - 1, n = 0;
    struct stat st;
    if (!f->blocking || f->polled || want < 1)
        return 0;
    for (uint32_t i = 0; i < f->n_files; i++)
        files += !f->files[i].stream;
    if (!files || (files == 1 && f->n_files != 1))
        return 0;
    for (uint32_t i = 0; i < f->n_files; i++) {
        struct cgs_ahead *a = f->files[i].ahead = cgs_xcalloc(1, sizeof(struct cgs_ahead));
        a->state = f->files[i].stream ? AHEAD_HERE : AHEAD_WAITING;
        if (!f->files[i].stream && !stat(f->files[i].path, &st) && S_ISREG(st.st_mode))
            a->size = st.st_size;
    }
    if (files == 1 && f->files[0].ahead->size < AHEAD_ALONE_MIN) {
        ahead_free(f->files[0].ahead); /* one small file: read here as it comes */
        f->files[0].ahead = NULL;
        return 0;
    }
    memset(p, 0, sizeof(*p));
    p->f = f;
    p->alone = files == 1;
    for (uint32_t i = 0; i < f->n_files; i++)
        f->files[i].ahead->pool = p;
    if (p->alone)
        want = 1;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if (want > AHEAD_MAX_HELPERS)
        want = AHEAD_MAX_HELPERS;
    /* the first file is this thread's, unless it is all there is */
    if (files > 1)
        f->files[0].ahead->state = AHEAD_HERE;
    for (; n < want; n++)
        if (pthread_create(&tid[n], NULL, ahead_helper, p))
            break;
    if (!n) {
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->cv);
        for (uint32_t i = 0; i < f->n_files; i++)
            ahead_free(f->files[i].ahead), f->files[i].ahead = NULL;
    }
    return n;
}

static void ahead_stop(struct ahead_pool *p, pthread_t *tid, int n)
{
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < n; i++)
        pthread_join(tid[i], NULL);
    segs_free(p->spare);
    p->spare = NULL;
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
}

/* A pipe, FIFO or standard input: what is there now (all of it, to its end, when blocking). */
static void read_stream(struct cgs_follow *f, struct cgs_follow_file *x, bool *changed)
{
    char buf[1 << 16];
    if (x->ended)
        return;
    if (x->fd < 0) {
        x->fd = cgs_path_is_stdin(x->path) ? dup(0)
                                           : open(x->path, O_RDONLY | O_CLOEXEC |
                                                               (f->blocking ? 0 : O_NONBLOCK));
        if (x->fd < 0) {
            snprintf(x->error, sizeof(x->error), "cannot open: %s", strerror(errno));
            x->ended = true;
            return;
        }
        x->seen = true;
    }
    for (;;) {
        ssize_t n = read(x->fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n <= 0) {
            close(x->fd);
            x->fd = -1;
            x->ended = true;
            break;
        }
        take(f, x, buf, (size_t)n);
        x->off += n;
        f->bytes += (uint64_t)n;
        *changed = true;
    }
    if (*changed && !x->unpacking)
        cgs_feed_idle(f->dash, &x->feed);
}

/* Read what is new in x; -1 when it was truncated or replaced (a reset is due). */
static int read_new(struct cgs_follow *f, struct cgs_follow_file *x, bool *changed)
{
    struct stat st;
    int fd;
    char buf[1 << 16];

    if (x->stream) {
        read_stream(f, x, changed);
        return 0;
    }
    if (stat(x->path, &st) || !S_ISREG(st.st_mode))
        return x->seen ? -1 : 0; /* gone after being read: a new run will come */
    if (x->seen && (st.st_ino != x->ino || st.st_dev != x->dev || st.st_size < x->off))
        return -1;
    if (x->feed.kind == CGS_SRC_CACHE_INDEX && x->seen &&
        (st.st_mtim.tv_sec != x->mtime.tv_sec || st.st_mtim.tv_nsec != x->mtime.tv_nsec ||
         st.st_size != x->off))
        return -1; /* an index is rewritten whole: read it again */
    if (x->seen && st.st_size == x->off)
        return 0;
    fd = open(x->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    if (lseek(fd, x->off, SEEK_SET) != x->off) {
        close(fd);
        return -1;
    }
    x->seen = true;
    x->dev = st.st_dev;
    x->ino = st.st_ino;
    x->mtime = st.st_mtim;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        take(f, x, buf, (size_t)n);
        x->off += n;
        f->bytes += (uint64_t)n;
        *changed = true;
        if (progress_fn && f->blocking && !x->unpacking)
            progress_fn(progress_ctx, x->path, (uint64_t)x->off, (uint64_t)st.st_size, false);
    }
    close(fd);
    if (progress_fn && f->blocking && *changed)
        progress_fn(progress_ctx, x->path, x->unpacking ? x->unpacked : (uint64_t)x->off,
                    x->unpacking ? 0 : (uint64_t)st.st_size, true);
    if (*changed && !x->unpacking)
        cgs_feed_idle(f->dash, &x->feed);
    return 0;
}

bool cgs_follow_poll(struct cgs_follow *f)
{
    bool changed = false;
    uint32_t present = 0;
    f->status[0] = '\0';
    for (uint32_t r = 0; r < f->n_roots; r++) {
        struct stat st;
        if (cgs_path_is_stdin(f->roots[r])) {
            file_for(f, f->roots[r])->stream = true;
            present++;
            continue;
        }
        if (stat(f->roots[r], &st)) {
            snprintf(f->status, sizeof(f->status), "waiting for %.200s to appear", f->roots[r]);
            continue;
        }
        present++;
        if (S_ISDIR(st.st_mode))
            scan_dir(f, f->roots[r]);
        else if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode))
            file_for(f, f->roots[r])->stream = true; /* <(zcat log.gz), /dev/stdin */
        else
            file_for(f, f->roots[r]);
    }
    if (f->any_root && present)
        f->status[0] = '\0';
    struct ahead_pool pool;
    pthread_t helpers[AHEAD_MAX_HELPERS];
    int n_helpers = ahead_start(f, &pool, helpers);
    f->polled = true;
    for (uint32_t i = 0; i < f->n_files; i++) {
        struct cgs_follow_file *x = &f->files[i];
        if (n_helpers && ahead_claim(&pool, i)) {
            ahead_replay(&pool, f, i, &changed);
            continue;
        }
        if (read_new(f, x, &changed) < 0) {
            // a new run: everything is read again from the start, once
            if (n_helpers)
                ahead_stop(&pool, helpers, n_helpers), n_helpers = 0;
            reset_all(f);
            changed = true;
            for (uint32_t k = 0; k < f->n_files; k++)
                read_new(f, &f->files[k], &changed);
            break;
        }
    }
    if (n_helpers)
        ahead_stop(&pool, helpers, n_helpers);
    return changed;
}

void cgs_follow_finish(struct cgs_follow *f)
{
    for (uint32_t i = 0; i < f->n_files; i++) {
        struct cgs_follow_file *x = &f->files[i];
        if (x->ahead && x->ahead->state == AHEAD_DONE) {
            ahead_finish(f, x);
        } else if (x->unpacking && !x->error[0] && !x->refused) {
            /* a refused file was not read on */
            struct sink_ctx c = {f, x, false};
            struct cgs_diag d = CGS_DIAG_INIT;
            if (cgs_unpack_finish(&x->unpack, to_feed, &c, &d))
                snprintf(x->error, sizeof(x->error), "%s", d.msg);
        }
        ahead_free(x->ahead);
        x->ahead = NULL;
        cgs_feed_flush(f->dash, &x->feed);
    }
}

static bool root_has_files(const struct cgs_follow *f, const char *root)
{
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    for (uint32_t i = 0; i < f->n_files; i++)
        if (!strcmp(f->files[i].path, root) ||
            (!strncmp(f->files[i].path, root, n) && f->files[i].path[n] == '/'))
            return true;
    return false;
}

static bool is_root(const struct cgs_follow *f, const char *path)
{
    for (uint32_t r = 0; r < f->n_roots; r++)
        if (!strcmp(f->roots[r], path))
            return true;
    return false;
}

/* the phrase for what the dashboard reader found a file to be */
static const char *src_what(enum cgs_src_kind k)
{
    static const enum cgs_input_kind as[4] = {CGS_IN_UNKNOWN, CGS_IN_EVENTS, CGS_IN_TRACE_LOG,
                                              CGS_IN_CACHE_INDEX};
    return cgs_input_kind_what(as[(unsigned)k < 4 ? k : 0]);
}

uint64_t cgs_follow_verdict(const struct cgs_follow *f, unsigned want, const char *wanted,
                            void (*warn)(const char *file, const char *msg, void *ctx), void *ctx)
{
    uint64_t got = 0;
    char msg[1024];
    for (uint32_t i = 0; i < f->n_files; i++) {
        const struct cgs_follow_file *x = &f->files[i];
        if ((unsigned)x->feed.kind < 32 && (want >> x->feed.kind & 1u))
            got += x->feed.records;
    }
    for (uint32_t r = 0; r < f->n_roots; r++) {
        struct stat st;
        if (!cgs_path_is_stdin(f->roots[r]) && stat(f->roots[r], &st)) {
            warn(f->roots[r], "cannot open: No such file or directory", ctx);
        } else if (!cgs_path_is_stdin(f->roots[r]) && S_ISDIR(st.st_mode) &&
                   !root_has_files(f, f->roots[r])) {
            snprintf(msg, sizeof(msg), "a folder without %s in it (looked for *.log, "
                     "*.jsonl, *torch_trace* and *magi_compile_cache* files, compressed or not)", wanted);
            warn(f->roots[r], msg, ctx);
        }
    }
    for (uint32_t i = 0; i < f->n_files; i++) {
        const struct cgs_follow_file *x = &f->files[i];
        const char *name = x->feed.name ? x->feed.name : x->path;
        bool right = (unsigned)x->feed.kind < 32 && (want >> x->feed.kind & 1u);
        /* a file found in a folder is told about only when it broke, or nothing was read */
        bool named = is_root(f, x->path) || !got;
        if (x->error[0]) {
            snprintf(msg, sizeof(msg), "%.500s%s", x->error,
                     x->feed.records ? " (what came before it was read)" : "");
            warn(name, msg, ctx);
        } else if (!named) {
            continue;
        } else if (x->refused) {
            const char *hint = cgs_input_kind_hint(x->sniffed);
            snprintf(msg, sizeof(msg), "not read: %s %s, not %s%s%s",
                     x->unpacking ? "it holds" : "it is", cgs_input_kind_what(x->sniffed), wanted,
                     hint ? "; " : "", hint ? hint : "");
            warn(name, msg, ctx);
        } else if (!x->off) {
            snprintf(msg, sizeof(msg), "is empty (expected %s)", wanted);
            warn(name, msg, ctx);
        } else if (!x->feed.records) {
            int k = snprintf(msg, sizeof(msg), "nothing in it could be read as %s (it looks like "
                             "%s)", wanted, x->feed.kind != CGS_SRC_UNKNOWN
                                                      ? src_what(x->feed.kind)
                                                      : cgs_input_kind_what(x->sniffed));
            if (f->dash && f->dash->bad_lines && f->dash->first_bad[0] && k > 0 &&
                (size_t)k < sizeof(msg))
                snprintf(msg + k, sizeof(msg) - (size_t)k, "; the first line refused: %s",
                         f->dash->first_bad);
            warn(name, msg, ctx);
        } else if (!right) {
            snprintf(msg, sizeof(msg), "is %s, not %s: nothing in it answers this "
                     "command", src_what(x->feed.kind), wanted);
            warn(name, msg, ctx);
        }
    }
    return got;
}
