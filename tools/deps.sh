#!/bin/sh
# Install the Debian packages cgscope needs to build and test, when missing
# (apt-get, through sudo when not root). `make deps` runs this; on a machine
# without make yet, run it directly: sh tools/deps.sh
set -eu
PKGS="make gcc libc6-dev pkg-config libcjson-dev libzip-dev libgraphviz-dev libncurses-dev \
libcmocka-dev graphviz python3 valgrind tmux"
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
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
