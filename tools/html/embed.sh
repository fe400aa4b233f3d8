#!/bin/sh
# The page's assets as C: each FILE (tools/html/report.css -> html_report_css) an array of its
# lines as string literals, NULL-terminated (no literal past C's 4095-character minimum).
# usage: sh tools/html/embed.sh FILE... > html-assets.h
set -e
echo "/* made by tools/html/embed.sh from $* : do not edit */"
for f in "$@"; do
    name=html_$(basename "$f" | tr '.-' '__')
    echo "static const char *const ${name}[] = {"
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$/\\n",/' "$f"
    echo "    NULL,"
    echo "};"
done
# the page's script as the page holds it (a newline, then each line with its own): its SHA-256
# in base64, the hash the page's Content-Security-Policy allows and nothing else
for f in "$@"; do
    case "$f" in *.js) ;; *) continue ;; esac
    name=HTML_$(basename "$f" | tr '.-' '__' | tr 'a-z' 'A-Z')_SHA256
    hex=$({ printf '\n'; sed -e '$a\' "$f"; } | sha256sum | cut -d' ' -f1)
    b64=$(printf "$(echo "$hex" | sed 's/../& /g' | awk '{for (i = 1; i <= NF; i++) printf "\\%03o", 16 * (index(H, substr($i, 1, 1)) - 1) + index(H, substr($i, 2, 1)) - 1}' H=0123456789abcdef)" | base64 -w0)
    echo "#define $name \"$b64\""
done
