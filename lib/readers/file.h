/*
 * Files and positions, below every reader: reading a whole input (a file, or
 * standard input for "-") and turning a byte offset into line:col.
 */
#ifndef CGS_FILE_H
#define CGS_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/diag.h"

/* The name standard input has in messages when a command reads "-". */
#define CGS_STDIN_NAME "<stdin>"

/* True for "-", the path that means standard input. */
bool cgs_path_is_stdin(const char *path);

/*
 * Read a whole file (or standard input, for "-") into a heap buffer (caller
 * frees), NUL-terminated. A folder, a file over max bytes and a read error
 * fail with d filled (the path named).
 */
int cgs_read_file(const char *path, char **buf, size_t *len, size_t max,
                  struct cgs_diag *d) CGS_WUR;

/* 1-based line and column (in UTF-8 characters) of byte offset off in buf. */
void cgs_text_position(const char *buf, size_t len, size_t off, uint32_t *line, uint32_t *col);

/* True when text starts like UTF-16 or UTF-32: a byte-order mark, or a NUL beside a
 * non-NUL byte in its first two (ASCII text in a wide encoding). */
bool cgs_text_is_wide(const void *buf, size_t len);

/* The last (at most max) non-empty lines of the file at path, each cut to 255 bytes, oldest
 * first, into lines; how many. 0 when it cannot be read. */
int cgs_file_tail(const char *path, char lines[][256], int max);

/* True when path ends in ext (".pt2"), compared without regard to case. */
bool cgs_path_has_ext(const char *path, const char *ext);

/*
 * The regular files named one of names[0..n_names) in dir and in its folders up to depth
 * levels down (hidden folders skipped), dir's own first, then each folder's in name order:
 * fn(path, ctx) is called for each; a nonzero return stops the walk and is returned. Otherwise
 * returns how many were found. (Cache folders: vLLM's <hash>/rank_0_0/backbone/.)
 */
int cgs_find_named(const char *dir, const char *const *names, unsigned n_names, int depth,
                   int (*fn)(const char *path, void *ctx), void *ctx);

#endif
