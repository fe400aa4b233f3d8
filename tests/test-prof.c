/*
 * lib/prof: the CUPTI trace reader and the attribution, on traces recorded on the H200 by
 * tests/gpu/profile_check.py (checked there against torch.profiler; the per-piece numbers
 * torch.profiler measured in its own process lie beside them, torch_profiler.json) and on
 * small traces built here, whose answers follow from the attribution rules in prof.h.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/readers/file.h"
#include "lib/run/prof.h"
#include "lib/run/proftrace.h"

#define DATA "tests/data/prof/"

/* ---- the recorded traces ------------------------------------------------------------------ */

static int name_cmp(const void *a, const void *b)
{
    return strcmp(a, b);
}

static void read_dir(const char *dir, struct cgs_prof_trace *t, uint32_t max, uint32_t *n)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    char names[8][256];
    uint32_t k = 0;
    assert_non_null(dp);
    while ((e = readdir(dp)) && k < 8)
        if (strstr(e->d_name, ".cgstrace"))
            snprintf(names[k++], sizeof(names[0]), "%s", e->d_name);
    closedir(dp);
    qsort(names, k, sizeof(names[0]), name_cmp); /* ranks in name order */
    assert_true(k >= 1 && k <= max);
    for (uint32_t i = 0; i < k; i++) {
        char path[4096];
        struct cgs_diag d = CGS_DIAG_INIT;
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        assert_int_equal(cgs_prof_read(path, &t[i], &d), 0);
        assert_true(t[i].complete);
        assert_false(t[i].truncated);
        assert_null(t[i].error);
        assert_int_equal(t[i].dropped, 0);
    }
    *n = k;
}

static cJSON *truth(const char *mode)
{
    char path[256], *buf = NULL;
    size_t len = 0;
    struct cgs_diag d = CGS_DIAG_INIT;
    cJSON *doc;
    snprintf(path, sizeof(path), DATA "%s/torch_profiler.json", mode);
    assert_int_equal(cgs_read_file(path, &buf, &len, 1 << 20, &d), 0);
    doc = cJSON_Parse(buf);
    free(buf);
    assert_non_null(doc);
    return doc;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    assert_true(cJSON_IsNumber(x));
    return x->valuedouble;
}

/* Every piece torch.profiler saw: the same kernel, memcpy and memset counts, GPU time within
 * 2% (a separate process: the durations differ a little, the counts must not). */
static void against_torch(const char *mode, struct cgs_prof_report *out)
{
    struct cgs_prof_trace t[2];
    uint32_t n = 0;
    struct cgs_diag d = CGS_DIAG_INIT;
    cJSON *doc = truth(mode);
    const cJSON *pieces = cJSON_GetObjectItemCaseSensitive(doc, "pieces"), *p;
    char dir[128];
    unsigned seen = 0;

    snprintf(dir, sizeof(dir), DATA "%s", mode);
    read_dir(dir, t, 1, &n);
    assert_int_equal(cgs_prof_report_build(t, n, NULL, out, &d), 0);
    assert_string_equal(out->prefix, CGS_PROF_DEFAULT_PREFIX);
    cJSON_ArrayForEach(p, pieces)
    {
        const struct cgs_prof_group *g = cgs_prof_find(out, p->string);
        double ns = num(p, "gpu_ns");
        assert_non_null(g);
        assert_int_equal(g->kernels.count, (uint64_t)num(p, "kernels"));
        assert_int_equal(g->memcpy.count, (uint64_t)num(p, "memcpy"));
        assert_int_equal(g->memset.count, (uint64_t)num(p, "memset"));
        assert_true(ns > 0);
        assert_true((double)g->kernels.ns > ns * 0.98 && (double)g->kernels.ns < ns * 1.02);
        seen++;
    }
    /* and nothing torch.profiler did not see as a piece */
    assert_int_equal(seen, out->n_groups);
    assert_true(seen >= 5);
    for (uint32_t i = 0; i < n; i++)
        cgs_prof_trace_release(&t[i]);
    cJSON_Delete(doc);
}

static void test_eager(void **state)
{
    struct cgs_prof_report r;
    (void)state;
    against_torch("eager", &r);
    /* pieces in their split order, and nothing replayed */
    assert_string_equal(r.groups[0].name, "submod_0");
    assert_string_equal(r.groups[0].range, "cgscope:submod_0");
    for (uint32_t i = 0; i < r.n_groups; i++) {
        assert_int_equal(r.groups[i].graph_replays, 0);
        /* warm-up 3 + 5 x 2 timed steps */
        assert_int_equal(r.groups[i].calls, 13);
        assert_true(r.groups[i].cpu_ns > 0);
    }
    /* kernels come demangled, by GPU time */
    assert_true(r.n_kernels > 3);
    for (uint32_t i = 1; i < r.n_kernels; i++)
        assert_true(r.kernels[i - 1].stat.ns >= r.kernels[i].stat.ns);
    {
        bool layer_norm = false;
        for (uint32_t i = 0; i < r.n_kernels; i++) {
            assert_true(strncmp(r.kernels[i].name, "_Z", 2) != 0);
            layer_norm |= strstr(r.kernels[i].name, "vectorized_layer_norm_kernel<float") != NULL;
        }
        assert_true(layer_norm);
    }
    cgs_prof_report_release(&r);
}

static void test_cudagraph(void **state)
{
    struct cgs_prof_report r;
    (void)state;
    against_torch("cudagraph", &r);
    for (uint32_t i = 0; i < r.n_groups; i++) {
        const struct cgs_prof_group *g = &r.groups[i];
        if (g->graph_kernels == 0) /* splitting-op pieces stay eager */
            continue;
        /* the bridge: call 1 warms up, call 2 captures and replays, then a replay a call */
        assert_int_equal(g->graph_replays, g->calls - 1);
        /* every replayed kernel reached its piece through the capture-time node map */
        assert_int_equal(g->captured_kernels, g->graph_kernels);
    }
    assert_true(r.groups[0].graph_replays > 0);
    cgs_prof_report_release(&r);
}

/* Per-call samples (the diff's GPU time): a call is a piece's range instance or a CUDA graph
 * replay, so a piece has as many samples as calls (eager; with CUDA graphs the warm-up call plus
 * one replay a call after it), and the samples add up to the piece's kernel time; a kernel's
 * samples add up to its time in the piece; work in no piece is a sample a record. */
static void samples_of(const char *mode, uint32_t max)
{
    struct cgs_prof_trace t[2];
    uint32_t n = 0;
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_prof_opts o = {NULL, CGS_PROF_BY_PIECE, true};
    struct cgs_prof_report r, plain;
    char dir[128];
    snprintf(dir, sizeof(dir), DATA "%s", mode);
    read_dir(dir, t, max, &n);
    assert_int_equal(cgs_prof_report_build(t, n, &o, &r, &d), 0);
    assert_int_equal(cgs_prof_report_build(t, n, NULL, &plain, &d), 0);
    assert_int_equal(r.n_groups, plain.n_groups);
    for (uint32_t i = 0; i <= r.n_groups; i++) {
        const struct cgs_prof_group *g = i < r.n_groups ? &r.groups[i] : &r.none;
        const struct cgs_prof_group *p = i < r.n_groups ? &plain.groups[i] : &plain.none;
        uint64_t sum = 0;
        assert_null(p->per_call.ns); /* kept only when asked */
        assert_int_equal(g->kernels.ns, p->kernels.ns);
        if (i < r.n_groups)
            assert_int_equal(g->per_call.n, g->calls);
        else
            assert_int_equal(g->per_call.n, g->kernels.count);
        for (uint32_t c = 0; c < g->per_call.n; c++) {
            sum += g->per_call.ns[c];
            if (c)
                assert_true(g->per_call.ns[c - 1] <= g->per_call.ns[c]);
        }
        assert_int_equal(sum, g->kernels.ns);
        for (uint32_t k = 0; k < g->n_top; k++) {
            const struct cgs_prof_pk *pk = &g->top[k];
            uint64_t ks = 0;
            assert_true(pk->per_call.n >= 1 && pk->per_call.n <= g->per_call.n);
            assert_true(pk->per_call.n <= pk->stat.count);
            for (uint32_t c = 0; c < pk->per_call.n; c++)
                ks += pk->per_call.ns[c];
            assert_int_equal(ks, pk->stat.ns);
        }
    }
    cgs_prof_report_release(&r);
    cgs_prof_report_release(&plain);
    for (uint32_t i = 0; i < n; i++)
        cgs_prof_trace_release(&t[i]);
}

static void test_samples(void **state)
{
    (void)state;
    samples_of("eager", 1);
    samples_of("cudagraph", 1);
    samples_of("train", 1);
    samples_of("ranks", 2);
    samples_of("breaks", 1);
}

static void test_train(void **state)
{
    struct cgs_prof_report r;
    struct cgs_prof_trace t;
    struct cgs_prof_opts o = {NULL, CGS_PROF_BY_RANGE, false};
    struct cgs_diag d = CGS_DIAG_INIT;
    uint32_t n = 0;
    const struct cgs_prof_group *step;
    (void)state;
    against_torch("train", &r);
    /* the backward is in no piece: it runs after the pieces' ranges closed */
    assert_true(r.none.kernels.count > r.kernels_total.count / 2);
    cgs_prof_report_release(&r);

    /* by range: the backward's kernels, launched from autograd's thread, go to the range the
     * main thread has open meanwhile */
    read_dir(DATA "train", &t, 1, &n);
    assert_int_equal(cgs_prof_report_build(&t, 1, &o, &r, &d), 0);
    step = cgs_prof_find(&r, "train_step");
    assert_non_null(step);
    assert_true(step->any_thread > 0);
    assert_int_equal(step->calls, 13);
    /* the piece ranges are innermost for the forward: train_step holds the rest */
    assert_int_equal(r.none.kernels.count + step->kernels.count +
                         cgs_prof_find(&r, "cgscope:submod_0")->kernels.count +
                         cgs_prof_find(&r, "cgscope:submod_1")->kernels.count +
                         cgs_prof_find(&r, "cgscope:submod_2")->kernels.count +
                         cgs_prof_find(&r, "cgscope:submod_3")->kernels.count +
                         cgs_prof_find(&r, "cgscope:submod_4")->kernels.count,
                     r.kernels_total.count);
    cgs_prof_report_release(&r);
    cgs_prof_trace_release(&t);
}

static void test_ranks(void **state)
{
    struct cgs_prof_trace t[2];
    struct cgs_prof_report r;
    struct cgs_diag d = CGS_DIAG_INIT;
    uint32_t n = 0;
    (void)state;
    read_dir(DATA "ranks", t, 2, &n);
    assert_int_equal(n, 2);
    assert_int_equal(t[0].rank, 0);
    assert_int_equal(t[1].rank, 1);
    assert_int_equal(cgs_prof_report_build(t, n, NULL, &r, &d), 0);
    assert_int_equal(r.n_traces, 2);
    for (uint32_t i = 0; i < r.n_groups; i++) {
        const struct cgs_prof_group *g = &r.groups[i];
        /* the same work on both ranks, summed */
        assert_int_equal(g->per_trace[0].count, g->per_trace[1].count);
        assert_int_equal(g->per_trace[0].count + g->per_trace[1].count, g->kernels.count);
    }
    cgs_prof_report_release(&r);
    cgs_prof_trace_release(&t[0]);
    cgs_prof_trace_release(&t[1]);
}

static void test_sigterm(void **state)
{
    struct cgs_prof_trace t;
    uint32_t n = 0;
    (void)state;
    read_dir(DATA "sigterm", &t, 1, &n);
    assert_int_equal(t.end_reason, CGS_END_SIGNAL);
    assert_int_equal(t.signo, 15);
    cgs_prof_trace_release(&t);
}

/* Cut anywhere, a trace reads up to the cut (never past, never a crash). */
static void test_truncated(void **state)
{
    char *buf = NULL;
    size_t len = 0;
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_prof_trace full, t;
    (void)state;
    assert_int_equal(cgs_read_file(DATA "eager/cgscope-1107.cgstrace", &buf, &len, 1 << 24, &d),
                     0);
    assert_int_equal(cgs_prof_parse(buf, len, "x", &full, &d), 0);
    for (size_t cut = sizeof(struct cgs_trace_header); cut < len; cut += 331) {
        struct cgs_diag d2 = CGS_DIAG_INIT;
        assert_int_equal(cgs_prof_parse(buf, cut, "x", &t, &d2), 0);
        assert_false(t.complete);
        assert_true(t.n_work <= full.n_work);
        assert_true(t.n_launches <= full.n_launches);
        if (cut % 8)
            assert_true(t.truncated);
        cgs_prof_trace_release(&t);
    }
    /* shorter than the header: not a trace */
    assert_true(cgs_prof_parse(buf, 20, "x", &t, &d) < 0);
    assert_int_equal(d.code, CGS_E_FORMAT);
    cgs_prof_trace_release(&t);
    cgs_prof_trace_release(&full);
    free(buf);
}

/* ---- traces built here ---------------------------------------------------------------------- */

struct w {
    unsigned char b[1 << 16];
    size_t n;
};

static void w_header(struct w *w)
{
    struct cgs_trace_header h;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, CGS_TRACE_MAGIC, 8);
    h.version = CGS_TRACE_VERSION;
    h.bom = CGS_TRACE_BOM;
    h.header_size = sizeof(h);
    h.pid = 42;
    memcpy(w->b, &h, sizeof(h));
    w->n = sizeof(h);
}

static void w_rec(struct w *w, uint16_t type, uint32_t tid, const void *p, size_t plen,
                  const char *text)
{
    size_t tl = text ? strlen(text) + 1 : 0, size = 8 + plen + tl, words = (size + 7) / 8;
    struct cgs_trace_rec h = {type, (uint16_t)words, tid};
    memset(w->b + w->n, 0, words * 8);
    memcpy(w->b + w->n, &h, 8);
    memcpy(w->b + w->n + 8, p, plen);
    if (text)
        memcpy(w->b + w->n + 8 + plen, text, tl);
    w->n += words * 8;
}

static void push(struct w *w, uint32_t tid, uint64_t ts, uint64_t uid, uint64_t parent,
                 uint32_t depth, const char *name)
{
    struct cgs_tr_push p = {ts, uid, parent, depth, 0};
    w_rec(w, CGS_TR_PUSH, tid, &p, sizeof(p), name);
}

static void pop(struct w *w, uint32_t tid, uint64_t ts, uint64_t uid)
{
    struct cgs_tr_pop p = {ts, uid};
    w_rec(w, CGS_TR_POP, tid, &p, sizeof(p), NULL);
}

static void launch(struct w *w, uint32_t tid, uint64_t ts, uint64_t uid, uint32_t corr)
{
    struct cgs_tr_launch l = {ts, uid, corr, 1, 1, 0};
    w_rec(w, CGS_TR_LAUNCH, tid, &l, sizeof(l), NULL);
}

static void kernel(struct w *w, uint32_t corr, uint64_t ns, uint64_t node, uint32_t graph,
                   uint32_t name)
{
    struct cgs_tr_kernel k;
    memset(&k, 0, sizeof(k));
    k.start = 1000;
    k.end = 1000 + ns;
    k.graph_node = node;
    k.corr = corr;
    k.graph_id = graph;
    k.name = name;
    w_rec(w, CGS_TR_KERNEL, 0, &k, sizeof(k), NULL);
}

static void end(struct w *w)
{
    struct cgs_tr_end e;
    memset(&e, 0, sizeof(e));
    w_rec(w, CGS_TR_END, 0, &e, sizeof(e), NULL);
}

/* The any-thread rule against its definition, on random traces: a launch from a thread with no
 * range goes to the most recently pushed range still open on any thread (pops closing ranges
 * out of order too). The rule is computed in one sweep (issue 26: it was quadratic in the
 * threads); here it is computed the slow way, launch by launch. */
static void test_any_thread_rule_random(void **state)
{
    (void)state;
    unsigned seed = 12345;
    for (int round = 0; round < 200; round++) {
        enum { NT = 6, NR = 40, NL = 30 };
        struct w w;
        uint64_t push_ts[NR], pop_ts[NR];
        int n_r = 0, n_l = 0, open[NT][NR], n_open[NT] = {0}, thread_of[NR];
        uint64_t launch_ts[NL];
        struct cgs_prof_trace t;
        struct cgs_prof_report r;
        struct cgs_diag d = CGS_DIAG_INIT;
        char name[32];

        w_header(&w);
        for (uint64_t ts = 10; n_l < NL && ts < 100000; ts += 10) {
            seed = seed * 1103515245u + 12345u;
            unsigned a = (seed >> 16) % 10, th = (seed >> 8) % NT;
            if (a < 4 && n_r < NR) { /* push */
                snprintf(name, sizeof(name), "cgscope:r%d", n_r);
                push(&w, 10 + th, ts, (uint64_t)n_r + 1, 0, (uint32_t)n_open[th] + 1, name);
                push_ts[n_r] = ts;
                pop_ts[n_r] = UINT64_MAX;
                thread_of[n_r] = (int)th;
                open[th][n_open[th]++] = n_r++;
            } else if (a < 7 && n_open[th]) { /* pop: the innermost, or one out of order */
                int k = (a == 6 && n_open[th] > 1) ? 0 : n_open[th] - 1, ri = open[th][k];
                pop(&w, 10 + th, ts, (uint64_t)ri + 1);
                pop_ts[ri] = ts;
                memmove(&open[th][k], &open[th][k + 1], (size_t)(n_open[th] - k - 1) * sizeof(int));
                n_open[th]--;
            } else { /* a launch from a thread that holds no range */
                launch_ts[n_l] = ts;
                launch(&w, 99, ts, 0, 5000u + (uint32_t)n_l);
                n_l++;
            }
        }
        for (int i = 0; i < n_l; i++)
            kernel(&w, 5000u + (uint32_t)i, 1, 0, 0, 0);
        end(&w);
        assert_int_equal(cgs_prof_parse((const char *)w.b, w.n, "t.cgstrace", &t, &d), 0);
        assert_int_equal(cgs_prof_report_build(&t, 1, NULL, &r, &d), 0);
        uint64_t want[NR] = {0}, want_none = 0;
        for (int i = 0; i < n_l; i++) {
            int best = -1;
            for (int k = 0; k < n_r; k++)
                if (push_ts[k] < launch_ts[i] && pop_ts[k] > launch_ts[i] &&
                    (best < 0 || push_ts[k] > push_ts[best]))
                    best = k;
            if (best < 0)
                want_none++;
            else
                want[best]++;
        }
        for (int k = 0; k < n_r; k++) {
            const struct cgs_prof_group *g;
            snprintf(name, sizeof(name), "r%d", k);
            g = cgs_prof_find(&r, name);
            if ((g ? g->kernels.count : 0) != want[k])
                fail_msg("round %d: range r%d (thread %d) got %llu kernels, the rule gives %llu",
                         round, k, thread_of[k], (unsigned long long)(g ? g->kernels.count : 0),
                         (unsigned long long)want[k]);
        }
        assert_int_equal(r.none.kernels.count, want_none);
        cgs_prof_report_release(&r);
        cgs_prof_trace_release(&t);
    }
}

/* A model with graph breaks: each Dynamo graph has its submod_0, the bridge names the ranges
 * "cgscope:<compile id>/submod_N", and the pieces stay apart (issue 26). */
static void test_pieces_of_several_graphs(void **state)
{
    struct w w;
    struct cgs_prof_trace t;
    struct cgs_prof_report r;
    struct cgs_diag d = CGS_DIAG_INIT;
    bool amb;
    (void)state;

    w_header(&w);
    push(&w, 10, 100, 1, 0, 1, "cgscope:0/0/submod_0");
    launch(&w, 10, 110, 1, 1001);
    pop(&w, 10, 120, 1);
    push(&w, 10, 200, 2, 0, 1, "cgscope:1/0/submod_0");
    launch(&w, 10, 210, 2, 1002);
    launch(&w, 10, 211, 2, 1003);
    pop(&w, 10, 220, 2);
    push(&w, 10, 300, 3, 0, 1, "cgscope:1/0/submod_1");
    launch(&w, 10, 310, 3, 1004);
    pop(&w, 10, 320, 3);
    kernel(&w, 1001, 10, 0, 0, 0);
    kernel(&w, 1002, 20, 0, 0, 0);
    kernel(&w, 1003, 30, 0, 0, 0);
    kernel(&w, 1004, 40, 0, 0, 0);
    end(&w);
    assert_int_equal(cgs_prof_parse((const char *)w.b, w.n, "t.cgstrace", &t, &d), 0);
    assert_int_equal(cgs_prof_report_build(&t, 1, NULL, &r, &d), 0);
    assert_int_equal(r.n_groups, 3); /* not one "submod_0" with both graphs' work */
    const struct cgs_prof_group *g0 = cgs_prof_find_piece(&r, "0/0", "submod_0", &amb);
    const struct cgs_prof_group *g1 = cgs_prof_find_piece(&r, "1/0", "submod_0", &amb);
    assert_non_null(g0);
    assert_non_null(g1);
    assert_int_equal(g0->kernels.count, 1);
    assert_int_equal(g1->kernels.count, 2);
    assert_int_equal(g1->kernels.ns, 50);
    /* without a graph id: submod_0 is ambiguous, submod_1 is not */
    assert_null(cgs_prof_find_piece(&r, NULL, "submod_0", &amb));
    assert_true(amb);
    assert_non_null(cgs_prof_find_piece(&r, NULL, "submod_1", &amb));
    char ids[64];
    cgs_prof_graph_ids(&r, ids, sizeof(ids));
    assert_string_equal(ids, "0/0, 1/0");
    /* the summary dot --profile reads: one graph's pieces, named as its split names them */
    struct cgs_prof_summary *sum = cgs_prof_summary_of(&r);
    char why[64];
    assert_int_equal(cgs_prof_summary_select(sum, NULL, why, sizeof(why)), -1);
    assert_string_equal(why, "0/0, 1/0");
    assert_int_equal(cgs_prof_summary_select(sum, "1/0", why, sizeof(why)), 0);
    assert_int_equal(sum->n_pieces, 2);
    assert_string_equal(sum->pieces[0].name, "submod_0");
    assert_int_equal(sum->pieces[0].kernels, 2);
    cgs_prof_summary_free(sum);
    cgs_prof_report_release(&r);
    cgs_prof_trace_release(&t);
}

static void test_attribution_rules(void **state)
{
    struct w w;
    struct cgs_prof_trace t;
    struct cgs_prof_report r;
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_tr_name nm = {1, 7};
    struct cgs_tr_gnode gn = {0x100000001ull, 5, 1, 0};
    struct cgs_tr_gclone gc = {0x200000001ull, 0x100000001ull};
    const struct cgs_prof_group *a, *b;
    (void)state;

    w_header(&w);
    w_rec(&w, CGS_TR_INFO, 0, "", 0, "rank=3");
    w_rec(&w, CGS_TR_NAME, 0, &nm, sizeof(nm), "_Z3fooi");
    w_rec(&w, 99, 0, "\0\0\0\0\0\0\0\0", 8, NULL); /* a type from the future: skipped */
    /* thread 10: cgscope:submod_0 (uid 1) holding a user range "inner" (uid 2) */
    push(&w, 10, 100, 1, 0, 1, "cgscope:submod_0");
    push(&w, 10, 110, 2, 1, 2, "inner");
    launch(&w, 10, 120, 2, 1001);   /* in "inner": its piece is the enclosing submod_0 */
    pop(&w, 10, 130, 2);
    pop(&w, 10, 200, 1);
    /* thread 10: submod_1 (uid 3) open 300..400, thread 11 (no range) launches at 350 */
    push(&w, 10, 300, 3, 0, 1, "cgscope:submod_1");
    launch(&w, 11, 350, 0, 1002);   /* -> submod_1, through another thread */
    /* thread 12 opens its own range later (uid 4, 360..380): at 370 it is the latest pushed */
    push(&w, 12, 360, 4, 0, 1, "cgscope:submod_2");
    launch(&w, 11, 370, 0, 1003);   /* -> submod_2 */
    pop(&w, 12, 380, 4);
    pop(&w, 10, 400, 3);
    launch(&w, 11, 500, 0, 1004);   /* no range open anywhere: unattributed */
    /* capture in submod_3 (uid 5): node 1<<32|1 created; instantiation clones it to 2<<32|1;
     * the replay is launched from a range of its own ("replay", uid 6) */
    push(&w, 10, 600, 5, 0, 1, "cgscope:submod_3");
    w_rec(&w, CGS_TR_GNODE, 10, &gn, sizeof(gn), NULL);
    pop(&w, 10, 610, 5);
    w_rec(&w, CGS_TR_GCLONE, 10, &gc, sizeof(gc), NULL);
    push(&w, 10, 700, 6, 0, 1, "replay");
    launch(&w, 10, 710, 6, 1005);
    pop(&w, 10, 720, 6);
    kernel(&w, 1001, 10, 0, 0, 1);
    kernel(&w, 1002, 20, 0, 0, 1);
    kernel(&w, 1003, 30, 0, 0, 1);
    kernel(&w, 1004, 40, 0, 0, 1);
    kernel(&w, 1005, 50, 0x200000001ull, 2, 1); /* replayed: to the capturing piece */
    kernel(&w, 1005, 60, 0x200000099ull, 2, 1); /* a node nobody captured in a range */
    kernel(&w, 7777, 70, 0, 0, 1);              /* its launch was never seen */
    end(&w);

    assert_int_equal(cgs_prof_parse((const char *)w.b, w.n, "t.cgstrace", &t, &d), 0);
    assert_true(t.complete);
    assert_int_equal(t.rank, 3);
    assert_int_equal(t.pid, 42);
    assert_int_equal(t.unknown_records, 1);
    assert_int_equal(cgs_prof_report_build(&t, 1, NULL, &r, &d), 0);
    assert_int_equal(r.n_groups, 4);
    a = cgs_prof_find(&r, "submod_0");
    assert_non_null(a);
    assert_int_equal(a->kernels.count, 1);
    assert_int_equal(a->kernels.ns, 10);
    assert_int_equal(a->calls, 1);
    assert_int_equal(a->cpu_ns, 100);
    b = cgs_prof_find(&r, "submod_1");
    assert_int_equal(b->kernels.ns, 20);
    assert_int_equal(b->any_thread, 1);
    assert_int_equal(cgs_prof_find(&r, "submod_2")->kernels.ns, 30);
    a = cgs_prof_find(&r, "submod_3");
    assert_int_equal(a->kernels.ns, 50);
    assert_int_equal(a->captured_kernels, 1);
    assert_int_equal(a->graph_replays, 1);
    /* unattributed: the lone launch (40), the uncaptured node in no piece (60), and the record
     * without a launch (70) */
    assert_int_equal(r.none.kernels.count, 3);
    assert_int_equal(r.none.kernels.ns, 40 + 60 + 70);
    assert_int_equal(r.no_launch, 1);
    assert_int_equal(r.kernels_total.ns, 280);
    assert_int_equal(r.n_kernels, 1);
    assert_string_equal(r.kernels[0].name, "foo(int)");
    assert_int_equal(r.kernels[0].min_ns, 10);
    assert_int_equal(r.kernels[0].max_ns, 70);
    cgs_prof_report_release(&r);

    /* by range: the innermost range names; the replay's uncaptured node is in "replay" */
    {
        struct cgs_prof_opts o = {NULL, CGS_PROF_BY_RANGE, false};
        assert_int_equal(cgs_prof_report_build(&t, 1, &o, &r, &d), 0);
        assert_int_equal(cgs_prof_find(&r, "inner")->kernels.ns, 10);
        assert_int_equal(cgs_prof_find(&r, "replay")->kernels.ns, 60);
        assert_int_equal(cgs_prof_find(&r, "cgscope:submod_0")->kernels.count, 0);
        /* ranges sorted by GPU time */
        for (uint32_t i = 1; i < r.n_groups; i++)
            assert_true(r.groups[i - 1].kernels.ns >= r.groups[i].kernels.ns);
        cgs_prof_report_release(&r);
    }
    /* another prefix: nothing is a piece */
    {
        struct cgs_prof_opts o = {"vllm:", CGS_PROF_BY_PIECE, false};
        assert_int_equal(cgs_prof_report_build(&t, 1, &o, &r, &d), 0);
        assert_int_equal(r.n_groups, 0);
        assert_int_equal(r.none.kernels.ns, 280);
        cgs_prof_report_release(&r);
    }
    cgs_prof_trace_release(&t);
}

static void test_bad_traces(void **state)
{
    struct w w;
    struct cgs_prof_trace t;
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_tr_name nm = {1, 3};
    char msg[1024];
    (void)state;

    /* another magic */
    w_header(&w);
    w.b[0] = 'X';
    assert_true(cgs_prof_parse((const char *)w.b, w.n, "a", &t, &d) < 0);
    assert_int_equal(d.code, CGS_E_FORMAT);
    cgs_prof_trace_release(&t);
    /* a newer version */
    w_header(&w);
    w.b[8] = 9;
    assert_true(cgs_prof_parse((const char *)w.b, w.n, "a", &t, &d) < 0);
    assert_non_null(strstr(d.msg, "version 9"));
    cgs_prof_trace_release(&t);
    /* a record of size 0 */
    w_header(&w);
    memset(w.b + w.n, 0, 8);
    w.b[w.n] = CGS_TR_POP;
    w.n += 8;
    assert_true(cgs_prof_parse((const char *)w.b, w.n, "a", &t, &d) < 0);
    cgs_diag_format(&d, msg, sizeof(msg));
    assert_non_null(strstr(msg, "byte 32"));
    cgs_prof_trace_release(&t);
    /* a KERNEL record too small for its payload */
    w_header(&w);
    w_rec(&w, CGS_TR_KERNEL, 0, "\0\0\0\0\0\0\0\0", 8, NULL);
    assert_true(cgs_prof_parse((const char *)w.b, w.n, "a", &t, &d) < 0);
    assert_non_null(strstr(d.msg, "KERNEL"));
    cgs_prof_trace_release(&t);
    /* a name that does not end */
    {
        struct cgs_trace_rec h = {CGS_TR_NAME, 3, 0};
        w_header(&w);
        memcpy(w.b + w.n, &h, 8);
        memcpy(w.b + w.n + 8, &nm, 8);
        memset(w.b + w.n + 16, 'x', 8);
        w.n += 24;
    }
    assert_true(cgs_prof_parse((const char *)w.b, w.n, "a", &t, &d) < 0);
    assert_non_null(strstr(d.msg, "NUL"));
    cgs_prof_trace_release(&t);
    /* data after END */
    w_header(&w);
    end(&w);
    pop(&w, 1, 1, 1);
    assert_true(cgs_prof_parse((const char *)w.b, w.n, "a", &t, &d) < 0);
    assert_non_null(strstr(d.msg, "after the END"));
    cgs_prof_trace_release(&t);
    /* a pop with no push, a launch of a range that never was: read, attributed to nothing */
    {
        struct cgs_prof_report r;
        w_header(&w);
        pop(&w, 1, 5, 77);
        launch(&w, 1, 6, 78, 1);
        kernel(&w, 1, 9, 0, 0, 5); /* name id 5 never defined */
        end(&w);
        assert_int_equal(cgs_prof_parse((const char *)w.b, w.n, "a", &t, &d), 0);
        assert_int_equal(cgs_prof_report_build(&t, 1, NULL, &r, &d), 0);
        assert_int_equal(r.none.kernels.count, 1);
        assert_int_equal(r.n_kernels, 1);
        cgs_prof_report_release(&r);
        cgs_prof_trace_release(&t);
    }
    /* the largest name id a file may use costs one name, not 16 million (fuzzing found a
     * 6 KB trace taking seconds) */
    {
        struct cgs_prof_report r;
        struct cgs_tr_name big = {1u << 24, 0};
        w_header(&w);
        w_rec(&w, CGS_TR_NAME, 0, &big, sizeof(big), "_Z3barv");
        kernel(&w, 1, 9, 0, 0, 1u << 24);
        end(&w);
        assert_int_equal(cgs_prof_parse((const char *)w.b, w.n, "a", &t, &d), 0);
        assert_true(t.n_names <= 2);
        assert_int_equal(cgs_prof_report_build(&t, 1, NULL, &r, &d), 0);
        assert_int_equal(r.n_kernels, 1);
        assert_string_equal(r.kernels[0].name, "bar()");
        cgs_prof_report_release(&r);
        cgs_prof_trace_release(&t);
    }
}

static void test_demangle(void **state)
{
    char *s;
    (void)state;
    s = cgs_prof_demangle("_ZN2at6native3addEPfi");
    assert_string_equal(s, "at::native::add(float*, int)");
    free(s);
    s = cgs_prof_demangle("triton_poi_fused_add_0");
    assert_string_equal(s, "triton_poi_fused_add_0");
    free(s);
    s = cgs_prof_demangle("_Znot a name");
    assert_string_equal(s, "_Znot a name");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eager),      cmocka_unit_test(test_cudagraph),
        cmocka_unit_test(test_train),      cmocka_unit_test(test_ranks),
        cmocka_unit_test(test_sigterm),    cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_attribution_rules),
        cmocka_unit_test(test_pieces_of_several_graphs),
        cmocka_unit_test(test_any_thread_rule_random), cmocka_unit_test(test_bad_traces),
        cmocka_unit_test(test_demangle),   cmocka_unit_test(test_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
