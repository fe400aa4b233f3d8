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
