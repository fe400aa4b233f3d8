#!/bin/sh
# The layers of lib/, lowest first: a file may include lib/ headers of its own folder and of
# the folders below it, never above (docs/design.md draws them).
#   base     memory, strings, maps, diagnostics, libraries opened on first use
#   ops      the operator registry (generated from torch's operator data)
#   ir       the graph: nodes, values, symbolic sizes, dtypes
#   readers  what a file is, and reading it: graph JSON, .pt2, compressed streams, Python
#            literals, operator declarations
#   writers  JSON out: documents and the IR's values as JSON
#   passes   split, shapes, layout
#   run      what runs produce: TORCH_TRACE logs, events, cache indexes, CUPTI traces
# lib/cgscope.h (the public umbrella) may include anything in lib/.
LAYERS="base ops ir readers writers passes run"
rank() { i=0; for l in $LAYERS; do [ "$l" = "$1" ] && { echo $i; return; }; i=$((i + 1)); done; echo 99; }
rc=0
for f in lib/*/*.c lib/*/*.h; do
    dir=$(basename "$(dirname "$f")")
    me=$(rank "$dir")
    [ "$me" = 99 ] && { echo "layering: $f is in lib/$dir/, which is no layer ($LAYERS)"; rc=1; continue; }
    for inc in $(sed -n 's|^#include "lib/\([a-z]*\)/.*|\1|p' "$f" | sort -u); do
        [ "$(rank "$inc")" -le "$me" ] && continue
        echo "layering: $f ($dir) includes lib/$inc/, a layer above it: $(grep -n "#include \"lib/$inc/" "$f" | head -1)"
        rc=1
    done
done
for f in lib/*.c; do [ -e "$f" ] && { echo "layering: $f: lib/'s sources live in its layer folders"; rc=1; }; done
exit $rc
