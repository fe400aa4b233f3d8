#!/bin/sh
# Every example in every command's --help runs as written from a clone (output files, -o and
# --trace-events, go to a temporary folder instead of the current one).
: "${CGSCOPE:=./cgscope}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
count=0
for c in $("$CGSCOPE" --help 2>&1 | awk '/^  [a-z]+ /{print $1}'); do
    # example lines, with "\" continuations joined
    "$CGSCOPE" "$c" --help | sed -n '/^example/,$p' | sed -n 's/^  *//p' |
        awk '{ if (sub(/\\$/, "")) { acc = acc $0 } else { print acc $0; acc = "" } }' |
        grep '^cgscope ' > "$tmp/ex.$c" || continue
    while read -r line; do
        count=$((count + 1))
        cmd=$(printf '%s\n' "$line" | sed "s| -o \\([^ ]*\\)| -o $tmp/\\1|; s| --trace-events \\([^ ]*\\)| --trace-events $tmp/\\1|; s|^cgscope |$CGSCOPE |")
        sh -c "$cmd" >/dev/null 2>"$tmp/err" ||
            { echo "FAIL example of '$c' exits $?: $line"; sed 's/^/  | /' "$tmp/err" | head -3;
              fails=$((fails + 1)); }
    done < "$tmp/ex.$c"
done
[ $count -ge 5 ] || { echo "FAIL only $count examples found"; fails=$((fails + 1)); }
echo "help examples: $count run, $fails failures"
[ $fails = 0 ]
