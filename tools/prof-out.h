/*
 * What `cgscope report` and `cgscope profile` share: the traces of a run (files or folders),
 * and the report as text and as JSON.
 */
#ifndef CGS_PROF_OUT_H
#define CGS_PROF_OUT_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "lib/run/prof.h"

struct cgs_split;

struct cli_prof_set {
    struct cgs_prof_trace *traces;
    size_t n;
};

struct cli_prof_out {
    uint32_t kernels;             /* rows of the kernel table (0: all) */
    const struct cgs_split *split; /* --graph: list its pieces */
    const char *graph_id;          /* --graph: its compile id ("0/0"), or NULL */
    bool brief;                    /* profile's end-of-run summary: pieces and 5 kernels */
    const char *cmdline_as;        /* the traces' command lines written as this (--redact's
                                      page), or NULL: as they are */
};

/* Read traces from files and folders (their *.cgstrace, and a lone .cgstrace.part of a
 * process that was killed); prints the error and returns CGS_EXIT_BAD_INPUT on failure. */
int cli_prof_load(const char *const *paths, size_t n, struct cli_prof_set *set);
void cli_prof_release(struct cli_prof_set *set);

/* Warnings about the traces: incomplete, dropped records, the library's own errors, ranges
 * not in the split. */
void cli_prof_warn(const struct cli_prof_set *set, const struct cgs_prof_report *r,
                   const struct cgs_split *s, const char *graph_id);
void cli_prof_print(FILE *f, const struct cli_prof_set *set, const struct cgs_prof_report *r,
                    const struct cli_prof_out *o);
cJSON *cli_prof_json(const struct cli_prof_set *set, const struct cgs_prof_report *r,
                     const struct cli_prof_out *o);
/* report --json's document written straight into w (cli_prof_json reads it back as a tree). */
struct jsonw;
void cli_prof_write(struct jsonw *w, const struct cli_prof_set *set,
                    const struct cgs_prof_report *r, const struct cli_prof_out *o, int depth);
/* The same printed on stdout; and as text (cJSON_Print's form, no newline after; free it). */
void cli_print_prof(const struct cli_prof_set *set, const struct cgs_prof_report *r,
                    const struct cli_prof_out *o);
char *cli_prof_text(const struct cli_prof_set *set, const struct cgs_prof_report *r,
                    const struct cli_prof_out *o);
/* The traces as Chrome trace-event JSON (Perfetto, chrome://tracing open it): each process's
 * NVTX ranges (the pieces) on their threads, its kernels, memcpys and memsets on a row per GPU
 * and stream; times in microseconds from the earliest record. 0, or an exit status (said). */
int cli_prof_trace_events(const struct cli_prof_set *set, const char *path);

#endif
