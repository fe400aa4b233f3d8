#!/bin/sh
# docs/guide.md runs as written: after its set-up line (cgscope on PATH), every `$ cgscope ...`
# example and every line of its ```sh blocks runs from the repository root and exits 0; the
# first line of each example's shown output is what the command prints.
. tests/cli/lib.sh
bin=$(cd "$(dirname "$CGSCOPE")" && pwd)/$(basename "$CGSCOPE")
mkdir "$T/bin" && ln -s "$bin" "$T/bin/cgscope"
python3 - docs/guide.md "$T/cmds" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
out, block, i = [], None, 0
while i < len(lines):
    l = lines[i]
    if l.startswith("```"):
        if block is None:
            block = l[3:].strip()
        else:
            block = None
        i += 1
        continue
    if block == "sh" and l.strip() and not l.startswith("make "):
        out.append(("", l.split("  #")[0].strip()))
    elif block == "" and l.startswith("$ "):
        first = lines[i + 1] if i + 1 < len(lines) and not lines[i + 1].startswith("```") else ""
        out.append((first, l[2:]))
    i += 1
with open(sys.argv[2], "w") as f:
    for first, cmd in out:
        f.write(cmd + "\t" + first + "\n")
PY
n=0
while IFS="$(printf '\t')" read -r cmd first; do
    n=$((n + 1))
    check "guide: $cmd" 0 env PATH="$T/bin:$PATH" sh -c "$cmd"
    if [ -n "$first" ] && [ "$first" != "..." ]; then
        head -n 1 "$out" | grep -qF -- "$first" || fail "guide: $cmd: first line is not '$first' but '$(head -n 1 "$out")'"
    fi
done < "$T/cmds"
[ "$n" -ge 10 ] || fail "only $n commands found in docs/guide.md"
echo "$n commands of docs/guide.md"
rm -f t.svg
finish
