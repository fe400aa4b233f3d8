#!/bin/sh
# Writes the C header of the shared objects cgscope opens on first use (lib/base/dynlib.h): for each
# MACRO=LINK-FLAGS argument, the objects the linker records (DT_NEEDED) when an empty program
# is linked with those flags, less those of an empty program linked with none, as
#   #define MACRO "libgvc.so.6 libcgraph.so.6 ..."
# Usage: sh tools/sonames.sh CC MACRO='flags' ... > sonames.h
set -eu
cc=$1
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cgscope-sonames.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
printf 'int main(void) { return 0; }\n' > "$tmp/empty.c"

needed() { # the DT_NEEDED names of an empty program linked with "$@"
    $cc "$tmp/empty.c" -o "$tmp/a.out" -Wl,--no-as-needed "$@" || {
        echo "tools/sonames.sh: cannot link an empty program with: $*" >&2
        exit 1
    }
    LC_ALL=C readelf -d "$tmp/a.out" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'
}

base=$(needed)
echo "/* made by tools/sonames.sh: the shared objects opened on first use (lib/base/dynlib.h) */"
for arg; do
    macro=${arg%%=*}
    # shellcheck disable=SC2086 # the flags are words
    names=$(needed ${arg#*=} | while read -r n; do
        case " $(echo $base) " in *" $n "*) ;; *) printf '%s ' "$n" ;; esac
    done)
    [ -n "$names" ] || { echo "tools/sonames.sh: $macro: no library in: ${arg#*=}" >&2; exit 1; }
    printf '#define %s "%s"\n' "$macro" "${names% }"
done
