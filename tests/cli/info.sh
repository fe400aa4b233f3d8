#!/bin/sh
# cgscope's command line: help, version, usage errors, and `info` on a sample.
. tests/cli/lib.sh
check "version" 0 "$CGSCOPE" --version
has "version" "$out" "cgscope "
# Graphviz, ncursesw and libzip are opened by the commands that use them (lib/base/dynlib.h), so
# they are not among the binary's needed libraries and a command that does not draw or read
# a zip never maps them (LD_DEBUG: glibc's loader lists what it opens)
if command -v readelf >/dev/null; then
    readelf -d "$CGSCOPE" >"$T/dyn" 2>&1
    has "cJSON linked" "$T/dyn" "libcjson"
    for l in libgvc libcgraph libzip libncurses libtinfo libcrypto; do
        hasnt "$l not linked" "$T/dyn" "$l"
    done
fi
LD_DEBUG=files "$CGSCOPE" split samples/cgs_transformer_dyn.json --split-ops cgs.attention \
    >/dev/null 2>"$T/ld-split"
if grep -q "file=libcjson" "$T/ld-split"; then
    hasnt "split opens no Graphviz" "$T/ld-split" "file=libgvc"
    hasnt "split opens no libzip" "$T/ld-split" "file=libzip"
    LD_DEBUG=files "$CGSCOPE" dot samples/cgs_transformer_dyn.json --collapse pieces \
        --split-ops cgs.attention -o "$T/p.svg" >/dev/null 2>"$T/ld-dot"
    has "dot opens Graphviz" "$T/ld-dot" "file=libgvc"
    hasnt "dot opens no libzip" "$T/ld-dot" "file=libzip"
    test -s "$T/p.svg" || fail "dot drew nothing"
fi
# a machine without them: a copy of the binary with their names changed (same length)
sed 's/libgvc\.so\./libgvX.so./; s/libncursesw\.so\./libncursesX.so./; s/libzip\.so\./libziX.so./' \
    "$CGSCOPE" >"$T/cgs-nolib" && chmod +x "$T/cgs-nolib"
if ! cmp -s "$CGSCOPE" "$T/cgs-nolib" && head -c 4 "$CGSCOPE" | grep -q ELF; then
    check "split without Graphviz" 0 "$T/cgs-nolib" split samples/cgs_transformer_dyn.json
    check "dot without Graphviz" 2 "$T/cgs-nolib" dot samples/cgs_transformer_dyn.json -o "$T/n.svg"
    has "what is missing" "$err" "cgscope: error: cannot load Graphviz: libgvX.so."
    has "what to install" "$err" "apt-get install libgvc6"
    nofile "no picture" "$T/n.svg"
    printf 'PK\003\004' >"$T/a.pt2"
    check ".pt2 without libzip" 2 "$T/cgs-nolib" info "$T/a.pt2"
    has "libzip missing" "$err" "a.pt2: error: cannot load libzip: libziX.so."
    # (top without ncursesw needs a terminal: tests/cli/top.sh)
fi
check "help" 0 "$CGSCOPE" help
has "help lists info" "$out" "  info "
check "no args" 2 "$CGSCOPE"
check "unknown command" 2 "$CGSCOPE" frobnicate
has "unknown command message" "$err" "'frobnicate' is not a cgscope command"
check "info --help" 0 "$CGSCOPE" info --help
cp "$out" "$T/help1"
check "help info" 0 "$CGSCOPE" help info
cmp -s "$out" "$T/help1" || { echo "FAIL 'help info' differs from 'info --help'"; fails=$((fails + 1)); }
has "info usage" "$out" "usage: cgscope info"
check "info without a graph" 2 "$CGSCOPE" info
has "missing GRAPH" "$err" "missing GRAPH"
check "info bad option" 2 "$CGSCOPE" info --bogus samples/cgs_transformer_dyn.json
has "bad option" "$err" "unknown option '--bogus'"
check "info two graphs" 2 "$CGSCOPE" info samples/cgs_transformer_dyn.json samples/cgs_transformer_dyn.json
# the commands are listed in alphabetical order
"$CGSCOPE" help | sed -n '/^commands:/,/^$/p' | awk 'NF {print $1}' | grep -v commands: >"$T/cmds"
sort -c "$T/cmds" 2>/dev/null || { echo "FAIL command table not sorted"; fails=$((fails + 1)); }
# info on the sample: 134 nodes, 2 symbols (counted independently with grep)
check "info sample" 0 "$CGSCOPE" info samples/cgs_transformer_dyn.json
has "info nodes" "$out" "nodes:    134"
has "info symbols" "$out" "s27 (hint 16, [2, 256])"
check "info --json" 0 "$CGSCOPE" info --json samples/cgs_transformer_dyn.json
has "json nodes" "$out" '"nodes":	134'
want=$(grep -o '"target": "torch._C._nn.linear"' samples/cgs_transformer_dyn.json | wc -l)
has "json linear count" "$out" "\"torch._C._nn.linear\":	$want"
# stdout write errors are reported (git's rule)
if [ -w /dev/full ]; then
    "$CGSCOPE" info samples/cgs_transformer_dyn.json >/dev/full 2>"$err"
    [ $? = 2 ] || { echo "FAIL writing to /dev/full did not fail"; fails=$((fails + 1)); }
    has "stdout full message" "$err" "write failure on standard output"
fi
# CGSCOPE_THREADS: a bad count is refused; a 1.2 MB graph (twelve renamed copies of the sample's
# nodes) is the same graph to every command with one thread and with four
check "CGSCOPE_THREADS bad" 2 env CGSCOPE_THREADS=0 "$CGSCOPE" info samples/cgs_transformer_dyn.json
has "CGSCOPE_THREADS message" "$err" "CGSCOPE_THREADS='0': expected a number of threads from 1 to 64"
python3 tests/cli/wide-graph.py samples/cgs_transformer_dyn.json "$T/wide.json"
for c in "info --json" "shapes --reinfer --json" "split --json --split-ops cgs.attention"; do
    CGSCOPE_THREADS=1 "$CGSCOPE" $c "$T/wide.json" >"$T/one.txt" 2>&1
    CGSCOPE_THREADS=4 "$CGSCOPE" $c "$T/wide.json" >"$T/four.txt" 2>&1
    cmp -s "$T/one.txt" "$T/four.txt" || fail "$c: 1 and 4 threads differ"
done
has "wide graph read" "$T/one.txt" '"pieces"'
finish
