/*
 * Fault injection for the CLI tests (LD_PRELOAD): the Nth call (counting from 1) of one kind
 * fails as the system would fail it. CGS_FAIL=KIND:N, KIND one of malloc (malloc, calloc,
 * realloc: NULL, ENOMEM), open (open, openat, fopen: -1/NULL, EMFILE), read (-1, EIO), write
 * (-1, ENOSPC), rename (-1, EXDEV). CGS_FAIL_COUNT=FILE appends "pid KIND COUNT" lines at exit:
 * how many calls there were, so a test can walk N over them.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

enum { K_MALLOC, K_OPEN, K_READ, K_WRITE, K_RENAME, K_COUNT };
static const char *const names[K_COUNT] = {"malloc", "open", "read", "write", "rename"};
static long counts[K_COUNT];
static int kind = -1;
static long fail_at;
static int ready;

__attribute__((constructor)) static void init(void)
{
    const char *s = getenv("CGS_FAIL");
    for (int k = 0; s && k < K_COUNT; k++) {
        size_t n = strlen(names[k]);
        if (!strncmp(s, names[k], n) && s[n] == ':') {
            kind = k;
            fail_at = strtol(s + n + 1, NULL, 10);
        }
    }
    ready = 1;
}

__attribute__((destructor)) static void fini(void)
{
    const char *f = getenv("CGS_FAIL_COUNT");
    char line[128];
    int fd;
    ready = 0;
    if (!f)
        return;
    fd = (int)syscall(SYS_open, f, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0)
        return;
    for (int k = 0; k < K_COUNT; k++) {
        int n = snprintf(line, sizeof(line), "%d %s %ld\n", (int)getpid(), names[k], counts[k]);
        if (syscall(SYS_write, fd, line, (size_t)n) < 0)
            break;
    }
    syscall(SYS_close, fd);
}

static int fails(int k)
{
    if (!ready)
        return 0;
    return ++counts[k] == fail_at && kind == k;
}

static int malloc_fails(void)
{
    if (!fails(K_MALLOC))
        return 0;
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t n)
{
    return malloc_fails() ? NULL : __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
    return malloc_fails() ? NULL : __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
    return malloc_fails() ? NULL : __libc_realloc(p, n);
}

#define REAL(ret, name, ...)                                                                    \
    static ret (*real_##name)(__VA_ARGS__);                                                     \
    if (!real_##name)                                                                           \
        real_##name = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name);

/* The open kind's failure, shared by every way of opening (EMFILE, as a full table gives). */
static int open_fails(void)
{
    if (!fails(K_OPEN))
        return 0;
    errno = EMFILE;
    return 1;
}

static mode_t mode_arg(int flags, va_list ap)
{
    return flags & O_CREAT ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
    mode_t mode;
    va_list ap;
    REAL(int, open, const char *, int, ...)
    va_start(ap, flags);
    mode = mode_arg(flags, ap);
    va_end(ap);
    return open_fails() ? -1 : real_open(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    mode_t mode;
    va_list ap;
    REAL(int, open64, const char *, int, ...)
    va_start(ap, flags);
    mode = mode_arg(flags, ap);
    va_end(ap);
    return open_fails() ? -1 : real_open64(path, flags, mode);
}

FILE *fopen(const char *path, const char *m)
{
    REAL(FILE *, fopen, const char *, const char *)
    return open_fails() ? NULL : real_fopen(path, m);
}

FILE *fopen64(const char *path, const char *m)
{
    REAL(FILE *, fopen64, const char *, const char *)
    return open_fails() ? NULL : real_fopen64(path, m);
}

ssize_t read(int fd, void *buf, size_t n)
{
    REAL(ssize_t, read, int, void *, size_t)
    if (fails(K_READ)) {
        errno = EIO;
        return -1;
    }
    return real_read(fd, buf, n);
}

ssize_t write(int fd, const void *buf, size_t n)
{
    REAL(ssize_t, write, int, const void *, size_t)
    if (fd > 2 && fails(K_WRITE)) { /* stderr stays: the message must get out */
        errno = ENOSPC;
        return -1;
    }
    return real_write(fd, buf, n);
}

int rename(const char *a, const char *b)
{
    REAL(int, rename, const char *, const char *)
    if (fails(K_RENAME)) {
        errno = EXDEV;
        return -1;
    }
    return real_rename(a, b);
}
