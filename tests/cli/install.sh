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
# a DESTDIR install leaves the loader's cache alone, and says what a linked program needs
has "install says ldconfig" "$out" "run ldconfig as root (or set LD_LIBRARY_PATH=/usr/lib"
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
    check "cgscope(1) renders" 0 man -l "$D/usr/share/man/man1/cgscope.1"
    has "a line starting with a quote kept" "$out" "':'-separated operator declaration files"
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
        _cgscope; echo \"ops: \${COMPREPLY[*]}\"
        COMP_WORDS=(cgscope cache simulate g.json --policy ''); COMP_CWORD=5; _cgscope
        echo \"sim: \${COMPREPLY[*]}\"
        COMP_WORDS=(cgscope check x --fail-on w); COMP_CWORD=4; _cgscope; echo \"fail: \${COMPREPLY[*]}\"
        COMP_WORDS=(cgscope info 'samples/two_graphs.torch_trace.log.xz#0/'); COMP_CWORD=2; _cgscope
        echo \"refs: \${COMPREPLY[*]}\"
        COMP_WORDS=(cgscope top samples/graph_break.torch_trace.l); COMP_CWORD=2; _cgscope
        echo \"logs: \${COMPREPLY[*]}\""
    has "complete commands" "$out" "cmds: split"
    has "complete options" "$out" "opts: --summary"
    has "complete ops" "$out" "ops: cgs.attention"
    # the values are the option table's: what the command takes, no more
    has "complete cache simulate's policies" "$out" "sim: magi megengine"
    hasnt "no split policy for the cache" "$out" "sim: magi megengine fusion"
    has "complete --fail-on" "$out" "fail: warning"
    has "complete a log's refs" "$out" "refs: samples/two_graphs.torch_trace.log.xz#0/0:dynamo"
    has "complete a .log" "$out" "logs: samples/graph_break.torch_trace.log"
fi
# every value an option's table names is one the command takes (help --values, then the
# command itself: a refused value is said as '--OPT takes ...')
for c in $("$D/usr/bin/cgscope" help --commands); do
    for o in $("$D/usr/bin/cgscope" help --options "$c"); do
        for v in $("$D/usr/bin/cgscope" help --values "$c" "$o" 2>/dev/null); do
            "$D/usr/bin/cgscope" $c "$o" "$v" --help >/dev/null 2>"$T/v.err"
            ! grep -q "takes" "$T/v.err" || fail "$c $o $v: offered, then refused"
        done
    done
done
check "a value not in the table" 2 "$D/usr/bin/cgscope" dot samples/cgs_transformer_dyn.json --rankdir XY
has "said with the values" "$err" "--rankdir takes TB, LR, BT or RL, not 'XY'"
# the shared library, with its SONAME, beside the static one
[ -f "$D/usr/lib/libcgscope.a" ] || fail "no libcgscope.a"
[ -f "$D/usr/lib/libcgscope.so.0" ] && [ -L "$D/usr/lib/libcgscope.so" ] || fail "no libcgscope.so.0 and its link"
LC_ALL=C readelf -d "$D/usr/lib/libcgscope.so.0" | grep -q 'SONAME.*\[libcgscope.so.0\]' || fail "SONAME is not libcgscope.so.0"
# only the public API is installed: the umbrella header and what it includes
[ -s "$D/usr/include/cgscope/cgscope.h" ] || fail "no umbrella header"
for h in json-scan.h jsonw.h strmap.h dynlib.h zip-api.h pylit.h; do
    [ -z "$(find "$D/usr/include/cgscope" -name "$h")" ] || fail "private header installed: $h"
done
# a program against the installed library, with pkg-config's flags only
cat > "$T/prog.c" <<'C'
#include <stdio.h>
#include <cgscope/cgscope.h>
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
cflags=$(pkg-config --cflags cgscope)
# every installed header compiles on its own, as C11, with the .pc's flags alone
for h in "$D"/usr/include/cgscope/cgscope.h "$D"/usr/include/cgscope/lib/*/*.h; do
    case $h in *-list.h) continue ;; esac # X-macro lists, included by their headers
    printf '#include "%s"\nint main(void) { return 0; }\n' "$h" > "$T/one.c"
    ${CC:-cc} -std=c11 -Wall -Wextra -pedantic -Werror $cflags -c "$T/one.c" -o "$T/one.o" \
        2>"$err" || { fail "$(basename "$h") does not compile on its own"; head -3 "$err"; }
done
check "build against installed lib" 0 ${CC:-cc} -std=c11 -o "$T/prog" "$T/prog.c" $flags
LC_ALL=C readelf -d "$T/prog" | grep -q 'NEEDED.*libcgscope.so.0' || fail "the program does not link libcgscope.so.0"
check "program runs" 0 env LD_LIBRARY_PATH="$D/usr/lib" "$T/prog" samples/cgs_transformer_dyn.json
has "program split" "$out" "9 pieces"
check "static build" 0 ${CC:-cc} -std=c11 -o "$T/prog-static" "$T/prog.c" $cflags "$D/usr/lib/libcgscope.a" \
    $(pkg-config --static --libs cgscope | sed 's/-lcgscope//')
check "static program runs" 0 "$T/prog-static" samples/cgs_transformer_dyn.json
has "static program split" "$out" "9 pieces"
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
# the .pc always says the PREFIX it was installed with (not the one of an earlier install)
D2=$T/root2
check "make install /opt" 0 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s install B=build DESTDIR="$D2" PREFIX=/opt/cgs
grep -q '^prefix=/opt/cgs$' "$D2/opt/cgs/lib/pkgconfig/cgscope.pc" || fail "the .pc of PREFIX=/opt/cgs says: $(head -1 "$D2/opt/cgs/lib/pkgconfig/cgscope.pc")"
rm -rf "$D2"
# the Python bridge importable after make install, without pip (PEP 668): a .pth where Python
# looks for this PREFIX's packages; checked with Debian's python3, a fresh interpreter
PY3=/usr/bin/python3; [ -x $PY3 ] || PY3=python3
P=$T/prefix
check "make install (no DESTDIR)" 0 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s install B=build PREFIX="$P" PYTHON=$PY3
pth=$(find "$P/lib" -name cgscope_torch.pth | head -1)
[ -n "$pth" ] || fail "no cgscope_torch.pth under $P/lib"
has "install tells PYTHONPATH for a PREFIX off python's path" "$out" "PYTHONPATH=$P/share/cgscope/python"
# (found, not run: the bridge imports torch, which this machine need not have)
check "import after install" 0 $PY3 -c "
import importlib.util, site, sys; site.addsitedir(sys.argv[1])
spec = importlib.util.find_spec('cgscope_torch')
assert spec and spec.origin.startswith(sys.argv[2]), spec" "$(dirname "$pth")" "$P/share/cgscope/python"
check "make uninstall (no DESTDIR)" 0 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s uninstall B=build PREFIX="$P" PYTHON=$PY3
[ -z "$(find "$P" -type f | head -3)" ] || fail "uninstall left: $(find "$P" -type f | head -3)"
check "make uninstall" 0 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s uninstall B=build DESTDIR="$D" PREFIX=/usr
left=$(find "$D" -type f | head -5)
[ -z "$left" ] || fail "uninstall left: $left"
finish
