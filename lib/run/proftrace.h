/*
 * The CUPTI trace file: what profiler/libcgscope-cupti.so writes and lib/run/prof.c reads.
 * docs/trace-format.md is the prose; this header is the one definition both sides use
 * (plain C types, no CUDA). Little-endian, every record 8-byte aligned.
 *
 *   file    := header record* END
 *   header  := struct cgs_trace_header (32 bytes)
 *   record  := struct cgs_trace_rec (8 bytes) payload (words * 8 - 8 bytes)
 *
 * A reader skips record types it does not know (their size is in the header), so new
 * types are added without a version bump; a change to an existing payload bumps
 * CGS_TRACE_VERSION. CPU-side times (ranges, launches) are CLOCK_MONOTONIC ns in the
 * traced process; GPU times (kernel, memcpy, memset) are CUPTI's timestamps, used only as
 * durations.
 */
#ifndef CGS_PROFTRACE_H
#define CGS_PROFTRACE_H

#include <stdint.h>

#define CGS_TRACE_MAGIC "CGSTRACE"
#define CGS_TRACE_VERSION 1u
#define CGS_TRACE_BOM 0x01020304u
/* the largest record a writer may emit (a NAME with a long demangled template name) */
#define CGS_TRACE_MAX_RECORD (64u * 1024u)

struct cgs_trace_header {
    char magic[8];        /* "CGSTRACE" */
    uint32_t version;     /* CGS_TRACE_VERSION */
    uint32_t bom;         /* CGS_TRACE_BOM as written by the producer */
    uint32_t header_size; /* sizeof(struct cgs_trace_header) */
    uint32_t flags;       /* 0 */
    uint64_t pid;
};

enum cgs_trace_type {
    CGS_TR_INFO = 1,    /* text "key=value" NUL-terminated (pid, rank, cupti versions, ...) */
    CGS_TR_PUSH = 2,    /* struct cgs_tr_push, then the range name (NUL-terminated) */
    CGS_TR_POP = 3,     /* struct cgs_tr_pop */
    CGS_TR_LAUNCH = 4,  /* struct cgs_tr_launch: a launch/memcpy/memset API entered */
    CGS_TR_NAME = 5,    /* struct cgs_tr_name, then the (mangled) kernel name */
    CGS_TR_KERNEL = 6,  /* struct cgs_tr_kernel */
    CGS_TR_MEMCPY = 7,  /* struct cgs_tr_memcpy */
    CGS_TR_MEMSET = 8,  /* struct cgs_tr_memset */
    CGS_TR_GNODE = 9,   /* struct cgs_tr_gnode: a graph node created (stream capture) */
    CGS_TR_GCLONE = 10, /* struct cgs_tr_gclone: a node cloned (instantiation) */
    CGS_TR_DROPPED = 11,/* struct cgs_tr_count: activity records CUPTI dropped */
    CGS_TR_END = 12,    /* struct cgs_tr_end: the last record of a complete file */
};

struct cgs_trace_rec {
    uint16_t type;  /* enum cgs_trace_type */
    uint16_t words; /* record size in 8-byte words, this header included (>= 1) */
    uint32_t tid;   /* the thread (gettid) for PUSH, POP, LAUNCH, GNODE; else 0 */
};

struct cgs_tr_push {
    uint64_t ts;     /* CLOCK_MONOTONIC ns */
    uint64_t uid;    /* process-unique, > 0 */
    uint64_t parent; /* uid of the range this one opened inside on the same thread, or 0 */
    uint32_t depth;  /* 1 for an outermost range */
    uint32_t domain; /* 0: the default NVTX domain; else a per-process domain number */
};

struct cgs_tr_pop {
    uint64_t ts;
    uint64_t uid; /* the range closed (0: a pop with no range open) */
};

struct cgs_tr_launch {
    uint64_t ts;
    uint64_t uid;  /* innermost range open on the calling thread, or 0 */
    uint32_t corr; /* CUPTI correlation id, matches the activity records */
    uint16_t cbid; /* the runtime or driver API callback id */
    uint8_t api;   /* 1 runtime, 2 driver */
    uint8_t graph; /* 1 when the call launches a CUDA graph */
};

struct cgs_tr_name {
    uint32_t id; /* > 0, referenced by cgs_tr_kernel.name */
    uint32_t len;
};

struct cgs_tr_kernel {
    uint64_t start, end;
    uint64_t graph_node; /* 0 unless launched from a CUDA graph */
    uint32_t corr, graph_id, device, stream;
    uint32_t name; /* a NAME record's id */
    int32_t grid[3], block[3];
    uint32_t pad;
};

struct cgs_tr_memcpy {
    uint64_t start, end, bytes, graph_node;
    uint32_t corr, graph_id, device, stream;
    uint8_t kind, src_kind, dst_kind, pad[5];
};

struct cgs_tr_memset {
    uint64_t start, end, bytes, graph_node;
    uint32_t corr, graph_id, device, stream;
    uint32_t value, pad;
};

struct cgs_tr_gnode {
    uint64_t node;     /* cuptiGetGraphNodeId */
    uint64_t uid;      /* innermost range open on the capturing thread, or 0 */
    uint32_t graph_id; /* cuptiGetGraphId of the node's graph */
    uint32_t pad;
};

struct cgs_tr_gclone {
    uint64_t node;     /* the clone (what kernel records of the instantiated graph carry) */
    uint64_t original; /* the node it was cloned from */
};

struct cgs_tr_count {
    uint64_t count;
};

enum cgs_trace_end_reason { CGS_END_EXIT = 0, CGS_END_SIGNAL = 1 };

struct cgs_tr_end {
    uint64_t records; /* records in the file before END */
    uint64_t dropped; /* activity records CUPTI reported dropped */
    uint64_t lost;    /* our own records lost (allocation failure) */
    uint32_t reason;  /* enum cgs_trace_end_reason */
    uint32_t signo;   /* the signal for CGS_END_SIGNAL */
};

#endif
