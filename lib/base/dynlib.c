/* Libraries opened on first use (see dynlib.h). */
#include "lib/base/dynlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t dynlib_lock = PTHREAD_MUTEX_INITIALIZER;

/* dlerror() text, or a stand-in when the loader kept none */
static const char *loader_error(void)
{
    const char *e = dlerror();
    return e && *e ? e : "the dynamic loader gave no reason";
}

static int open_all(struct cgs_dynlib *l, void **h, size_t max, size_t *n, struct cgs_diag *d)
{
    const char *s = l->sonames;
    *n = 0;
    while (*s) {
        char name[128];
        size_t len = strcspn(s, " ");
        if (len && len < sizeof(name)) {
            memcpy(name, s, len);
            name[len] = '\0';
            if (*n == max)
                break;
            h[*n] = dlopen(name, RTLD_NOW | RTLD_LOCAL);
            if (!h[*n])
                return cgs_diag_set(d, CGS_E_IO, "cannot load %s: %s (%s)", l->what,
                                    loader_error(), l->install);
            (*n)++;
        }
        s += len;
        s += strspn(s, " ");
    }
    if (!*n)
        return cgs_diag_set(d, CGS_E_IO, "cannot load %s: this build recorded no library "
                            "for it (rebuild cgscope where its development files are)", l->what);
    return 0;
}

static int bind_all(struct cgs_dynlib *l, void **h, size_t n, struct cgs_diag *d)
{
    for (size_t i = 0; i < l->n_syms; i++) {
        void *p = NULL;
        for (size_t k = 0; k < n && !p; k++)
            p = dlsym(h[k], l->syms[i].name);
        if (!p)
            return cgs_diag_set(d, CGS_E_IO, "cannot load %s: its library has no '%s' (%s)",
                                l->what, l->syms[i].name, l->install);
        /* POSIX guarantees that a function's address fits a void *; memcpy keeps ISO C's
           object-to-function pointer conversion out of the picture */
        memcpy((char *)l->table + l->syms[i].offset, &p, sizeof(p));
    }
    return 0;
}

int cgs_dynlib_load(struct cgs_dynlib *l, struct cgs_diag *d)
{
    void *h[16];
    size_t n = 0;
    int rc;

    pthread_mutex_lock(&dynlib_lock);
    if (l->bound) {
        pthread_mutex_unlock(&dynlib_lock);
        return 0;
    }
    dlerror();
    rc = open_all(l, h, sizeof(h) / sizeof(h[0]), &n, d);
    if (!rc)
        rc = bind_all(l, h, n, d);
    if (rc) {
        while (n)
            dlclose(h[--n]);
    } else {
        l->bound = 1; /* the handles stay open for the process's life */
    }
    pthread_mutex_unlock(&dynlib_lock);
    return rc ? -1 : 0;
}
