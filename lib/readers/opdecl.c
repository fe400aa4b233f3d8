/*
 * Declared operators (lib/readers/opdecl.h): the parser of the declaration format and the lookup.
 */
#include "lib/readers/opdecl.h"

_Static_assert(CGS_MAX_NDIM == 64, "the messages say dims go from -64 to 63");

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/readers/load.h"
#include "lib/ops/ops.h"

struct cur {
    const char *p, *line_start, *name;
    uint32_t line;
    struct cgs_diag *d;
};

static int fail(struct cur *c, const char *msg)
{
    int rc = cgs_diag_set(c->d, CGS_E_SCHEMA, "%s", msg);
    cgs_diag_at(c->d, c->name, c->line, (uint32_t)(c->p - c->line_start) + 1);
    return rc;
}

static void skip_blanks(struct cur *c)
{
    while (*c->p == ' ' || *c->p == '\t')
        c->p++;
}

static bool at_end(struct cur *c)
{
    skip_blanks(c);
    return !*c->p || *c->p == '\n' || *c->p == '#' || *c->p == '\r';
}

/* A word: letters, digits, '_', '.', '-' (an operator's name also takes "::": target_word). */
static size_t word(struct cur *c, char *out, size_t n)
{
    size_t k = 0;

    skip_blanks(c);
    while (isalnum((unsigned char)*c->p) || *c->p == '_' || *c->p == '.' || *c->p == '-') {
        if (k + 1 < n)
            out[k++] = *c->p;
        c->p++;
    }
    out[k] = 0;
    return k;
}

static bool keyword(struct cur *c, const char *kw)
{
    size_t n = strlen(kw);

    skip_blanks(c);
    if (strncmp(c->p, kw, n) || isalnum((unsigned char)c->p[n]) || c->p[n] == '_')
        return false;
    c->p += n;
    return true;
}

static int integer(struct cur *c, int64_t *v, const char *what)
{
    char buf[32], *end;

    char msg[96];

    snprintf(msg, sizeof(msg), "expected %s", what);
    if (!word(c, buf, sizeof(buf)))
        return fail(c, msg);
    errno = 0;
    *v = strtoll(buf, &end, 10);
    if (*end || errno)
        return fail(c, msg);
    return 0;
}

/* The operator's name: a word, where "::" (torch.library's spelling, `mylib::op`) stands for
 * the graph's "." */
static size_t target_word(struct cur *c, char *out, size_t n)
{
    size_t k = 0;
    skip_blanks(c);
    for (;;) {
        if (isalnum((unsigned char)*c->p) || *c->p == '_' || *c->p == '.' || *c->p == '-') {
            if (k + 1 < n)
                out[k++] = *c->p;
            c->p++;
        } else if (c->p[0] == ':' && c->p[1] == ':' && k) {
            if (k + 1 < n)
                out[k++] = '.';
            c->p += 2;
        } else {
            break;
        }
    }
    out[k] = 0;
    return k;
}

static int arg_ref(struct cur *c, struct cgs_decl_ref *r, struct cgs_opdecls *ds)
{
    char buf[128], *end;
    const char *start;
    long pos;

    (void)ds;
    skip_blanks(c);
    start = c->p;
    if (!word(c, buf, sizeof(buf)))
        return fail(c, "expected an argument (a position or a keyword name)");
    errno = 0;
    pos = strtol(buf, &end, 10);
    if (!*end && (errno || pos > CGS_DECL_MAX_ARG)) {
        c->p = start;
        return fail(c, "expected an argument position from 0 to " CGS_DECL_MAX_ARG_TEXT);
    }
    r->pos = (int32_t)pos;
    if (*end || r->pos < 0) {
        if (!isalpha((unsigned char)buf[0]) && buf[0] != '_') {
            c->p = start;
            return fail(c, "expected an argument position >= 0 or a name");
        }
        r->pos = -1;
        r->name = strdup(buf);
        if (!r->name)
            return cgs_diag_set(c->d, CGS_E_NOMEM, "no memory");
    }
    return 0;
}

static int parse_out(struct cur *c, struct cgs_decl_out *o, struct cgs_opdecls *ds)
{
    memset(o, 0, sizeof(*o));
    if (keyword(c, "none")) {
        o->none = true;
        return 0;
    }
    if (keyword(c, "unknown")) {
        o->unknown = true;
        return 0;
    }
    if (!keyword(c, "like"))
        return fail(c, "expected 'like ARG', 'none' or 'unknown'");
    if (arg_ref(c, &o->like, ds))
        return -CGS_E_SCHEMA;
    for (;;) {
        struct cgs_decl_mod *m;
        int64_t v;
        if (at_end(c) || *c->p == ',')
            return 0;
        if (o->n_mods == CGS_DECL_MODS)
            return fail(c, "too many modifiers (8 at most)");
        m = &o->mods[o->n_mods];
        memset(m, 0, sizeof(*m));
        const char *before = c->p;
        if (keyword(c, "mutates")) {
            c->p = before; /* the declaration's own clause, after its outputs */
            return 0;
        }
        if (keyword(c, "rank")) {
            if (integer(c, &v, "a rank"))
                return -CGS_E_SCHEMA;
            if (v < 0 || v > CGS_MAX_NDIM)
                return fail(c, "expected a rank from 0 to 64");
            if (o->rank)
                return fail(c, "'rank' given twice");
            o->rank = (int32_t)v + 1;
            continue;
        }
        if (keyword(c, "dtype")) {
            char buf[32];
            word(c, buf, sizeof(buf));
            m->kind = CGS_DECL_DTYPE;
            m->dtype = cgs_dtype_from_name(buf);
            if (m->dtype == CGS_DTYPE_UNKNOWN)
                return fail(c, "expected a dtype name such as float16");
        } else if (keyword(c, "dim")) {
            m->kind = CGS_DECL_DIM;
            if (integer(c, &v, "a dim number"))
                return -CGS_E_SCHEMA;
            if (v < -CGS_MAX_NDIM || v >= CGS_MAX_NDIM)
                return fail(c, "expected a dim from -64 to 63");
            m->dim = (int32_t)v;
            skip_blanks(c);
            if (*c->p != '=')
                return fail(c, "expected '=' after 'dim D'");
            c->p++;
            skip_blanks(c);
            {
                // SIZE: INT alone, or ARG dim D
                const char *save = c->p;
                struct cgs_decl_ref r;
                memset(&r, 0, sizeof(r));
                if (arg_ref(c, &r, ds))
                    return -CGS_E_SCHEMA;
                const char *dim_kw = c->p;
                bool of_arg = keyword(c, "dim");
                if (of_arg) {
                    /* "4 dim 1 = 8" is the size 4, then the next modifier "dim 1 = 8" */
                    const char *after = c->p;
                    int64_t peek;
                    struct cgs_diag *keep = c->d, quiet = CGS_DIAG_INIT;
                    c->d = &quiet;
                    if (!integer(c, &peek, "") && (skip_blanks(c), *c->p == '='))
                        of_arg = false;
                    c->d = keep;
                    c->p = of_arg ? after : dim_kw;
                }
                if (of_arg) {
                    m->from_arg = true;
                    m->of = r;
                    if (integer(c, &v, "the dim of the argument"))
                        return -CGS_E_SCHEMA;
                    if (v < -CGS_MAX_NDIM || v >= CGS_MAX_NDIM)
                        return fail(c, "expected a dim from -64 to 63");
                    m->of_dim = (int32_t)v;
                } else {
                    free((char *)r.name);
                    c->p = save;
                    if (integer(c, &m->size, "a size or 'ARG dim D'"))
                        return -CGS_E_SCHEMA;
                    if (m->size < 0)
                        return fail(c, "expected a size >= 0");
                }
            }
        } else {
            return fail(c, "expected 'dtype DTYPE', 'dim D = SIZE', 'rank N', ',' or the line's "
                           "end");
        }
        o->n_mods++;
    }
}

static void free_decl(struct cgs_decl *dc)
{
    free((char *)dc->target);
    for (uint32_t k = 0; k < dc->n_mutates; k++)
        free((char *)dc->mutates[k]);
    for (uint32_t k = 0; k < CGS_DECL_OUTS; k++) {
        free((char *)dc->outs[k].like.name);
        for (uint32_t m = 0; m < CGS_DECL_MODS; m++)
            free((char *)dc->outs[k].mods[m].of.name);
    }
    memset(dc, 0, sizeof(*dc));
}

int cgs_opdecls_parse(struct cgs_opdecls *ds, const char *text, const char *name,
                      struct cgs_diag *d)
{
    struct cur c = {.p = text, .line_start = text, .name = name, .line = 1, .d = d};
    char **files = realloc(ds->files, (ds->n_files + 1) * sizeof(*files));

    /* the declarations keep the name: a copy that lives as long as they do */
    if (!files)
        return cgs_diag_set(d, CGS_E_NOMEM, "no memory");
    ds->files = files;
    if (!(name = files[ds->n_files] = strdup(name ? name : "")))
        return cgs_diag_set(d, CGS_E_NOMEM, "no memory");
    ds->n_files++;

    while (*c.p) {
        struct cgs_decl dc;
        char target[256];
        int rc;

        memset(&dc, 0, sizeof(dc));
        if (!at_end(&c)) {
            if (!target_word(&c, target, sizeof(target)))
                return fail(&c, "expected an operator name (TARGET: OUTPUT)");
            skip_blanks(&c);
            if (*c.p != ':')
                return fail(&c, "expected ':' after the operator name");
            c.p++;
            dc.file = name;
            dc.line = c.line;
            for (;;) {
                if (dc.n_outs == CGS_DECL_OUTS) {
                    free_decl(&dc);
                    return fail(&c, "too many outputs (8 at most)");
                }
                rc = parse_out(&c, &dc.outs[dc.n_outs], ds);
                if (rc) {
                    free_decl(&dc);
                    return rc;
                }
                dc.n_outs++;
                skip_blanks(&c);
                if (*c.p != ',')
                    break;
                c.p++;
            }
            if (keyword(&c, "mutates")) {
                do {
                    char arg[128];
                    skip_blanks(&c);
                    if (dc.n_mutates == CGS_DECL_OUTS) {
                        free_decl(&dc);
                        return fail(&c, "too many mutated arguments (8 at most)");
                    }
                    if (!word(&c, arg, sizeof(arg)) ||
                        (!isalpha((unsigned char)arg[0]) && arg[0] != '_')) {
                        free_decl(&dc);
                        return fail(&c, "expected the name of an argument the op mutates");
                    }
                    if (!(dc.mutates[dc.n_mutates++] = strdup(arg))) {
                        free_decl(&dc);
                        return cgs_diag_set(d, CGS_E_NOMEM, "no memory");
                    }
                    skip_blanks(&c);
                } while (!at_end(&c));
            }
            if (!at_end(&c)) {
                free_decl(&dc);
                return fail(&c, "expected ',', 'mutates ARG ...' or the line's end");
            }
            dc.target = strdup(target);
            if (!dc.target) {
                free_decl(&dc);
                return cgs_diag_set(d, CGS_E_NOMEM, "no memory");
            }
            if (ds->n == ds->alloc) {
                uint32_t na = ds->alloc ? ds->alloc * 2 : 8;
                struct cgs_decl *ni = realloc(ds->items, na * sizeof(*ni));
                if (!ni) {
                    free_decl(&dc);
                    return cgs_diag_set(d, CGS_E_NOMEM, "no memory");
                }
                ds->items = ni, ds->alloc = na;
            }
            ds->items[ds->n++] = dc;
        }
        while (*c.p && *c.p != '\n')
            c.p++;
        if (*c.p == '\n') {
            c.p++;
            c.line++;
            c.line_start = c.p;
        }
    }
    return 0;
}

int cgs_opdecls_load(struct cgs_opdecls *ds, const char *path, struct cgs_diag *d)
{
    char *buf;
    size_t len;
    int rc = cgs_read_file(path, &buf, &len, (size_t)16 << 20, d);

    if (rc)
        return rc;
    if (memchr(buf, 0, len)) {
        free(buf);
        cgs_diag_at(d, path, 0, 0);
        return cgs_diag_set(d, CGS_E_SCHEMA, "a NUL byte in an operator declaration file");
    }
    rc = cgs_opdecls_parse(ds, buf, path, d);
    free(buf);
    return rc;
}

const struct cgs_decl *cgs_opdecls_find(const struct cgs_opdecls *ds, const char *target)
{
    if (!ds || !target)
        return NULL;
    for (uint32_t i = ds->n; i-- > 0;)
        if (cgs_op_name_matches(ds->items[i].target, target))
            return &ds->items[i];
    return NULL;
}

void cgs_opdecls_free(struct cgs_opdecls *ds)
{
    if (!ds)
        return;
    for (uint32_t i = 0; i < ds->n; i++)
        free_decl(&ds->items[i]);
    free(ds->items);
    for (uint32_t i = 0; i < ds->n_files; i++)
        free(ds->files[i]);
    free(ds->files);
    memset(ds, 0, sizeof(*ds));
}
