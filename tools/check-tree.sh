#!/bin/sh
# What the repository holds is sources, tests and small data: fail on a committed core dump
# (core, core.N, vgcore.N) or a tracked file over 10 MB outside tests/data. Run from the
# project root by .ci/run (and by hand: sh tools/check-tree.sh).
set -eu
git rev-parse --git-dir >/dev/null 2>&1 || { echo "check-tree: not a git checkout" >&2; exit 2; }
bad=0
for f in $(git ls-files); do
    case $(basename "$f") in
    core | core.[0-9]* | vgcore.[0-9]*)
        echo "check-tree: '$f' is a core dump: git rm --cached it (core files are ignored)" >&2
        bad=1 ;;
    esac
    case $f in tests/data/*) continue ;; esac
    if [ -f "$f" ] && [ "$(wc -c < "$f")" -gt 10485760 ]; then
        echo "check-tree: '$f' is over 10 MB: keep it out of the tree (or, test data, in tests/data)" >&2
        bad=1
    fi
done
[ $bad = 0 ] && echo "check-tree: ok"
exit $bad
