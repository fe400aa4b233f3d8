/*
 * libcgscope's public API in one header: `#include <cgscope/cgscope.h>` with the flags of
 * `pkg-config --cflags cgscope` (the installed headers are this one and what it includes).
 *
 *   loading       lib/load.h      a graph JSON or torch.export .pt2 into lib/graph.h's graph
 *   splitting     lib/split.h     MagiCompiler / vLLM piecewise split, with reasons
 *   shapes        lib/shapes.h    shape, stride and dtype inference (lib/symexpr.h sizes)
 *   layout        lib/layout.h    Inductor's layout decisions
 *   operators     lib/ops.h       the operator registry; lib/opdecl.h user declarations
 *   runs          lib/dash.h      compiles and cache lookups from TORCH_TRACE logs, events and
 *                 lib/follow.h    compile-cache indexes (followed as they grow);
 *                 lib/cachesim.h  cache policies replayed
 *   profiles      lib/prof.h      CUPTI traces and their per-piece reports
 *   inputs        lib/sniff.h     what kind of file an input is; lib/unpack.h gzip/xz/zstd
 *   diagnostics   lib/diag.h      every error's file, place and reason
 */
#ifndef CGSCOPE_H
#define CGSCOPE_H

#include "lib/cachesim.h"
#include "lib/dash.h"
#include "lib/diag.h"
#include "lib/file.h"
#include "lib/follow.h"
#include "lib/graph.h"
#include "lib/layout.h"
#include "lib/load.h"
#include "lib/opdecl.h"
#include "lib/ops.h"
#include "lib/prof.h"
#include "lib/shapes.h"
#include "lib/sniff.h"
#include "lib/split.h"
#include "lib/symexpr.h"
#include "lib/unpack.h"

#endif
