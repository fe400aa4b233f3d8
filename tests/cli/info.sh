#!/bin/sh
# cgscope's command line: help, version, usage errors, and `info` on a sample.
: "${CGSCOPE:=./cgscope}"
fails=0
check() { # description, expected status, command...
    desc=$1; want=$2; shift 2
    "$@" >/tmp/cgs-cli-out.$$ 2>/tmp/cgs-cli-err.$$
    rc=$?
    [ "$rc" = "$want" ] || { echo "FAIL $desc: exit $rc, expected $want"; sed 's/^/  | /' /tmp/cgs-cli-err.$$; fails=$((fails + 1)); }
}
has() { # description, file, text
    grep -qF -- "$3" "$2" || { echo "FAIL $1: no '$3' in output"; fails=$((fails + 1)); }
}
check "version" 0 "$CGSCOPE" --version
has "version" /tmp/cgs-cli-out.$$ "cgscope "
check "help" 0 "$CGSCOPE" help
has "help lists info" /tmp/cgs-cli-out.$$ "  info "
check "no args" 2 "$CGSCOPE"
check "unknown command" 2 "$CGSCOPE" frobnicate
has "unknown command message" /tmp/cgs-cli-err.$$ "'frobnicate' is not a cgscope command"
check "info --help" 0 "$CGSCOPE" info --help
cp /tmp/cgs-cli-out.$$ /tmp/cgs-cli-help1.$$
check "help info" 0 "$CGSCOPE" help info
cmp -s /tmp/cgs-cli-out.$$ /tmp/cgs-cli-help1.$$ || { echo "FAIL 'help info' differs from 'info --help'"; fails=$((fails + 1)); }
has "info usage" /tmp/cgs-cli-out.$$ "usage: cgscope info"
check "info without a graph" 2 "$CGSCOPE" info
has "missing GRAPH" /tmp/cgs-cli-err.$$ "missing GRAPH"
check "info bad option" 2 "$CGSCOPE" info --bogus samples/cgs_transformer_dyn.json
has "bad option" /tmp/cgs-cli-err.$$ "unknown option '--bogus'"
check "info two graphs" 2 "$CGSCOPE" info samples/cgs_transformer_dyn.json samples/cgs_transformer_dyn.json
# the commands are listed in alphabetical order
"$CGSCOPE" help | sed -n '/^commands:/,/^$/p' | awk 'NF {print $1}' | grep -v commands: >/tmp/cgs-cli-cmds.$$
sort -c /tmp/cgs-cli-cmds.$$ 2>/dev/null || { echo "FAIL command table not sorted"; fails=$((fails + 1)); }
# info on the sample: 134 nodes, 2 symbols (counted independently with grep)
check "info sample" 0 "$CGSCOPE" info samples/cgs_transformer_dyn.json
has "info nodes" /tmp/cgs-cli-out.$$ "nodes:    134"
has "info symbols" /tmp/cgs-cli-out.$$ "s27 (hint 16, [2, 256])"
check "info --json" 0 "$CGSCOPE" info --json samples/cgs_transformer_dyn.json
has "json nodes" /tmp/cgs-cli-out.$$ '"nodes":	134'
want=$(grep -o '"target": "torch._C._nn.linear"' samples/cgs_transformer_dyn.json | wc -l)
has "json linear count" /tmp/cgs-cli-out.$$ "\"torch._C._nn.linear\":	$want"
# stdout write errors are reported (git's rule)
if [ -w /dev/full ]; then
    "$CGSCOPE" info samples/cgs_transformer_dyn.json >/dev/full 2>/tmp/cgs-cli-err.$$
    [ $? = 2 ] || { echo "FAIL writing to /dev/full did not fail"; fails=$((fails + 1)); }
    has "stdout full message" /tmp/cgs-cli-err.$$ "write failure on standard output"
fi
rm -f /tmp/cgs-cli-*.$$
echo "$fails failures"
[ $fails = 0 ]
