/*
 * libcgscope's public API in one header: `#include <cgscope/cgscope.h>` with the flags of
 * `pkg-config --cflags cgscope` (the installed headers are this one and what it includes).
 *
 *   loading       lib/readers/load.h      a graph JSON or torch.export .pt2 into lib/ir/graph.h's graph
 *   splitting     lib/passes/split.h     MagiCompiler / vLLM piecewise split, with reasons
 *   shapes        lib/passes/shapes.h    shape, stride and dtype inference (lib/ir/symexpr.h sizes)
 *   layout        lib/passes/layout.h    Inductor's layout decisions
 *   operators     lib/ops/ops.h       the operator registry; lib/readers/opdecl.h user declarations
 *   runs          lib/run/dash.h      compiles and cache lookups from TORCH_TRACE logs, events and
 *                 lib/run/follow.h    compile-cache indexes (followed as they grow);
 *                 lib/run/cachesim.h  cache policies replayed
 *   profiles      lib/run/prof.h      CUPTI traces and their per-piece reports
 *   inputs        lib/readers/sniff.h     what kind of file an input is; lib/readers/unpack.h gzip/xz/zstd
 *   diagnostics   lib/base/diag.h      every error's file, place and reason
 */
#ifndef CGSCOPE_H
#define CGSCOPE_H

#include "lib/run/cachesim.h"
#include "lib/run/dash.h"
#include "lib/base/diag.h"
#include "lib/readers/file.h"
#include "lib/run/follow.h"
#include "lib/ir/graph.h"
#include "lib/passes/layout.h"
#include "lib/readers/load.h"
#include "lib/readers/opdecl.h"
#include "lib/ops/ops.h"
#include "lib/run/prof.h"
#include "lib/passes/shapes.h"
#include "lib/readers/sniff.h"
#include "lib/passes/split.h"
#include "lib/ir/symexpr.h"
#include "lib/readers/unpack.h"

#endif
