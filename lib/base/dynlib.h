/*
 * Libraries opened when a command first needs them, not when cgscope starts: Graphviz (dot),
 * ncursesw (top) and libzip (.pt2 input). Linked the usual way, the dynamic loader mapped and
 * relocated their 13 shared objects in every process, about 2.5 ms of a `split` that takes 20
 * (docs/perf.md); opened here, a command that does not draw or read a zip never pays for them.
 *
 * A user of a library includes its header, then its api header (viz/gv-api.h, viz/curses-api.h,
 * lib/readers/zip-api.h). That header declares a table of pointers, one per function or variable
 * cgscope uses (typed from the library's own declarations with __typeof__), and defines each
 * name as its slot, so the code calls agopen(...) or reads COLS as it always did. A name used
 * but missing from the table does not link (nothing links the library itself), so the list
 * cannot fall behind the code. The library's load function must have succeeded first.
 *
 * The shared-object names are the ones the linker picks for the package's pkg-config flags,
 * recorded at build time (tools/sonames.sh writes $(B)/gen/sonames.h).
 */
#ifndef CGS_DYNLIB_H
#define CGS_DYNLIB_H

#include <stddef.h>

#include "lib/base/diag.h"

/* One symbol: its name and where its address goes in the table. */
struct cgs_dynsym {
    const char *name;
    size_t offset;
};

struct cgs_dynlib {
    const char *what;     /* "Graphviz", named in messages */
    const char *sonames;  /* space-separated, the first one the library proper */
    const char *install;  /* what to install when it is missing ("Debian: apt-get install ...") */
    const struct cgs_dynsym *syms;
    size_t n_syms;
    void *table; /* n_syms pointers, filled at offsets */
    int bound;   /* set once every symbol is in the table */
};

/*
 * Open every shared object of l (RTLD_NOW | RTLD_LOCAL) and fill its table: 0, at once when
 * already done; -1 with d saying which object or symbol is missing and what to install. A
 * failure is not remembered (the next call tries again). Safe from any thread.
 */
int cgs_dynlib_load(struct cgs_dynlib *l, struct cgs_diag *d) CGS_WUR;

/* The X-macro helper of the api headers: a table field typed from the library's declaration. */
#define CGS_DYNLIB_FIELD(name) __typeof__(name) *name;

/* In an api header: the table `struct type table` of the X-macro list's names, and its load
 * function `int load(struct cgs_diag *d)`: 0, or -1 with d saying what is missing. */
#define CGS_DYNLIB_DECLARE(type, table, list, load)                                                \
    struct type {                                                                                  \
        list(CGS_DYNLIB_FIELD)                                                                     \
    };                                                                                             \
    extern struct type table;                                                                      \
    int load(struct cgs_diag *d) CGS_WUR;

/*
 * In an api's .c file (which sees the real declarations): the table `struct type table`, its
 * symbol rows from the X-macro list, and `int load(struct cgs_diag *d)` that fills it.
 */
#define CGS_DYNLIB_DEFINE(type, table, list, load, what, sonames, install)                        \
    struct type table;                                                                             \
    static const struct cgs_dynsym table##_syms[] = {list(CGS_DYNLIB_ROW_)};                       \
    static struct cgs_dynlib table##_lib = {                                                       \
        what, sonames, install, table##_syms, sizeof(table##_syms) / sizeof(table##_syms[0]),     \
        &table, 0};                                                                                \
    int load(struct cgs_diag *d)                                                                   \
    {                                                                                              \
        return cgs_dynlib_load(&table##_lib, d);                                                   \
    }
/* a row of the table CGS_DYNLIB_TYPE (defined by the .c file before CGS_DYNLIB_DEFINE) */
#define CGS_DYNLIB_ROW_(name) {#name, offsetof(CGS_DYNLIB_TYPE, name)},

#endif
