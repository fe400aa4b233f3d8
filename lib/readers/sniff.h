/*
 * What kind of file an input is, from its first bytes (and its name where the bytes cannot
 * tell): the one place that answers it, so every command can say what a wrong file actually
 * is ("a PNG image", "a CUPTI trace: use `cgscope report`") instead of the byte it choked on.
 */
#ifndef CGS_SNIFF_H
#define CGS_SNIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/base/diag.h"

/* X(kind, what a person calls it, which commands read it or NULL) */
#define CGS_INPUT_KINDS(X)                                                                         \
    X(UNKNOWN, "a file of unknown kind", NULL)                                                    \
    X(EMPTY, "an empty file", NULL)                                                               \
    X(GRAPH_JSON, "a graph JSON", "use `cgscope info`, `split`, `shapes`, `layout` or `dot`")     \
    X(ZIP, "a zip archive (a torch.export .pt2 is one)",                                          \
      "use `cgscope info`, `split`, `shapes` or `dot` on a .pt2")                                 \
    X(TRACE_LOG, "a TORCH_TRACE log", "use `cgscope graphs`, `breaks`, `top` or `cache diff`")    \
    X(EVENTS, "the bridge's events (JSON lines)", "use `cgscope top`")                            \
    X(CACHE_INDEX, "a compile-cache index (a Python literal)", "use `cgscope cache` or `top`")    \
    X(CUPTI_TRACE, "a CUPTI trace", "use `cgscope report` or `dot --profile`")                    \
    X(PROFILE_REPORT, "a profile report (report.json)", "use `cgscope report` on its folder")     \
    X(GZIP, "a gzip-compressed file", NULL)                                                       \
    X(XZ, "an xz-compressed file", NULL)                                                          \
    X(ZSTD, "a zstd-compressed file", NULL)                                                       \
    X(BZIP2, "a bzip2-compressed file", "decompress it first (bunzip2)")                          \
    X(PNG, "a PNG image", NULL)                                                                   \
    X(JPEG, "a JPEG image", NULL)                                                                 \
    X(GIF, "a GIF image", NULL)                                                                   \
    X(PDF, "a PDF document", NULL)                                                                \
    X(SVG, "an SVG picture", NULL)                                                                \
    X(HTML, "an HTML page", NULL)                                                                 \
    X(DOT, "a Graphviz DOT file", NULL)                                                           \
    X(ELF, "an ELF binary (a program or library)", NULL)                                          \
    X(PICKLE, "a Python pickle (torch.save's format)",                                            \
      "save the graph with the bridge or torch.export.save instead")                              \
    X(OUTPUT_CODE, "the code Inductor generated (output_code.py, a depyf kernel file)",           \
      "cgscope reads the graphs beside it: `cgscope graphs` on its folder lists them")           \
    X(JSON, "a JSON document", NULL)                                                              \
    X(WIDE_TEXT, "UTF-16 or UTF-32 text", "convert it to UTF-8 (iconv)")                          \
    X(TEXT, "a text file", NULL)                                                                  \
    X(BINARY, "a binary file", NULL)

#define CGS_INPUT_ENUM_(k, what, hint) CGS_IN_##k,
enum cgs_input_kind { CGS_INPUT_KINDS(CGS_INPUT_ENUM_) CGS_IN_COUNT };
#undef CGS_INPUT_ENUM_

/* How many first bytes cgs_sniff wants to see (it takes fewer). */
#define CGS_SNIFF_HEAD 4096

/* The kind of a file whose first len bytes are head (len == 0: empty). name may be NULL. */
enum cgs_input_kind cgs_sniff(const void *head, size_t len, const char *name);

/* The kind of the file at path, from its first bytes; UNKNOWN when it cannot be read (not a
 * regular file, no permission): nothing is consumed from a pipe. */
enum cgs_input_kind cgs_sniff_path(const char *path);

/* A TORCH_TRACE line, "V1130 11:20:40.412000 419 torch/_dynamo/utils.py:2126] {...}": the
 * offset of what follows glog's prefix, or 0 when s does not start with one. */
size_t cgs_glog_payload_at(const char *s, size_t n);

/* "a PNG image" */
const char *cgs_input_kind_what(enum cgs_input_kind k);
/* "use `cgscope report`", or NULL when no command reads it */
const char *cgs_input_kind_hint(enum cgs_input_kind k);

/* The command that decompresses a file of kind k, keeping it ("xz -dk FILE"); NULL for a kind
 * that is not gzip, xz or zstd. */
const char *cgs_input_kind_unpack(enum cgs_input_kind k);

/* True for the kinds lib/readers/unpack.h reads through (gzip, xz, zstd). */
bool cgs_input_kind_compressed(enum cgs_input_kind k);

/*
 * Fill d with "is KIND, not WANTED[: HINT]" for a file of kind k at path (the file named).
 * Returns the diag's code (CGS_E_PARSE).
 */
int cgs_sniff_refuse(struct cgs_diag *d, const char *path, enum cgs_input_kind k,
                     const char *wanted);

#endif
