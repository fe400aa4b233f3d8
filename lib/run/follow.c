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
    cgs_feed_data(c->f->dash, &c->x->feed, data, len);
    c->x->unpacked += len;
    if (progress_fn && c->f->blocking)
        progress_fn(progress_ctx, c->x->path, c->x->unpacked, 0, false);
}

/* Bytes of x as read: sniffed first, unpacked when compressed, fed. */
static void take(struct cgs_follow *f, struct cgs_follow_file *x, const char *buf, size_t n)
{
    struct sink_ctx c = {f, x, false};
    if (x->refused || x->error[0])
        return;
    if (x->sniffed == CGS_IN_UNKNOWN && x->off == 0 && n) {
        x->sniffed = cgs_sniff(buf, n < CGS_SNIFF_HEAD ? n : CGS_SNIFF_HEAD, x->path);
        if (cgs_input_kind_compressed(x->sniffed)) {
            struct cgs_diag d = CGS_DIAG_INIT;
            if (cgs_unpack_init(&x->unpack, x->sniffed, UNPACK_MAX, 0, &d)) {
                snprintf(x->error, sizeof(x->error), "%s", d.msg);
                return;
            }
            x->unpack.max_ratio = unpack_ratio;
            x->unpacking = true;
            c.first = true;
        } else if (!feedable(x->sniffed)) {
            x->refused = true;
            return;
        }
    }
    if (x->unpacking) {
        struct cgs_diag d = CGS_DIAG_INIT;
        if (cgs_unpack_feed(&x->unpack, buf, n, to_feed, &c, &d))
            snprintf(x->error, sizeof(x->error), "%s", d.msg);
        return;
    }
    cgs_feed_data(f->dash, &x->feed, buf, n);
}

/*
 * Reading ahead. A one-shot read of several files (graphs, breaks, check on a folder of logs)
 * spends a third of its time in liblzma, on one core, while the records wait. With a second
 * core, helper threads read and unpack the files after the first one into memory while this
 * thread feeds the dashboard, file after file, as before. What a helper did is recorded, not
 * interpreted: the size of each read, the first bytes' kind, each piece the unpacker gave and
 * after which read, and where it failed; the feeding thread replays that through the same steps
 * as take() and cgs_follow_finish(), so the model, errors and verdicts are those of reading the
 * file here. A file nobody has started yet is read here when its turn comes; one a helper is
 * reading is waited for; one a helper gave up on (too big to hold, not a plain file) is read
 * here from its start.
 */
#define AHEAD_CHUNK (1u << 16)              /* as read_new reads */
#define AHEAD_MAX_FILE ((uint64_t)32 << 20) /* a file or its unpacked bytes past this: read here */
#define AHEAD_MAX_HELD ((size_t)32 << 20)   /* helpers wait while this much waits to be fed */
#define AHEAD_MAX_HELPERS 3
#define AHEAD_FINISH UINT32_MAX             /* a piece given at the end of the input */

enum ahead_state { AHEAD_WAITING, AHEAD_BUSY, AHEAD_DONE, AHEAD_HERE };

struct ahead_piece {
    uint32_t chunk; /* after which read (AHEAD_FINISH: at the end) */
    uint32_t len;
};

struct cgs_ahead {
    enum ahead_state state;
    struct stat st;
    enum cgs_input_kind sniffed;
    char *raw;                 /* the file as read (freed once unpacked or fed) */
    uint32_t *chunk;           /* the reads' sizes */
    uint32_t n_chunks, alloc_chunks;
    char *out;                 /* unpacked bytes, piece after piece */
    size_t out_len, out_alloc;
    struct ahead_piece *pieces;
    uint32_t n_pieces, alloc_pieces;
    uint32_t cur_chunk;        /* the read whose pieces the unpacker gives now */
    uint32_t fed_pieces;       /* pieces fed, and their bytes: the rest is the end's */
    size_t fed_out;
    bool too_big;
    bool init_failed;          /* the unpacker did not start: error says why */
    uint32_t error_chunk;      /* the read that failed to unpack (AHEAD_FINISH: none) */
    char error[512];
    char finish_error[512];    /* the stream cut short */
    size_t held;               /* bytes it holds */
};

struct ahead_pool {
    struct cgs_follow *f;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t held;
    bool stop;
};

static void ahead_drop_raw(struct cgs_ahead *a)
{
    free(a->raw);
    a->raw = NULL;
}

static void ahead_free(struct cgs_ahead *a)
{
    if (!a)
        return;
    ahead_drop_raw(a);
    free(a->chunk);
    free(a->out);
    free(a->pieces);
    free(a);
}

static void ahead_sink(void *ctx, const char *data, size_t len)
{
    struct cgs_ahead *a = ctx;
    if (a->too_big || !len)
        return;
    if (a->out_len + len > AHEAD_MAX_FILE) {
        a->too_big = true;
        return;
    }
    CGS_ALLOC_GROW(a->out, a->out_len + len, a->out_alloc);
    memcpy(a->out + a->out_len, data, len);
    a->out_len += len;
    CGS_ALLOC_GROW(a->pieces, a->n_pieces + 1, a->alloc_pieces);
    a->pieces[a->n_pieces++] = (struct ahead_piece){a->cur_chunk, (uint32_t)len};
}

/* Unpack what a read whole; false when it is too big to hold. */
static bool ahead_unpack(struct cgs_ahead *a)
{
    struct cgs_unpack u;
    struct cgs_diag d = CGS_DIAG_INIT;
    size_t at = 0;
    a->error_chunk = AHEAD_FINISH;
    if (cgs_unpack_init(&u, a->sniffed, UNPACK_MAX, 0, &d)) {
        a->init_failed = true;
        snprintf(a->error, sizeof(a->error), "%s", d.msg);
        return true;
    }
    u.max_ratio = unpack_ratio;
    for (uint32_t k = 0; k < a->n_chunks && !a->too_big; at += a->chunk[k++]) {
        a->cur_chunk = k;
        if (cgs_unpack_feed(&u, a->raw + at, a->chunk[k], ahead_sink, a, &d)) {
            a->error_chunk = k;
            snprintf(a->error, sizeof(a->error), "%s", d.msg);
            break;
        }
    }
    if (a->error_chunk == AHEAD_FINISH && !a->too_big) {
        a->cur_chunk = AHEAD_FINISH;
        if (cgs_unpack_finish(&u, ahead_sink, a, &d))
            snprintf(a->finish_error, sizeof(a->finish_error), "%s", d.msg);
    }
    cgs_unpack_release(&u);
    return !a->too_big;
}

/* A helper's read of one file: false when it is left to the feeding thread. Read, not mapped:
 * a file cut short while it waits to be fed cannot fault (SIGBUS) in the feeding thread. */
static bool ahead_read(struct cgs_ahead *a, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    size_t len = 0, room;
    if (fd < 0)
        return false;
    if (fstat(fd, &a->st) || !S_ISREG(a->st.st_mode) ||
        (uint64_t)a->st.st_size > AHEAD_MAX_FILE) {
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
    }
    close(fd);
    if (!len)
        return true;
    a->sniffed = cgs_sniff(a->raw, len < CGS_SNIFF_HEAD ? len : CGS_SNIFF_HEAD, path);
    if (cgs_input_kind_compressed(a->sniffed)) {
        /* a log compresses 10-50x: room for most at once */
        a->out_alloc = len * 16 < AHEAD_MAX_FILE ? len * 16 : AHEAD_MAX_FILE;
        a->out = cgs_xmalloc(a->out_alloc);
        bool ok = ahead_unpack(a);
        ahead_drop_raw(a);
        if (!ok)
            return false;
    }
    a->held = (a->raw ? len : 0) + a->out_len;
    return true;
}

/* Read the first waiting file from `from` on (the lock held, and held again after): false
 * when none waits. */
static bool ahead_one(struct ahead_pool *p, uint32_t from)
{
    struct cgs_follow *f = p->f;
    for (uint32_t i = from; i < f->n_files; i++) {
        struct cgs_ahead *a = f->files[i].ahead;
        if (!a || a->state != AHEAD_WAITING)
            continue;
        a->state = AHEAD_BUSY;
        pthread_mutex_unlock(&p->mu);
        bool ok = ahead_read(a, f->files[i].path);
        pthread_mutex_lock(&p->mu);
        if (!ok) {
            ahead_drop_raw(a);
            free(a->chunk), free(a->out), free(a->pieces);
            memset(a, 0, sizeof(*a));
            a->state = AHEAD_HERE;
        } else {
            a->state = AHEAD_DONE;
            p->held += a->held;
        }
        pthread_cond_broadcast(&p->cv);
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
        if (p->stop || !ahead_one(p, 0))
            break;
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* take() for the k-th read of a file a helper read: the same steps, the unpacking replayed. */
static void ahead_take(struct cgs_follow *f, struct cgs_follow_file *x, uint32_t k, size_t at,
                       uint32_t *piece, size_t *out_at)
{
    struct cgs_ahead *a = x->ahead;
    struct sink_ctx c = {f, x, false};
    if (x->refused || x->error[0])
        return;
    if (k == 0) {
        x->sniffed = a->sniffed;
        if (cgs_input_kind_compressed(x->sniffed)) {
            if (a->init_failed) {
                snprintf(x->error, sizeof(x->error), "%s", a->error);
                return;
            }
            x->unpacking = true;
            c.first = true;
        } else if (!feedable(x->sniffed)) {
            x->refused = true;
            return;
        }
    }
    if (x->unpacking) {
        for (; *piece < a->n_pieces && a->pieces[*piece].chunk == k; (*piece)++) {
            to_feed(&c, a->out + *out_at, a->pieces[*piece].len);
            *out_at += a->pieces[*piece].len;
        }
        if (a->error_chunk == k)
            snprintf(x->error, sizeof(x->error), "%s", a->error);
        return;
    }
    cgs_feed_data(f->dash, &x->feed, a->raw + at, a->chunk[k]);
}

/* read_new() for a file a helper read (the first poll of a blocking read), progress told as
 * read_new tells it. */
static void ahead_replay(struct cgs_follow *f, struct cgs_follow_file *x, bool *changed)
{
    struct cgs_ahead *a = x->ahead;
    uint32_t piece = 0;
    size_t at = 0, out_at = 0;
    x->seen = true;
    x->dev = a->st.st_dev;
    x->ino = a->st.st_ino;
    x->mtime = a->st.st_mtim;
    for (uint32_t k = 0; k < a->n_chunks; at += a->chunk[k++]) {
        ahead_take(f, x, k, at, &piece, &out_at);
        x->off += a->chunk[k];
        f->bytes += a->chunk[k];
        *changed = true;
        if (progress_fn && !x->unpacking)
            progress_fn(progress_ctx, x->path, (uint64_t)x->off, (uint64_t)a->st.st_size, false);
    }
    if (progress_fn && *changed)
        progress_fn(progress_ctx, x->path, x->unpacking ? x->unpacked : (uint64_t)x->off,
                    x->unpacking ? 0 : (uint64_t)a->st.st_size, true);
    /* what the end gives waits for cgs_follow_finish */
    a->fed_pieces = piece;
    a->fed_out = out_at;
    ahead_drop_raw(a);
    if (*changed && !x->unpacking)
        cgs_feed_idle(f->dash, &x->feed);
}

/* Helpers for the files after the first, when a one-shot read has several and cores to spare. */
static int ahead_start(struct cgs_follow *f, struct ahead_pool *p, pthread_t *tid)
{
    uint32_t files = 0;
    int want = cgs_load_threads() - 1, n = 0;
    if (!f->blocking || f->polled || want < 1)
        return 0;
    for (uint32_t i = 0; i < f->n_files; i++)
        files += !f->files[i].stream;
    if (files < 2)
        return 0;
    for (uint32_t i = 0; i < f->n_files; i++) {
        f->files[i].ahead = cgs_xcalloc(1, sizeof(struct cgs_ahead));
        f->files[i].ahead->state = f->files[i].stream ? AHEAD_HERE : AHEAD_WAITING;
    }
    memset(p, 0, sizeof(*p));
    p->f = f;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if (want > AHEAD_MAX_HELPERS)
        want = AHEAD_MAX_HELPERS;
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

/* Before reading x here: wait for a helper reading it; true when a helper's read is there. */
static bool ahead_claim(struct ahead_pool *p, uint32_t i)
{
    struct cgs_follow_file *x = &p->f->files[i];
    bool done;
    pthread_mutex_lock(&p->mu);
    if (x->ahead->state == AHEAD_WAITING)
        x->ahead->state = AHEAD_HERE;
    /* while a helper reads it, read one of the files after it as a helper would */
    while (x->ahead->state == AHEAD_BUSY)
        if (p->held > AHEAD_MAX_HELD || !ahead_one(p, i + 1))
            pthread_cond_wait(&p->cv, &p->mu);
    done = x->ahead->state == AHEAD_DONE;
    pthread_mutex_unlock(&p->mu);
    return done;
}

static void ahead_fed(struct ahead_pool *p, struct cgs_follow_file *x)
{
    pthread_mutex_lock(&p->mu);
    p->held -= x->ahead->held;
    x->ahead->held = 0;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

static void ahead_stop(struct ahead_pool *p, pthread_t *tid, int n)
{
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < n; i++)
        pthread_join(tid[i], NULL);
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
            ahead_replay(f, x, &changed);
            ahead_fed(&pool, x);
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
            /* what the end gave a helper's unpacker */
            struct cgs_ahead *a = x->ahead;
            struct sink_ctx c = {f, x, false};
            size_t at = a->fed_out;
            for (uint32_t k = a->fed_pieces;
                 x->unpacking && !x->error[0] && !x->refused && k < a->n_pieces;
                 at += a->pieces[k++].len)
                if (a->pieces[k].chunk == AHEAD_FINISH)
                    to_feed(&c, a->out + at, a->pieces[k].len);
            if (x->unpacking && !x->error[0] && !x->refused && a->finish_error[0])
                snprintf(x->error, sizeof(x->error), "%s", a->finish_error);
        } else if (x->unpacking && !x->error[0] && !x->refused) { /* a refused file was not read on */
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
