/* lib/run/graphs: the graphs read while the logs are (cgs_graphs_collect_every) are the graphs a
 * load after the read gives, on every log of the tests and on logs whose later records change
 * what an earlier graph is read from (a later attempt, symbols created after the graph). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/buf.h"
#include "lib/readers/file.h"
#include "lib/readers/fxtext.h"
#include "lib/writers/fxtext-json.h"
#include "lib/readers/load.h"
#include "lib/readers/unpack.h"
#include "lib/run/follow.h"
#include "lib/run/graphs.h"
#include "tests/graph-digest.h"

static void quiet(const char *file, const char *msg, void *ctx)
{
    (void)file, (void)msg, (void)ctx;
}

/* Every graph of the sources, each as its digest after its ref; every: read while the logs
 * are (the counts of that, when asked for). */
static char *digest_all(const char *const *paths, uint32_t n, bool every, uint32_t *read,
                        uint32_t *taken)
{
    struct cgs_graphs gs;
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_buf b = CGS_BUF_INIT;
    int rc = every ? cgs_graphs_collect_every(&gs, paths, n, quiet, NULL, &d)
                   : cgs_graphs_collect(&gs, paths, n, quiet, NULL, &d);
    if (rc) {
        cgs_buf_addf(&b, "collect: %s\n", d.msg);
    } else {
        enum { BATCH = 8 };
        for (uint32_t from = 0; from < gs.n_items; from += BATCH) {
            uint32_t k, m = gs.n_items - from < BATCH ? gs.n_items - from : BATCH;
            struct cgs_graph *g[BATCH];
            struct cgs_diag ds[BATCH];
            for (k = 0; k < m; k++)
                ds[k] = (struct cgs_diag)CGS_DIAG_INIT;
            cgs_graphs_load_many(&gs, from, m, g, ds);
            for (k = 0; k < m; k++) {
                char *one = load_digest(g[k], &ds[k]);
                cgs_buf_addf(&b, "== %s\n%s", gs.items[from + k].ref, one);
                free(one);
                cgs_graph_free(g[k]);
            }
        }
    }
    if (read)
        cgs_graphs_early_counts(&gs, read, taken);
    cgs_graphs_release(&gs);
    return cgs_buf_detach(&b);
}

static uint32_t total_read, total_taken;

/* The sources read both ways, the graphs read early at every record fed: the same (the graphs'
 * digests returned, the caller's to free). */
static char *both_ways(const char *const *paths, uint32_t n, uint32_t *read, uint32_t *taken)
{
    char *after = digest_all(paths, n, false, NULL, NULL), *early;
    cgs_follow_set_idle_always(true);
    early = digest_all(paths, n, true, read, taken);
    cgs_follow_set_idle_always(false);
    if (strcmp(after, early))
        print_error("%s: the graphs read while the log was differ\n", paths[0]);
    assert_string_equal(after, early);
    assert_true(*taken <= *read);
    free(early);
    return after;
}

static void check_same(const char *const *paths, uint32_t n)
{
    uint32_t read = 0, taken = 0;
    free(both_ways(paths, n, &read, &taken));
    total_read += read;
    total_taken += taken;
}

static void sink(void *ctx, const char *data, size_t len)
{
    cgs_buf_add(ctx, data, len);
}

/* An xz log's text. */
static void unpack_into(const char *path, struct cgs_buf *out)
{
    char *buf;
    size_t len;
    struct cgs_unpack u;
    struct cgs_diag d = CGS_DIAG_INIT;
    assert_int_equal(cgs_read_file(path, &buf, &len, (size_t)64 << 20, &d), 0);
    assert_int_equal(cgs_unpack_init(&u, CGS_IN_XZ, (uint64_t)1 << 30, CGS_UNPACK_MAX_MEM, &d), 0);
    assert_int_equal(cgs_unpack_feed(&u, buf, len, sink, out, &d), 0);
    assert_int_equal(cgs_unpack_finish(&u, sink, out, &d), 0);
    cgs_unpack_release(&u);
    free(buf);
}

/* The text of every xz log the pattern matches, one after the other, appended to out. */
static void unpack_glob(const char *pattern, struct cgs_buf *out)
{
    glob_t gl;
    assert_int_equal(glob(pattern, 0, NULL, &gl), 0);
    for (size_t i = 0; i < gl.gl_pathc; i++)
        unpack_into(gl.gl_pathv[i], out);
    globfree(&gl);
}

/* A log made of text, written to a file of its own (name) and read both ways: both_ways'. */
static char *text_both_ways(const char *name, const struct cgs_buf *text, uint32_t *read,
                            uint32_t *taken)
{
    char dir[] = "/tmp/cgs-early.XXXXXX", path[64];
    const char *one[1] = {path};
    char *all;
    FILE *f;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_non_null(f = fopen(path, "wb"));
    assert_int_equal(fwrite(text->buf, 1, text->len, f), text->len);
    assert_int_equal(fclose(f), 0);
    all = both_ways(one, 1, read, taken);
    unlink(path);
    rmdir(dir);
    return all;
}

static void test_every_log(void **state)
{
    static const char *const pats[] = {"tests/data/tracegraphs/*/trace/*", "samples/*.log",
                                       "tests/data/faultlogs/*", "tests/data/gpu-logs/*"};
    glob_t all[4];
    const char *paths[512];
    uint32_t n = 0;
    (void)state;
    total_read = total_taken = 0;
    for (size_t k = 0; k < 4; k++) {
        if (glob(pats[k], 0, NULL, &all[k]) != 0)
            all[k].gl_pathc = 0;
        for (size_t i = 0; i < all[k].gl_pathc; i++) {
            const char *one[1] = {all[k].gl_pathv[i]};
            check_same(one, 1);
            if (n < 512)
                paths[n++] = all[k].gl_pathv[i];
        }
    }
    check_same(paths, n); /* all at once: a helper reads the later files ahead */
    print_message("%u logs: %u graphs read while the logs were, %u of them taken\n", n,
                  total_read, total_taken);
    assert_true(n >= 20);
    assert_true(total_taken > 100); /* read early, and used */
    for (size_t k = 0; k < 4; k++)
        if (all[k].gl_pathc)
            globfree(&all[k]);
}

/* One log holding a run's records twice over (the compile ids used again, as after
 * torch._dynamo.reset()): the second run's symbols of a compile and its later graphs change
 * what some graphs read early were read from; they are read again. */
static void test_later_records(void **state)
{
    struct cgs_buf twice = CGS_BUF_INIT;
    uint32_t read = 0, taken = 0;
    (void)state;
    for (int round = 0; round < 2; round++)
        unpack_glob("tests/data/tracegraphs/dyn*/trace/*.log.xz", &twice);
    free(text_both_ways("twice.log", &twice, &read, &taken));
    print_message("twice: %u graphs read early, %u taken\n", read, taken);
    assert_true(taken > 0);
    assert_true(taken < read); /* some were read again: what they were read from changed */
    cgs_buf_release(&twice);
}

/* A log whose first Dynamo graph is logged again at the end by a later attempt, its text the
 * same length (f32 made f64): the graph read early from the first record is read again. */
static void test_later_attempt(void **state)
{
    struct cgs_buf log = CGS_BUF_INIT, again = CGS_BUF_INIT;
    uint32_t read = 0, taken = 0;
    (void)state;
    /* a log with no symbol: nothing else read later changes what its graphs are read from */
    unpack_glob("tests/data/tracegraphs/cnn_infer/trace/*.log.xz", &log);
    cgs_buf_addch(&log, '\0');
    {
        /* the record and its payload (the lines after it that start with a tab) */
        const char *rec = strstr(log.buf, "{\"dynamo_output_graph\"");
        assert_non_null(rec);
        while (rec > log.buf && rec[-1] != '\n')
            rec--;
        const char *end = strchr(rec, '\n');
        while (end && end[1] == '\t')
            end = strchr(end + 1, '\n');
        assert_non_null(end);
        cgs_buf_add(&again, rec, (size_t)(end + 1 - rec));
        cgs_buf_addch(&again, '\0');
        char *at = strstr(again.buf, "\"attempt\": 0"), *dt = strstr(again.buf, "\n\t");
        dt = dt ? strstr(dt, "f32[") : NULL; /* in the payload */
        assert_non_null(at);
        assert_non_null(dt);
        at[11] = '1'; /* "attempt": 1 */
        dt[1] = '6'; /* f32 -> f64 */
        dt[2] = '4';
    }
    log.len--; /* the NUL */
    cgs_buf_add(&log, again.buf, strlen(again.buf));
    char *after = text_both_ways("again.log", &log, &read, &taken);
    assert_non_null(strstr(after, "float64")); /* the later attempt's graph is the one */
    free(after);
    print_message("again: %u graphs read early, %u taken\n", read, taken);
    assert_true(taken + 1 == read); /* all but the one logged again */
    cgs_buf_release(&log);
    cgs_buf_release(&again);
}

/* A run logged twice, the second run's s77 created with another value (7 for 5): each run's
 * graphs carry their own run's hint (the first run's graph took the second's before). */
static void test_symbols_by_run(void **state)
{
    struct cgs_buf one = CGS_BUF_INIT, log = CGS_BUF_INIT;
    static const char sym5[] = "\"create_symbol\": {\"symbol\": \"s77\", \"val\": \"5\"";
    uint32_t read = 0, taken = 0;
    char *at, *all, *first, *second;
    (void)state;
    unpack_glob("tests/data/tracegraphs/dyn_recompile/trace/*.log.xz", &one);
    cgs_buf_addch(&one, '\0');
    cgs_buf_add(&log, one.buf, one.len - 1);
    at = strstr(one.buf, sym5);
    assert_non_null(at);
    at[sizeof(sym5) - 3] = '7'; /* the 5 */
    cgs_buf_add(&log, one.buf, one.len - 1);
    all = text_both_ways("runs.log", &log, &read, &taken);
    first = strstr(all, "#0/0:dynamo\n");
    second = strstr(all, "#0/0:dynamo@2\n");
    assert_non_null(first);
    assert_non_null(second);
    assert_true(first < second);
    second[0] = '\0'; /* the first run's graph ends where the second's starts */
    assert_non_null(strstr(first, "sym s77 1:5 "));
    assert_non_null(strstr(second + 1, "sym s77 1:7 "));
    free(all);
    cgs_buf_release(&one);
    cgs_buf_release(&log);
}

/* A symbol created again after its compile's graphs were logged (s77 of compile 0/0, another
 * value, at the log's end): the graphs read early with the first value are read again. */
static void test_later_symbol(void **state)
{
    struct cgs_buf log = CGS_BUF_INIT;
    static const char sym5[] = "\"create_symbol\": {\"symbol\": \"s77\", \"val\": \"5\"";
    uint32_t read = 0, taken = 0;
    const char *rec, *end;
    char *all, *line;
    (void)state;
    unpack_glob("tests/data/tracegraphs/dyn_recompile/trace/*.log.xz", &log);
    cgs_buf_addch(&log, '\0');
    assert_non_null(rec = strstr(log.buf, sym5));
    while (rec > log.buf && rec[-1] != '\n')
        rec--;
    assert_non_null(end = strchr(rec, '\n'));
    line = strndup(rec, (size_t)(end + 1 - rec));
    strstr(line, sym5)[sizeof(sym5) - 3] = '9'; /* the 5 */
    log.len--; /* the NUL */
    cgs_buf_addstr(&log, line);
    all = text_both_ways("late.log", &log, &read, &taken);
    assert_non_null(strstr(strstr(all, "#0/0:dynamo\n"), "sym s77 1:9 "));
    print_message("late symbol: %u graphs read early, %u taken\n", read, taken);
    assert_true(taken < read);
    free(all);
    free(line);
    cgs_buf_release(&log);
}

/* Graph JSON text loaded by the graph JSON loader, as a user loads what `graphs --write`
 * wrote; the nodes' offsets in that text set to 0, as a graph read from a printed one has
 * them. */
static struct cgs_graph *loaded_as_json(const char *text, const char *file, struct cgs_diag *d)
{
    struct cgs_graph *g = cgs_graph_load_json_buf(text, strlen(text), file, d);
    for (uint32_t s = 0; g && s <= g->n_subgraphs; s++) {
        struct cgs_graph *x = s < g->n_subgraphs ? g->subgraphs[s] : g;
        for (uint32_t i = 0; i < x->n_nodes; i++)
            x->nodes[i]->src_offset = 0;
    }
    return g;
}

/* A printed graph read straight into the IR (cgs_graphs_load_many, through
 * cgs_graph_load_fxtext) is the graph its graph JSON (`graphs --write`'s) loads as: the same
 * digest, or both refused with one code. Every graph of the tests' logs, cache folders, depyf
 * dumps and printed files, each with its compile's symbols; and texts cut short. */
static uint32_t direct_vs_document(const char *const *paths, uint32_t n)
{
    struct cgs_graphs gs;
    struct cgs_diag d = CGS_DIAG_INIT;
    uint32_t checked = 0;
    int rc = cgs_graphs_collect(&gs, paths, n, quiet, NULL, &d);
    for (uint32_t i = 0; !rc && i < gs.n_items; i++) {
        struct cgs_graph *g = NULL, *t = NULL;
        struct cgs_diag gd = CGS_DIAG_INIT, jd = CGS_DIAG_INIT, td = CGS_DIAG_INIT;
        cgs_graphs_load_many(&gs, i, 1, &g, &gd);
        char *doc = cgs_graphs_json(&gs, i, &jd);
        if (doc)
            t = loaded_as_json(doc, gs.items[i].source, &td);
        char *a = load_digest(g, &gd), *b = doc ? load_digest(t, &td) : load_digest(NULL, &jd);
        if (g && t && strcmp(a, b))
            print_error("%s: the direct graph and the document's differ\n", gs.items[i].ref);
        if (g && t)
            assert_string_equal(a, b);
        else
            assert_int_equal(g ? 0 : gd.code, t ? 0 : doc ? td.code : jd.code);
        checked++;
        free(a);
        free(b);
        free(doc);
        cgs_graph_free(g);
        cgs_graph_free(t);
    }
    cgs_graphs_release(&gs);
    return checked;
}

/* The file's first cut bytes (all: SIZE_MAX) read straight into the IR and through the
 * document: the same graph, or refused with one code. */
static void both_roads(const char *path, size_t cut)
{
    char *buf;
    size_t len;
    struct cgs_diag d = CGS_DIAG_INIT, gd = CGS_DIAG_INIT, jd = CGS_DIAG_INIT, td = CGS_DIAG_INIT;
    assert_int_equal(cgs_read_file(path, &buf, &len, 1 << 24, &d), 0);
    if (cut < len)
        len = cut;
    struct cgs_graph *g = cgs_graph_load_fxtext(buf, len, "in.py", 1, NULL, &gd), *t = NULL;
    char *doc = cgs_fxtext_to_json(buf, len, "in.py", 1, NULL, &jd);
    if (doc)
        t = loaded_as_json(doc, "in.py", &td);
    char *a = load_digest(g, &gd), *b = load_digest(t, doc ? &td : &jd);
    if (g && t)
        assert_string_equal(a, b);
    else
        assert_int_equal(g ? 0 : gd.code, t ? 0 : doc ? td.code : jd.code);
    free(a);
    free(b);
    free(buf);
    free(doc);
    cgs_graph_free(g);
    cgs_graph_free(t);
}

static void test_direct_is_document(void **state)
{
    static const char *const pats[] = {
        "tests/data/tracegraphs/*/trace/*", "samples/*.log", "tests/data/faultlogs/*",
        "tests/data/gpu-logs/*", "tests/data/fxtext/*.py", "tests/data/fxtext/vllm_cache",
        "tests/data/depyf/*", "tests/data/traces/*"};
    uint32_t checked = 0, files = 0;
    (void)state;
    for (size_t k = 0; k < sizeof(pats) / sizeof(pats[0]); k++) {
        glob_t gl;
        if (glob(pats[k], 0, NULL, &gl) != 0)
            continue;
        for (size_t i = 0; i < gl.gl_pathc; i++) {
            const char *one[1] = {gl.gl_pathv[i]};
            checked += direct_vs_document(one, 1);
            files++;
        }
        globfree(&gl);
    }
    print_message("%u sources: %u graphs read both ways\n", files, checked);
    assert_true(checked > 200);

    /* the inputs the fuzz target once failed on, then a printed file cut at every tenth byte:
       each reads the same both ways */
    glob_t gl;
    if (glob("tests/fuzz/regress/fxtext/*", 0, NULL, &gl) == 0) {
        for (size_t i = 0; i < gl.gl_pathc; i++)
            both_roads(gl.gl_pathv[i], SIZE_MAX);
        print_message("%zu inputs the fuzz target kept\n", gl.gl_pathc);
        assert_true(gl.gl_pathc >= 10);
        globfree(&gl);
    }
    char *buf;
    size_t len;
    struct cgs_diag d = CGS_DIAG_INIT;
    assert_int_equal(cgs_read_file("tests/data/fxtext/forms.py", &buf, &len, 1 << 20, &d), 0);
    free(buf);
    for (size_t cut = 0; cut < len; cut += 10)
        both_roads("tests/data/fxtext/forms.py", cut);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_log),
        cmocka_unit_test(test_direct_is_document),
        cmocka_unit_test(test_later_records),
        cmocka_unit_test(test_later_attempt),
        cmocka_unit_test(test_symbols_by_run),
        cmocka_unit_test(test_later_symbol),
    };
    return cmocka_run_group_tests_name("graphs", tests, NULL, NULL);
}
