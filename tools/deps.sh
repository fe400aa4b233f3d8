#!/bin/sh
# Install the Debian packages cgscope needs, when missing (apt-get; through sudo when not
# root). `make deps` runs this; on a machine without make yet, run it directly:
#   sh tools/deps.sh          what building and running cgscope needs
#   sh tools/deps.sh --test   that, and what the tests need (cmocka, xz-utils, python3 with pip and
#                             setuptools, valgrind, tmux, clang for make fuzz,
#                             chromium: the page cgscope html writes, loaded headless,
#                             libsimdjson-dev: make bench's yardstick for the loader)
set -eu
PKGS="make gcc g++ libc6-dev pkg-config libcjson-dev libzip-dev libgraphviz-dev libncurses-dev graphviz zlib1g-dev liblzma-dev libzstd-dev"
case "${1:-}" in
--test) PKGS="$PKGS libcmocka-dev xz-utils python3 python3-pip python3-setuptools python3-wheel valgrind tmux clang chromium libsimdjson-dev" ;;
"") ;;
*) echo "usage: sh tools/deps.sh [--test]" >&2; exit 2 ;;
esac
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
if [ -z "$missing" ]; then
    echo "deps: all installed"
    exit 0
fi
echo "deps: installing$missing"
if [ "$(id -u)" = 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "deps: missing:$missing" >&2
    echo "deps: not root and no sudo here: run this script as root (su -c 'sh tools/deps.sh')," >&2
    echo "      or install those packages with your administrator" >&2
    exit 1
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
