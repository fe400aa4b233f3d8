/*
 * libcgscope-cupti.so: records the CUDA work of an unmodified process for `cgscope report`.
 *
 * Loaded through CUDA_INJECTION64_PATH (InitializeInjection, called inside cuInit) and
 * NVTX_INJECTION64_PATH (InitializeInjectionNvtx2, called by each NVTX module on its first
 * call): the same file, one state. It records
 *   - every kernel, memcpy and memset (CUPTI activity, no RUNTIME/DRIVER tracing);
 *   - at the entry of every runtime/driver API whose name has Launch, Memcpy or Memset:
 *     correlation id, thread, time and the thread's innermost NVTX range;
 *   - NVTX push/pop of the default domain (its own hooks, so no CUPTI NVTX support needed);
 *   - CUDA-graph nodes created during capture (with the capturing thread's range) and the
 *     clone map of instantiation, so replayed kernels reach the range they were captured in.
 * Attribution is done later, offline (lib/run/prof.c). Records go into per-thread buffers (no
 * formatting or I/O on the application's threads); a writer thread writes full buffers, and
 * everything left is flushed at exit, on SIGTERM/SIGINT (when the process has no handler of
 * its own) and when CUPTI hands back its buffers. A forked child records nothing.
 *
 * Output, one file per process, in $CGSCOPE_TRACE_DIR (default "."):
 *   cgscope-<pid>[-rank<R>].cgstrace   (written as .part, renamed when complete)
 *   cgscope-<pid>.log                  what the library itself has to say
 * The format is lib/run/proftrace.h (docs/trace-format.md). Nothing is printed to stdout.
 */
#define _GNU_SOURCE
#include <cupti.h>
#include <dlfcn.h>
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/run/proftrace.h"

#define API __attribute__((visibility("default")))

/* ---- the activity record layouts, by the CUPTI headers this is built with ------------------- */
#if CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 kernel_rec;
typedef CUpti_ActivityMemcpy6 memcpy_rec;
typedef CUpti_ActivityMemset4 memset_rec;
#define CUPTI_FAMILY 13
#elif CUPTI_API_VERSION >= 18
/* CUDA 11.8 (Debian's libcupti-dev) through 12.x: Kernel8 is the last layout 11.8 knows
 * and is still declared, with the same leading fields, by 12.x's headers */
typedef CUpti_ActivityKernel8 kernel_rec;
typedef CUpti_ActivityMemcpy5 memcpy_rec;
typedef CUpti_ActivityMemset4 memset_rec;
#define CUPTI_FAMILY 11
#else
#error "libcgscope-cupti needs CUPTI 11.8 (API version 18) or newer"
#endif

#define CHUNK_BYTES ((size_t)1 << 20)
#define ACT_BUFFER_BYTES ((size_t)8 << 20)
#define MAX_DEPTH 256

struct chunk {
    struct chunk *next;
    size_t used, written, cap;
    unsigned char data[];
};

struct tbuf {
    struct tbuf *next_all;
    pthread_mutex_t mu;
    struct chunk *cur;
    uint32_t tid;
    uint32_t depth;
    uint64_t stack[MAX_DEPTH];
};

static struct {
    pthread_once_t once;
    atomic_int off;       /* 1: record nothing (finished, forked child, or failed) */
    atomic_int finishing; /* finish() ran or runs */
    int cupti_on;
    pid_t pid;
    char dir[4096];
    char path[4200], part[4210], logpath[4200];
    int fd;
    pthread_mutex_t file_mu, all_mu, full_mu, name_mu;
    struct tbuf *all;
    struct chunk *full_head, **full_tail;
    atomic_uint_fast64_t next_uid;
    atomic_uint_fast64_t records, lost, dropped;
    int wake[2], reply[2];
    pthread_t writer;
    int writer_on;
    volatile sig_atomic_t sig;
    struct sigaction old_term, old_int;
    int have_term, have_int;
    CUpti_SubscriberHandle sub;
    unsigned char graph_cbid[2][1024]; /* [runtime, driver] cbid launches a graph */
    /* kernel names, by content */
    struct name_slot { uint64_t hash; char *text; uint32_t id; } *names;
    size_t names_cap, names_n;
} G = {
    .once = PTHREAD_ONCE_INIT,
    .fd = -1,
    .file_mu = PTHREAD_MUTEX_INITIALIZER,
    .all_mu = PTHREAD_MUTEX_INITIALIZER,
    .full_mu = PTHREAD_MUTEX_INITIALIZER,
    .name_mu = PTHREAD_MUTEX_INITIALIZER,
    .wake = {-1, -1},
    .reply = {-1, -1},
};

static __thread struct tbuf *t_buf;
static pthread_key_t t_key;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the log: a line at a time, opened and closed (never on a hot path) --------------------- */
static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    int n, fd;

    if (!G.logpath[0])
        return;
    n = snprintf(line, sizeof(line), "[cgscope-cupti %ld] ", (long)G.pid);
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    fd = open(G.logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (write(fd, line, (size_t)n) < 0) {
        /* nothing more to do: the log is best effort */
    }
    close(fd);
}

/* ---- per-thread buffers ----------------------------------------------------------------------- */
static struct chunk *chunk_new(void)
{
    struct chunk *c = malloc(sizeof(*c) + CHUNK_BYTES);
    if (!c)
        return NULL;
    c->next = NULL;
    c->used = c->written = 0;
    c->cap = CHUNK_BYTES;
    return c;
}

static void retire(struct chunk *c)
{
    char b = 'c';
    pthread_mutex_lock(&G.full_mu);
    c->next = NULL;
    *G.full_tail = c;
    G.full_tail = &c->next;
    pthread_mutex_unlock(&G.full_mu);
    if (G.wake[1] >= 0 && write(G.wake[1], &b, 1) < 0) {
        /* a full pipe already has a wake-up in it */
    }
}

static void thread_gone(void *p)
{
    struct tbuf *tb = p;
    pthread_mutex_lock(&tb->mu);
    if (tb->cur && !atomic_load(&G.finishing)) {
        retire(tb->cur);
        tb->cur = NULL;
    }
    pthread_mutex_unlock(&tb->mu);
}

static struct tbuf *tbuf_get(void)
{
    struct tbuf *tb = t_buf;
    if (tb)
        return tb;
    tb = calloc(1, sizeof(*tb));
    if (!tb)
        return NULL;
    pthread_mutex_init(&tb->mu, NULL);
    tb->tid = (uint32_t)syscall(SYS_gettid);
    pthread_mutex_lock(&G.all_mu);
    tb->next_all = G.all;
    G.all = tb;
    pthread_mutex_unlock(&G.all_mu);
    t_buf = tb;
    pthread_setspecific(t_key, tb);
    return tb;
}

/* Append one record: head fields, then payload (plen bytes), then tail (tlen bytes, NUL added). */
static void emit(struct tbuf *tb, uint16_t type, uint32_t tid, const void *payload, size_t plen,
                 const char *tail, size_t tlen)
{
    size_t size, words;
    struct cgs_trace_rec h;
    unsigned char *p;

    if (!tb)
        return;
    if (tail) {
        size_t room = CGS_TRACE_MAX_RECORD - sizeof(h) - plen - 8;
        if (tlen > room)
            tlen = room;
    }
    size = sizeof(h) + plen + (tail ? tlen + 1 : 0);
    words = (size + 7) / 8;
    pthread_mutex_lock(&tb->mu);
    if (!tb->cur || tb->cur->used + words * 8 > tb->cur->cap) {
        struct chunk *c = chunk_new();
        if (!c) {
            pthread_mutex_unlock(&tb->mu);
            atomic_fetch_add(&G.lost, 1);
            return;
        }
        if (tb->cur)
            retire(tb->cur);
        tb->cur = c;
    }
    p = tb->cur->data + tb->cur->used;
    h.type = type;
    h.words = (uint16_t)words;
    h.tid = tid;
    memcpy(p, &h, sizeof(h));
    memcpy(p + sizeof(h), payload, plen);
    if (tail) {
        memcpy(p + sizeof(h) + plen, tail, tlen);
        p[sizeof(h) + plen + tlen] = 0;
    }
    memset(p + size, 0, words * 8 - size);
    tb->cur->used += words * 8;
    pthread_mutex_unlock(&tb->mu);
    atomic_fetch_add_explicit(&G.records, 1, memory_order_relaxed);
}

static void info(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void info(const char *key, const char *fmt, ...)
{
    char text[2048];
    int n = snprintf(text, sizeof(text), "%s=", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text + n, sizeof(text) - (size_t)n, fmt, ap);
    va_end(ap);
    emit(tbuf_get(), CGS_TR_INFO, 0, "", 0, text, strlen(text));
}

/* ---- the file --------------------------------------------------------------------------------- */
static int write_all(int fd, const void *p, size_t n)
{
    const unsigned char *q = p;
    while (n) {
        ssize_t w = write(fd, q, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        q += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Called with file_mu held. */
static int file_open_locked(void)
{
    struct cgs_trace_header h;

    if (G.fd >= 0)
        return 0;
    if (!G.part[0])
        return -1;
    G.fd = open(G.part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (G.fd < 0) {
        logf_("cannot write %s: %s", G.part, strerror(errno));
        G.part[0] = 0;
        return -1;
    }
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, CGS_TRACE_MAGIC, 8);
    h.version = CGS_TRACE_VERSION;
    h.bom = CGS_TRACE_BOM;
    h.header_size = sizeof(h);
    h.pid = (uint64_t)G.pid;
    return write_all(G.fd, &h, sizeof(h));
}

static void write_chunk_locked(struct chunk *c)
{
    if (c->used > c->written && file_open_locked() == 0) {
        if (write_all(G.fd, c->data + c->written, c->used - c->written) < 0)
            logf_("write %s: %s", G.part, strerror(errno));
        c->written = c->used;
    }
}

/* The full chunks out. A chunk is taken off the list and written under the file's lock: taken
 * off before it, the writer thread could lose the race for the lock to finish(), which would
 * write END and close the file with that chunk in the writer's hands (a thread's last ranges
 * lost: CI saw it once; a 20 ms pause there lost them in 55 of 60 runs). */
static void write_full(void)
{
    for (;;) {
        struct chunk *c;
        pthread_mutex_lock(&G.file_mu);
        pthread_mutex_lock(&G.full_mu);
        c = G.full_head;
        if (c) {
            G.full_head = c->next;
            if (!G.full_head)
                G.full_tail = &G.full_head;
        }
        pthread_mutex_unlock(&G.full_mu);
        if (c)
            write_chunk_locked(c);
        pthread_mutex_unlock(&G.file_mu);
        if (!c)
            return;
        free(c);
    }
}

static int lock_briefly(pthread_mutex_t *mu)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 200000000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    return pthread_mutex_timedlock(mu, &ts);
}

/* Everything out, END, rename: once, from atexit or the writer thread (a signal). */
static void finish(uint32_t reason, uint32_t signo)
{
    struct cgs_tr_end e;
    struct tbuf *tb;
    size_t dropped = 0;

    if (atomic_exchange(&G.finishing, 1) || getpid() != G.pid)
        return;
    if (G.cupti_on) {
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        if (cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped) == CUPTI_SUCCESS && dropped)
            atomic_fetch_add(&G.dropped, dropped);
    }
    atomic_store(&G.off, 1);
    write_full();
    pthread_mutex_lock(&G.file_mu);
    pthread_mutex_lock(&G.all_mu);
    for (tb = G.all; tb; tb = tb->next_all) {
        if (lock_briefly(&tb->mu) != 0) {
            logf_("thread %u did not let go of its buffer; its last records are lost", tb->tid);
            continue;
        }
        if (tb->cur)
            write_chunk_locked(tb->cur);
        pthread_mutex_unlock(&tb->mu);
    }
    pthread_mutex_unlock(&G.all_mu);
    if (file_open_locked() == 0) {
        struct cgs_trace_rec h = {CGS_TR_END, (uint16_t)((sizeof(h) + sizeof(e)) / 8), 0};
        memset(&e, 0, sizeof(e));
        e.records = atomic_load(&G.records);
        e.dropped = atomic_load(&G.dropped);
        e.lost = atomic_load(&G.lost);
        e.reason = reason;
        e.signo = signo;
        if (write_all(G.fd, &h, sizeof(h)) == 0 && write_all(G.fd, &e, sizeof(e)) == 0 &&
            close(G.fd) == 0) {
            if (rename(G.part, G.path) != 0)
                logf_("rename %s: %s", G.part, strerror(errno));
            else
                logf_("wrote %s: %llu records, %s%llu dropped by CUPTI%s", G.path,
                      (unsigned long long)e.records,
                      G.cupti_on ? "" : "NVTX only (CUDA was never initialised), ",
                      (unsigned long long)e.dropped,
                      reason == CGS_END_SIGNAL ? " (on a signal)" : "");
        } else {
            logf_("write %s: %s", G.part, strerror(errno));
        }
        G.fd = -1;
        G.part[0] = 0; /* ended: no late chunk opens it again */
    }
    pthread_mutex_unlock(&G.file_mu);
}

static void at_exit(void)
{
    finish(CGS_END_EXIT, 0);
}

/* ---- the writer thread and signals ------------------------------------------------------------ */
static void *writer_main(void *arg)
{
    sigset_t all;
    (void)arg;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    for (;;) {
        char b[64];
        ssize_t n = read(G.wake[0], b, sizeof(b));
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            return NULL;
        }
        for (ssize_t i = 0; i < n; i++) {
            if (b[i] == 'S') {
                finish(CGS_END_SIGNAL, (uint32_t)G.sig);
                if (write(G.reply[1], "d", 1) < 0) {
                    /* the handler times out */
                }
            }
        }
        if (!atomic_load(&G.finishing))
            write_full();
    }
}

static void on_signal(int sig)
{
    struct sigaction *old = sig == SIGTERM ? &G.old_term : &G.old_int;
    int saved = errno;

    if (getpid() == G.pid && G.writer_on && !atomic_load(&G.finishing)) {
        struct pollfd p = {G.reply[0], POLLIN, 0};
        char b;
        G.sig = sig;
        if (write(G.wake[1], "S", 1) == 1 && poll(&p, 1, 5000) == 1 && read(G.reply[0], &b, 1)) {
            /* flushed */
        }
    }
    sigaction(sig, old, NULL);
    errno = saved;
    raise(sig);
}

static void watch_signal(int sig, struct sigaction *old, int *have)
{
    struct sigaction sa;
    if (sigaction(sig, NULL, old) != 0 || old->sa_handler != SIG_DFL ||
        (old->sa_flags & SA_SIGINFO))
        return; /* the process handles it (Python turns SIGINT into an exception, then exits) */
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    if (sigaction(sig, &sa, NULL) == 0)
        *have = 1;
}

static void in_child(void)
{
    /* a forked child never flushes: CUPTI's state is the parent's, and flushing it hangs */
    atomic_store(&G.off, 1);
    atomic_store(&G.finishing, 1);
    G.writer_on = 0;
}

/* ---- set-up shared by both entry points ------------------------------------------------------- */
static void rank_suffix(char *out, size_t n)
{
    const char *r = getenv("RANK");
    if (!r || !*r)
        r = getenv("LOCAL_RANK");
    out[0] = 0;
    if (r && *r && strlen(r) < 16 && strspn(r, "0123456789") == strlen(r))
        snprintf(out, n, "-rank%s", r);
}

static void cmdline_info(void)
{
    char buf[2048];
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    ssize_t n;
    if (fd < 0)
        return;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return;
    for (ssize_t i = 0; i < n; i++)
        if (buf[i] == 0)
            buf[i] = ' ';
    while (n > 0 && buf[n - 1] == ' ')
        n--;
    buf[n] = 0;
    info("cmdline", "%s", buf);
}

static void common_init(void)
{
    const char *dir = getenv("CGSCOPE_TRACE_DIR");
    const char *r;
    char rank[32];

    G.pid = getpid();
    G.full_tail = &G.full_head;
    atomic_store(&G.next_uid, 1);
    pthread_key_create(&t_key, thread_gone);
    if (!dir || !*dir)
        dir = ".";
    if (strlen(dir) >= sizeof(G.dir)) {
        atomic_store(&G.off, 1);
        return;
    }
    strcpy(G.dir, dir);
    rank_suffix(rank, sizeof(rank));
    snprintf(G.path, sizeof(G.path), "%s/cgscope-%ld%s.cgstrace", G.dir, (long)G.pid, rank);
    snprintf(G.part, sizeof(G.part), "%s.part", G.path);
    snprintf(G.logpath, sizeof(G.logpath), "%s/cgscope-%ld.log", G.dir, (long)G.pid);

    info("pid", "%ld", (long)G.pid);
    info("ppid", "%ld", (long)getppid());
    if ((r = getenv("RANK")) && *r)
        info("rank", "%.32s", r);
    if ((r = getenv("LOCAL_RANK")) && *r)
        info("local_rank", "%.32s", r);
    if ((r = getenv("CGSCOPE_NVTX_PREFIX")))
        info("nvtx_prefix", "%.256s", r);
    info("cupti_built", "%d", (int)CUPTI_API_VERSION);
    info("clock", "monotonic");
    cmdline_info();

    if (pipe2(G.wake, O_CLOEXEC) == 0 && pipe2(G.reply, O_CLOEXEC) == 0 &&
        pthread_create(&G.writer, NULL, writer_main, NULL) == 0) {
        pthread_detach(G.writer);
        G.writer_on = 1;
        fcntl(G.wake[1], F_SETFL, O_NONBLOCK);
    } else {
        logf_("no writer thread (%s): buffers are written at exit", strerror(errno));
    }
    atexit(at_exit);
    pthread_atfork(NULL, NULL, in_child);
    watch_signal(SIGTERM, &G.old_term, &G.have_term);
    watch_signal(SIGINT, &G.old_int, &G.have_int);
}

static int ready(void)
{
    pthread_once(&G.once, common_init);
    return !atomic_load_explicit(&G.off, memory_order_relaxed);
}

/* ---- NVTX: the default domain's push and pop -------------------------------------------------- */
static int range_push(const char *name)
{
    struct tbuf *tb;
    struct cgs_tr_push p;
    uint32_t d;

    if (!ready() || !(tb = tbuf_get()))
        return -1;
    d = tb->depth;
    p.ts = now_ns();
    p.uid = atomic_fetch_add(&G.next_uid, 1);
    p.parent = d > 0 && d <= MAX_DEPTH ? tb->stack[d - 1] : 0;
    p.depth = d + 1;
    p.domain = 0;
    if (d < MAX_DEPTH)
        tb->stack[d] = p.uid;
    tb->depth = d + 1;
    if (!name)
        name = "";
    emit(tb, CGS_TR_PUSH, tb->tid, &p, sizeof(p), name, strlen(name));
    return (int)d;
}

static int range_pop(void)
{
    struct tbuf *tb;
    struct cgs_tr_pop p;
    uint32_t d;

    if (!ready() || !(tb = tbuf_get()))
        return -1;
    d = tb->depth;
    p.ts = now_ns();
    p.uid = d > 0 && d <= MAX_DEPTH ? tb->stack[d - 1] : 0;
    if (d > 0)
        tb->depth = d - 1;
    emit(tb, CGS_TR_POP, tb->tid, &p, sizeof(p), NULL, 0);
    return d > 0 ? (int)d - 1 : -1;
}

static uint64_t top_uid(struct tbuf *tb)
{
    uint32_t d = tb->depth;
    return d > 0 && d <= MAX_DEPTH ? tb->stack[d - 1] : 0;
}

static int NVTX_API h_push_a(const char *message)
{
    return range_push(message);
}

static int NVTX_API h_push_ex(const nvtxEventAttributes_t *a)
{
    const char *m = "";
    if (a && a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii)
        m = a->message.ascii;
    return range_push(m);
}

static int NVTX_API h_pop(void)
{
    return range_pop();
}

API int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get);
API int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
    const NvtxExportTableCallbacks *cb;
    const NvtxExportTableVersionInfo *vi;
    NvtxFunctionTable t = NULL;
    unsigned int n = 0;

    pthread_once(&G.once, common_init);
    if (!get || !(cb = get(NVTX_ETID_CALLBACKS)) || !cb->GetModuleFunctionTable)
        return 0;
    if ((vi = get(NVTX_ETID_VERSIONINFO)) && vi->struct_size >= sizeof(*vi) &&
        vi->SetInjectionNvtxVersion)
        vi->SetInjectionNvtxVersion(3);
    if (!cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &t, &n) || !t ||
        n <= NVTX_CBID_CORE_RangePop)
        return 0;
    *t[NVTX_CBID_CORE_RangePushA] = (NvtxFunctionPointer)h_push_a;
    *t[NVTX_CBID_CORE_RangePushEx] = (NvtxFunctionPointer)h_push_ex;
    *t[NVTX_CBID_CORE_RangePop] = (NvtxFunctionPointer)h_pop;
    return 1;
}

/* ---- CUPTI ------------------------------------------------------------------------------------ */
static uint32_t name_id(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    size_t len = strlen(s), i;
    uint32_t id;

    for (i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    if (!h)
        h = 1;
    pthread_mutex_lock(&G.name_mu);
    if (G.names_n * 2 >= G.names_cap) {
        size_t cap = G.names_cap ? G.names_cap * 2 : 1024;
        struct name_slot *ns = calloc(cap, sizeof(*ns));
        if (!ns) {
            pthread_mutex_unlock(&G.name_mu);
            return 0;
        }
        for (i = 0; i < G.names_cap; i++) {
            if (!G.names[i].hash)
                continue;
            size_t j = G.names[i].hash & (cap - 1);
            while (ns[j].hash)
                j = (j + 1) & (cap - 1);
            ns[j] = G.names[i];
        }
        free(G.names);
        G.names = ns;
        G.names_cap = cap;
    }
    for (i = h & (G.names_cap - 1); G.names[i].hash; i = (i + 1) & (G.names_cap - 1)) {
        if (G.names[i].hash == h && strcmp(G.names[i].text, s) == 0) {
            id = G.names[i].id;
            pthread_mutex_unlock(&G.name_mu);
            return id;
        }
    }
    G.names[i].text = strdup(s);
    if (!G.names[i].text) {
        pthread_mutex_unlock(&G.name_mu);
        return 0;
    }
    G.names[i].hash = h;
    id = G.names[i].id = (uint32_t)++G.names_n;
    {
        struct cgs_tr_name r = {id, (uint32_t)len};
        emit(tbuf_get(), CGS_TR_NAME, 0, &r, sizeof(r), s, len);
    }
    pthread_mutex_unlock(&G.name_mu);
    return id;
}

static void CUPTIAPI buf_request(uint8_t **buf, size_t *size, size_t *max_records)
{
    void *p = NULL;
    if (posix_memalign(&p, 8, ACT_BUFFER_BYTES) != 0)
        p = NULL;
    *buf = p;
    *size = p ? ACT_BUFFER_BYTES : 0;
    *max_records = 0;
}

/* The fields every GPU record has, from a CUPTI activity record into ours. */
#define COPY_COMMON(r, a)                                                                          \
    do {                                                                                           \
        memset(&(r), 0, sizeof(r));                                                                \
        (r).start = (a)->start;                                                                    \
        (r).end = (a)->end;                                                                        \
        (r).graph_node = (a)->graphNodeId;                                                         \
        (r).corr = (a)->correlationId;                                                             \
        (r).graph_id = (a)->graphId;                                                               \
        (r).device = (a)->deviceId;                                                                \
        (r).stream = (a)->streamId;                                                                \
    } while (0)

static void CUPTIAPI buf_complete(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
                                  size_t valid)
{
    CUpti_Activity *rec = NULL;
    struct tbuf *tb = atomic_load(&G.off) ? NULL : tbuf_get();
    size_t dropped = 0;

    (void)size;
    while (tb && cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
        switch (rec->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            const kernel_rec *k = (const kernel_rec *)rec;
            struct cgs_tr_kernel r;
            COPY_COMMON(r, k);
            r.name = name_id(k->name ? k->name : "");
            r.grid[0] = k->gridX, r.grid[1] = k->gridY, r.grid[2] = k->gridZ;
            r.block[0] = k->blockX, r.block[1] = k->blockY, r.block[2] = k->blockZ;
            emit(tb, CGS_TR_KERNEL, 0, &r, sizeof(r), NULL, 0);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            const memcpy_rec *m = (const memcpy_rec *)rec;
            struct cgs_tr_memcpy r;
            COPY_COMMON(r, m);
            r.bytes = m->bytes;
            r.kind = m->copyKind;
            r.src_kind = m->srcKind;
            r.dst_kind = m->dstKind;
            emit(tb, CGS_TR_MEMCPY, 0, &r, sizeof(r), NULL, 0);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            const memset_rec *m = (const memset_rec *)rec;
            struct cgs_tr_memset r;
            COPY_COMMON(r, m);
            r.bytes = m->bytes;
            r.value = m->value;
            emit(tb, CGS_TR_MEMSET, 0, &r, sizeof(r), NULL, 0);
            break;
        }
        default:
            break;
        }
    }
    if (tb && cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS &&
        dropped) {
        struct cgs_tr_count c = {dropped};
        atomic_fetch_add(&G.dropped, dropped);
        emit(tb, CGS_TR_DROPPED, 0, &c, sizeof(c), NULL, 0);
    }
    free(buf);
}

static void CUPTIAPI on_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
                                 const void *data)
{
    struct tbuf *tb;

    (void)ud;
    if (atomic_load_explicit(&G.off, memory_order_relaxed) || !(tb = tbuf_get()))
        return;
    if (dom == CUPTI_CB_DOMAIN_RUNTIME_API || dom == CUPTI_CB_DOMAIN_DRIVER_API) {
        const CUpti_CallbackData *cd = data;
        struct cgs_tr_launch r;
        int api = dom == CUPTI_CB_DOMAIN_RUNTIME_API ? 0 : 1;
        if (cd->callbackSite != CUPTI_API_ENTER)
            return;
        r.ts = now_ns();
        r.uid = top_uid(tb);
        r.corr = cd->correlationId;
        r.cbid = (uint16_t)cbid;
        r.api = (uint8_t)(api + 1);
        r.graph = cbid < 1024 ? G.graph_cbid[api][cbid] : 0;
        emit(tb, CGS_TR_LAUNCH, tb->tid, &r, sizeof(r), NULL, 0);
    } else if (dom == CUPTI_CB_DOMAIN_RESOURCE) {
        const CUpti_ResourceData *rd = data;
        const CUpti_GraphData *gd = rd ? rd->resourceDescriptor : NULL;
        if (!gd)
            return;
        if (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED && gd->node) {
            struct cgs_tr_gnode r;
            memset(&r, 0, sizeof(r));
            if (cuptiGetGraphNodeId(gd->node, &r.node) != CUPTI_SUCCESS)
                return;
            if (gd->graph)
                cuptiGetGraphId(gd->graph, &r.graph_id);
            r.uid = top_uid(tb);
            emit(tb, CGS_TR_GNODE, tb->tid, &r, sizeof(r), NULL, 0);
        } else if (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED && gd->node && gd->originalNode) {
            struct cgs_tr_gclone r;
            if (cuptiGetGraphNodeId(gd->node, &r.node) != CUPTI_SUCCESS ||
                cuptiGetGraphNodeId(gd->originalNode, &r.original) != CUPTI_SUCCESS)
                return;
            emit(tb, CGS_TR_GCLONE, tb->tid, &r, sizeof(r), NULL, 0);
        }
    }
}

static const char *cupti_err(CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        s = "unknown CUPTI error";
    return s;
}

static int fail(const char *what, CUptiResult r)
{
    logf_("%s failed: %s; nothing is recorded", what, cupti_err(r));
    info("error", "%s: %s", what, cupti_err(r));
    atomic_store(&G.off, 1);
    return 1;
}

static unsigned enable_launch_callbacks(CUpti_CallbackDomain dom, int api, uint32_t n)
{
    unsigned count = 0;
    for (uint32_t id = 1; id < n; id++) {
        const char *name = NULL;
        if (cuptiGetCallbackName(dom, id, &name) != CUPTI_SUCCESS || !name)
            continue;
        if (!strstr(name, "Launch") && !strstr(name, "Memcpy") && !strstr(name, "Memset"))
            continue;
        if (cuptiEnableCallback(1, G.sub, dom, id) == CUPTI_SUCCESS)
            count++;
        if (id < 1024 && strstr(name, "GraphLaunch"))
            G.graph_cbid[api][id] = 1;
    }
    return count;
}

API int InitializeInjection(void);
API int InitializeInjection(void)
{
    static atomic_int done;
    uint32_t version = 0;
    CUptiResult r;
    unsigned n;

    if (atomic_exchange(&done, 1) || !ready())
        return 1;
    if ((r = cuptiGetVersion(&version)) != CUPTI_SUCCESS)
        return fail("cuptiGetVersion", r);
    info("cupti_runtime", "%u", version);
    if ((version >= 130000) != (CUPTI_FAMILY == 13) || version < (uint32_t)CUPTI_API_VERSION) {
        logf_("built against CUPTI API version %d, but this process loaded CUPTI %u: the record "
              "layouts differ; build profiler/ against the CUDA this process uses "
              "(make profiler CUDA_HOME=...)", (int)CUPTI_API_VERSION, version);
        info("error", "CUPTI version mismatch: built %d, loaded %u", (int)CUPTI_API_VERSION,
             version);
        atomic_store(&G.off, 1);
        return 1;
    }
#if CUPTI_API_VERSION >= 130000
    {
        char other[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 64] = "";
        CUpti_SubscriberParams sp;
        memset(&sp, 0, sizeof(sp));
        sp.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
        sp.subscriberName = "cgscope";
        sp.oldSubscriberName = other;
        sp.oldSubscriberSize = sizeof(other);
        r = cuptiSubscribe_v2(&G.sub, on_callback, NULL, &sp);
        if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
            logf_("CUPTI is already in use by %s: cgscope cannot profile alongside "
                  "torch.profiler, Nsight Systems or Nsight Compute", other[0] ? other
                  : "another tool");
            info("error", "CUPTI already in use by %s", other[0] ? other : "another tool");
            atomic_store(&G.off, 1);
            return 1;
        }
    }
#else
    r = cuptiSubscribe(&G.sub, on_callback, NULL);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        logf_("CUPTI is already in use by another tool: cgscope cannot profile alongside "
              "torch.profiler, Nsight Systems or Nsight Compute");
        info("error", "CUPTI already in use by another tool");
        atomic_store(&G.off, 1);
        return 1;
    }
#endif
    if (r != CUPTI_SUCCESS)
        return fail("cuptiSubscribe", r);
    if ((r = cuptiActivityRegisterCallbacks(buf_request, buf_complete)) != CUPTI_SUCCESS)
        return fail("cuptiActivityRegisterCallbacks", r);
    cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED);
    cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED);
    n = enable_launch_callbacks(CUPTI_CB_DOMAIN_RUNTIME_API, 0, CUPTI_RUNTIME_TRACE_CBID_SIZE);
    n += enable_launch_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, 1, CUPTI_DRIVER_TRACE_CBID_SIZE);
    if ((r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) != CUPTI_SUCCESS ||
        (r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY)) != CUPTI_SUCCESS ||
        (r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET)) != CUPTI_SUCCESS)
        return fail("cuptiActivityEnable", r);
    G.cupti_on = 1;
    {
        /* the libcupti this process uses: torch's own copy when torch loaded one first */
        Dl_info where;
        const char *from = "?";
        void *fn;
        CUptiResult (*sym)(uint32_t *) = cuptiGetVersion;
        memcpy(&fn, &sym, sizeof(fn)); /* dladdr takes an object pointer (POSIX allows it) */
        if (dladdr(fn, &where) && where.dli_fname)
            from = where.dli_fname;
        info("cupti_path", "%.1024s", from);
        logf_("recording: CUPTI %u from %s (built with %d), %u launch callbacks, trace %s",
              version, from, (int)CUPTI_API_VERSION, n, G.path);
    }
    return 1;
}
