/* Following growing sources into a dash model (lib/follow.h). */
#include "lib/follow.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/arena.h"

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
    cgs_feed_init(&x->feed, x->path, CGS_SRC_UNKNOWN);
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
    return (n > 4 && !strcmp(name + n - 4, ".log")) || (n > 6 && !strcmp(name + n - 6, ".jsonl")) ||
           strstr(name, "torch_trace") || strstr(name, "magi_compile_cache");
}

/* The files of a folder, in name order (so ranks come in order). */
static void scan_dir(struct cgs_follow *f, const char *dir)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, alloc = 0;
    if (!dp)
        return;
    while ((e = readdir(dp))) {
        char path[4096];
        struct stat st;
        if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp-") || !is_run_log(e->d_name))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (stat(path, &st) || !S_ISREG(st.st_mode))
            continue;
        CGS_ALLOC_GROW(names, n + 1, alloc);
        names[n++] = cgs_xstrdup(path);
    }
    closedir(dp);
    if (n > 1)
        qsort(names, n, sizeof(*names), by_name);
    for (size_t i = 0; i < n; i++) {
        file_for(f, names[i]);
        free(names[i]);
    }
    free(names);
}

static void reset_all(struct cgs_follow *f)
{
    cgs_dash_reset(f->dash);
    for (uint32_t i = 0; i < f->n_files; i++) {
        struct cgs_follow_file *x = &f->files[i];
        cgs_feed_release(&x->feed);
        cgs_feed_init(&x->feed, x->path, CGS_SRC_UNKNOWN);
        x->off = 0;
        x->seen = false;
    }
    f->resets++;
}

/* Read what is new in x; -1 when it was truncated or replaced (a reset is due). */
static int read_new(struct cgs_follow *f, struct cgs_follow_file *x, bool *changed)
{
    struct stat st;
    int fd;
    char buf[1 << 16];

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
        cgs_feed_data(f->dash, &x->feed, buf, (size_t)n);
        x->off += n;
        f->bytes += (uint64_t)n;
        *changed = true;
    }
    close(fd);
    if (*changed)
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
        if (stat(f->roots[r], &st)) {
            snprintf(f->status, sizeof(f->status), "waiting for %.200s to appear", f->roots[r]);
            continue;
        }
        present++;
        if (S_ISDIR(st.st_mode))
            scan_dir(f, f->roots[r]);
        else
            file_for(f, f->roots[r]);
    }
    if (f->any_root && present)
        f->status[0] = '\0';
    for (uint32_t i = 0; i < f->n_files; i++)
        if (read_new(f, &f->files[i], &changed) < 0) {
            // a new run: everything is read again from the start, once
            reset_all(f);
            changed = true;
            for (uint32_t k = 0; k < f->n_files; k++)
                read_new(f, &f->files[k], &changed);
            break;
        }
    return changed;
}

void cgs_follow_finish(struct cgs_follow *f)
{
    for (uint32_t i = 0; i < f->n_files; i++)
        cgs_feed_flush(f->dash, &f->files[i].feed);
}
