/*
 * The file follower (lib/run/follow.h) with an oracle: the input is a sequence of operations on
 * the files of a folder -- append a record, truncate, truncate to a record boundary, rename one
 * file over another, unlink -- with the follower polling the folder after each; at the end
 * its model must equal one read of the final files by a fresh follower. Records are written
 * whole (a TORCH_TRACE record with its payload lines in one write, as torch's logging does).
 */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/arena.h"
#include "lib/base/buf.h"
#include "lib/run/follow.h"

static const char *const records[] = {
    "{\"ts\": 1.0, \"event\": \"compile\", \"graph_index\": 0, \"runtime_shape\": 8, \"backend\": \"inductor\", \"ms\": 12.5}\n",
    "{\"ts\": 2.0, \"event\": \"cache_hit\", \"graph_index\": 0, \"runtime_shape\": 8, \"backend\": \"inductor\"}\n",
    "{\"ts\": 3.0, \"event\": \"cache_miss\", \"graph_index\": 1, \"runtime_shape\": null, \"backend\": \"inductor\"}\n",
    "{\"ts\": 4.0, \"event\": \"run\", \"graph_index\": 1, \"runtime_shape\": 4, \"backend\": \"inductor\", \"ms\": 0.5}\n",
    "V1201 13:44:17.888000 455 torch/_dynamo/convert_frame.py:276] {\"dynamo_start\": {\"stack\": []}, \"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0}\n",
    "V1201 13:44:17.888000 455 torch/_dynamo/convert_frame.py:276] {\"dynamo_start\": {\"stack\": []}, \"frame_id\": 0, \"frame_compile_id\": 1, \"attempt\": 0}\n",
    "V1201 13:44:17.661000 455 torch/_inductor/compile_fx.py:1120] {\"artifact\": {\"name\": \"fx_graph_cache_miss\", \"encoding\": \"json\"}, \"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0, \"has_payload\": \"0\"}\n\t{\"key\": \"fabc\", \"components\": [\"[x] gm: a\"]}\n",
    "V1201 13:44:18.600000 455 torch/_dynamo/guards.py:4764] {\"artifact\": {\"name\": \"recompile_reasons\", \"encoding\": \"json\"}, \"frame_id\": 0, \"frame_compile_id\": 1, \"attempt\": 0, \"has_payload\": \"1\"}\n\t0/0: tensor 'x' size mismatch at index 0. expected 8, actual 32\n",
    "not a record at all\n",
};
#define N_RECORDS (sizeof(records) / sizeof(records[0]))
#define N_FILES 3
#define MAX_RECS 64

struct file {
    unsigned rec[MAX_RECS]; /* what it holds, in order */
    unsigned n;
    bool exists;
};

static char dir[64];

static void path_of(char *out, size_t n, unsigned f)
{
    /* an events file and two trace logs, told apart by their names too */
    snprintf(out, n, "%s/%s", dir, f == 0 ? "a.jsonl" : f == 1 ? "b.log" : "c.log");
}

static void write_file(const struct file *fl, unsigned f)
{
    char p[128];
    FILE *o;
    path_of(p, sizeof(p), f);
    if (!(o = fopen(p, "w")))
        abort();
    for (unsigned i = 0; i < fl->n; i++)
        fputs(records[fl->rec[i]], o);
    fclose(o);
}

/* The model, as text: its counters, and every row with the file it came from. */
static void digest(const struct cgs_dash *d, struct cgs_buf *b)
{
    cgs_buf_addf(b, "events %llu bad %llu compiles %llu recompiles %llu breaks %llu\n",
                 (unsigned long long)d->events, (unsigned long long)d->bad_lines,
                 (unsigned long long)d->compiles, (unsigned long long)d->recompiles,
                 (unsigned long long)d->graph_breaks);
    for (uint32_t i = 0; i < d->n_rows; i++) {
        const struct cgs_dash_row *r = d->rows[i];
        cgs_buf_addf(b, "%s %s gi %lld shape %lld %s: hits %llu misses %llu compiles %llu "
                        "recompiles %llu runs %llu\n",
                     r->source < d->n_sources ? d->sources[r->source] : "?",
                     r->compile_id ? r->compile_id : "-", (long long)r->graph_index,
                     (long long)r->runtime_shape, r->backend ? r->backend : "-",
                     (unsigned long long)r->hits, (unsigned long long)r->misses,
                     (unsigned long long)r->compiles, (unsigned long long)r->recompiles,
                     (unsigned long long)r->runs);
    }
}

/* Rows in a canonical order (a folder's files may be first read in another order). */
static int line_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *sorted(struct cgs_buf *b)
{
    char **lines = NULL, *out;
    size_t n = 0, alloc = 0, len = 0;
    for (char *p = strtok(b->buf, "\n"); p; p = strtok(NULL, "\n")) {
        CGS_ALLOC_GROW(lines, n + 1, alloc);
        lines[n++] = p;
        len += strlen(p) + 1;
    }
    if (n > 1)
        qsort(lines + 1, n - 1, sizeof(*lines), line_cmp); /* the counters stay first */
    out = calloc(len + 1, 1);
    for (size_t i = 0; i < n; i++) {
        strcat(out, lines[i]);
        strcat(out, "\n");
    }
    free(lines);
    return out;
}

static char *model_text(struct cgs_follow *f)
{
    struct cgs_buf b = CGS_BUF_INIT;
    char *s;
    digest(f->dash, &b);
    s = sorted(&b);
    cgs_buf_release(&b);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct file files[N_FILES] = {0};
    struct cgs_dash live, once;
    struct cgs_follow fl, fo;
    const char *roots[1];
    char p[128], q[128];

    /* in memory where there is a tmpfs (a disk's folder makes each run several times slower) */
    snprintf(dir, sizeof(dir), "/dev/shm/cgs-fuzz-follow.XXXXXX");
    if (!mkdtemp(dir)) {
        snprintf(dir, sizeof(dir), "/tmp/cgs-fuzz-follow.XXXXXX");
        if (!mkdtemp(dir))
            abort();
    }
    roots[0] = dir;
    cgs_dash_init(&live);
    cgs_follow_init(&fl, roots, 1, &live);
    cgs_follow_poll(&fl);
    for (size_t i = 0; i + 1 < size && i < 256; i += 2) {
        unsigned op = data[i] % 5, f = (data[i] / 5) % N_FILES, arg = data[i + 1];
        struct file *x = &files[f];
        path_of(p, sizeof(p), f);
        switch (op) {
        case 0: { /* append a record: one write */
            FILE *o;
            if (x->n == MAX_RECS)
                break;
            x->rec[x->n++] = arg % N_RECORDS;
            if (!(o = fopen(p, "a")))
                abort();
            fputs(records[arg % N_RECORDS], o);
            fclose(o);
            x->exists = true;
            break;
        }
        case 1: /* truncate to nothing */
            if (!x->exists)
                break;
            x->n = 0;
            if (truncate(p, 0))
                abort();
            break;
        case 2: /* keep the first records only */
            if (!x->exists || !x->n)
                break;
            x->n = arg % x->n;
            write_file(x, f); /* the same inode, rewritten shorter */
            break;
        case 3: { /* rename another file over this one */
            unsigned g = arg % N_FILES;
            if (g == f || !files[g].exists)
                break;
            path_of(q, sizeof(q), g);
            if (rename(q, p))
                abort();
            *x = files[g];
            memset(&files[g], 0, sizeof(files[g]));
            break;
        }
        default: /* unlink */
            if (!x->exists)
                break;
            unlink(p);
            memset(x, 0, sizeof(*x));
            break;
        }
        cgs_follow_poll(&fl);
    }
    cgs_follow_poll(&fl);
    cgs_follow_finish(&fl);

    cgs_dash_init(&once);
    cgs_follow_init(&fo, roots, 1, &once);
    fo.blocking = true;
    cgs_follow_poll(&fo);
    cgs_follow_finish(&fo);
    char *a = model_text(&fl), *b = model_text(&fo);
    if (strcmp(a, b)) {
        fprintf(stderr, "follower:\n%s\none read of the final files:\n%s", a, b);
        abort();
    }
    free(a);
    free(b);
    cgs_follow_release(&fl);
    cgs_follow_release(&fo);
    cgs_dash_release(&live);
    cgs_dash_release(&once);
    for (unsigned f = 0; f < N_FILES; f++) {
        path_of(p, sizeof(p), f);
        unlink(p);
    }
    rmdir(dir);
    return 0;
}
