#!/bin/sh
# make install into a DESTDIR: the installed binary runs and finds its shipped operator
# declarations; a program builds against the installed library with pkg-config alone; man
# pages (one per command, from the --help tables), completions and the Python package are
# there; make uninstall removes it all.
. tests/cli/lib.sh
command -v pkg-config >/dev/null || { echo "skipped: no pkg-config"; exit 77; }
D=$T/root
check "make install" 0 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s install B=build DESTDIR="$D" PREFIX=/usr
[ -x "$D/usr/bin/cgscope" ] || fail "no installed binary"
check "installed binary runs" 0 "$D/usr/bin/cgscope" split samples/cgs_transformer_dyn.json --split-ops cgs.attention --summary
has "installed split" "$out" "9 pieces"
# the shipped ops/samples.ops declares cgs.attention: found beside the installed binary
check "installed declarations" 0 "$D/usr/bin/cgscope" shapes --reinfer samples/cgs_transformer_dyn.json --check
for c in $("$D/usr/bin/cgscope" help --commands); do
    [ -s "$D/usr/share/man/man1/cgscope-$c.1" ] || fail "no man page for $c"
done
[ -s "$D/usr/share/man/man1/cgscope.1" ] || fail "no cgscope.1"
if command -v man >/dev/null; then
    check "man page renders" 0 man -l "$D/usr/share/man/man1/cgscope-split.1"
    has "man page text" "$out" "--split-ops"
fi
[ -s "$D/usr/share/bash-completion/completions/cgscope" ] || fail "no bash completion"
[ -s "$D/usr/share/zsh/site-functions/_cgscope" ] || fail "no zsh completion"
[ -s "$D/usr/share/cgscope/python/cgscope_torch.py" ] || fail "no python bridge"
# bash completion: commands, options, presets and the graph's targets for --split-ops
if command -v bash >/dev/null; then
    check "bash completion" 0 env PATH="$D/usr/bin:$PATH" bash -c "
        . '$D/usr/share/bash-completion/completions/cgscope'
        COMP_WORDS=(cgscope sp); COMP_CWORD=1; _cgscope; echo \"cmds: \${COMPREPLY[*]}\"
        COMP_WORDS=(cgscope split --su); COMP_CWORD=2; _cgscope; echo \"opts: \${COMPREPLY[*]}\"
        COMP_WORDS=(cgscope split samples/cgs_transformer_dyn.json --split-ops cgs); COMP_CWORD=4
        _cgscope; echo \"ops: \${COMPREPLY[*]}\""
    has "complete commands" "$out" "cmds: split"
    has "complete options" "$out" "opts: --summary"
    has "complete ops" "$out" "ops: cgs.attention"
fi
# a program against the installed library, with pkg-config's flags only
cat > "$T/prog.c" <<'C'
#include <stdio.h>
#include "lib/load.h"
#include "lib/split.h"
int main(int argc, char **argv)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_graph *g = cgs_graph_load(argv[1], NULL, &d);
    const char *ops[] = {"cgs.attention"};
    struct cgs_split_opts so = {CGS_SPLIT_MAGI, ops, 1};
    struct cgs_split *s;
    (void)argc;
    if (!g || cgs_split_run(g, &so, &s, &d))
        return 2;
    printf("%u pieces\n", s->n_pieces);
    cgs_graph_free(g);
    return 0;
}
C
export PKG_CONFIG_PATH="$D/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D"
flags=$(pkg-config --cflags --libs cgscope) || fail "pkg-config cgscope"
check "build against installed lib" 0 ${CC:-cc} -std=c11 -o "$T/prog" "$T/prog.c" $flags
check "program runs" 0 "$T/prog" samples/cgs_transformer_dyn.json
has "program split" "$out" "9 pieces"
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
# the Python bridge installs as a package (torch is its only dependency; not needed to install)
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3 # Debian's, the one tools/deps.sh equips
if $PY -c "import setuptools, pip, wheel" 2>/dev/null; then
    # from a copy: setuptools writes build/ and *.egg-info beside the sources it builds
    cp -r tools/python "$T/pysrc"
    check "pip install tools/python" 0 $PY -m pip install --quiet --no-build-isolation \
        --no-deps --target "$T/py" "$T/pysrc"
    [ -s "$T/py/cgscope_torch.py" ] || fail "pip install: no cgscope_torch.py"
    ls "$T/py" | grep -q '^cgscope_torch-0.1.0.dist-info$' || fail "pip install: no dist-info"
fi
check "make uninstall" 0 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s uninstall B=build DESTDIR="$D" PREFIX=/usr
left=$(find "$D" -type f | head -5)
[ -z "$left" ] || fail "uninstall left: $left"
finish
