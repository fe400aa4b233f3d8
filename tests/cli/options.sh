#!/bin/sh
# Nothing a command accepts is undocumented: every long option of a command's option table
# (tools/cmd.h's struct cli_opt: what cli_getopt parses with, and where --help's and the man
# page's descriptions come from; `cgscope help --options CMD` lists it) is in its usage line,
# described in its --help, and in its man page's OPTIONS; an option no table holds is refused;
# bash and zsh complete the values of the same options; a mistyped option gets the nearest one
# suggested, and an option without its value says so.
. tests/cli/lib.sh
n=0
for c in $("$CGSCOPE" help --commands); do
    "$CGSCOPE" "$c" --help > "$T/help" 2>&1 || fail "$c --help"
    sed -n '1,/^$/p' "$T/help" > "$T/usage"
    "$CGSCOPE" help --man "$c" > "$T/man" || fail "$c man page"
    sed -n '/^\.SH OPTIONS/,/^\.SH EXIT/p' "$T/man" > "$T/man-options"
    for o in $("$CGSCOPE" help --options "$c"); do
        [ "$o" = --help ] && continue
        n=$((n + 1))
        python3 - "$o" "$T/usage" "$T/help" "$T/man-options" <<'PY' || fail "$c $o"
import re, sys
o, usage, help_, man = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read(), open(sys.argv[4]).read()
word = re.escape(o) + r"(?![\w-])"
assert re.search(word, usage), "not in the usage line"
# described: a line of the option list that starts with it (after "-x, " at most)
assert re.search(r"^\s+(-\w, |--[\w-]+, )?" + word, help_, re.M), "not described in --help"
roff = re.escape(o.replace("-", "\\-"))
assert re.search(r"\\fB" + roff + r"\\fR", man), "not in the man page's OPTIONS"
PY
    done
done
[ "$n" -gt 60 ] || fail "only $n options seen"
# the value completions of bash and zsh: the same options
sed -n 's/^ *\(--[a-z-]*\)[|)].*/\1/p' tools/completion/cgscope.bash | sort -u > "$T/bash"
sed -n 's/^ *\(--[a-z-]*\)[|)].*/\1/p' tools/completion/_cgscope | sort -u > "$T/zsh"
cmp -s "$T/bash" "$T/zsh" || fail "bash and zsh complete values of different options: $(diff "$T/bash" "$T/zsh" | tr '\n' ' ')"
# did you mean, from the option table
check "mistyped option" 2 "$CGSCOPE" split samples/llama_tiny.dynamo.json --splt-ops @sdpa
has "nearest option" "$err" "did you mean '--split-ops'?"
check "mistyped dot option" 2 "$CGSCOPE" dot samples/llama_tiny.dynamo.json --colapse pieces
has "nearest dot option" "$err" "did you mean '--collapse'?"
check "nothing near" 2 "$CGSCOPE" info --zzzzzzzz samples/llama_tiny.dynamo.json
hasnt "no suggestion for nonsense" "$err" "did you mean"
check "a value missing" 2 "$CGSCOPE" info samples/llama_tiny.dynamo.json --model
has "value missing named" "$err" "option '--model' needs a value"
check "short option unknown" 2 "$CGSCOPE" dot -x samples/llama_tiny.dynamo.json
has "short option named" "$err" "unknown option '-x'"
# cache's forms share one table: --all is listed, and refused where it means nothing
"$CGSCOPE" help --options cache | grep -qx -- --all || fail "cache's --all is not in its table"
check "diff's option given to simulate" 2 "$CGSCOPE" cache simulate samples/cgs_transformer_dyn.dynamo.json --all
has "names the form it belongs to" "$err" "'--all' is an option of 'cgscope cache diff'"
check "simulate's option given to the index form" 2 "$CGSCOPE" cache samples/magi_compile_cache.py --shapes 1
has "names simulate" "$err" "is an option of 'cgscope cache simulate'"
# an option's values are the table's: what --help's usage lists (--policy magi|fusion|device)
# is what `help --values` gives, which completion offers and cli_getopt checks
for c in $("$CGSCOPE" help --commands); do
    "$CGSCOPE" $c --help 2>/dev/null | grep -o -- "--[a-z-]* [a-zA-Z0-9._@-]*|[a-zA-Z0-9._@|-]*" |
        while read -r opt vals; do
            have=$("$CGSCOPE" help --values "$c" "$opt" 2>/dev/null | tr '\n' '|' | sed 's/|$//')
            [ -z "$have" ] && continue # an option that takes any value ("FILE|-")
            [ "$have" = "$vals" ] || echo "FAIL $c $opt: usage says $vals, the table $have"
        done
done > "$T/values"
[ -s "$T/values" ] && { cat "$T/values"; fail "usage and option table disagree on values"; }
check "help --values of an unknown option" 2 "$CGSCOPE" help --values split --nope
echo "$n options checked"
finish
