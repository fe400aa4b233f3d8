#!/bin/sh
# Fetch Debian's CUDA 11.8 headers and CUPTI (the non-free packages libcupti-dev, libcupti11.8
# and nvidia-cuda-dev's include/) into DIR, without touching the machine's own apt sources or
# installing anything: an apt source list and state in a temporary folder, `apt-get download`,
# and dpkg-deb -x. CI builds profiler/ against it (make profiler CUPTI_INC=DIR/usr/include/cupti.h
# CUPTI_LIBDIR=DIR/usr/lib/x86_64-linux-gnu), so the profiler compiles on a machine with no CUDA
# and cannot rot. About 800 MB downloaded, 20 s to unpack; DIR is reused when complete.
#   sh tools/cupti-debian.sh [DIR]       (default build/cupti-debian)
set -eu
dir=${1:-build/cupti-debian}
if [ -f "$dir/usr/include/cupti.h" ] && [ -f "$dir/usr/include/cuda.h" ] &&
    [ -d "$dir/usr/include/nvtx3" ]; then
    echo "cupti-debian: $dir is ready"
    exit 0
fi
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
arch=$(dpkg --print-architecture)
apt=$(mktemp -d "${TMPDIR:-/tmp}/cgs-apt.XXXXXX")
trap 'rm -rf "$apt"' EXIT
mkdir -p "$apt/sources.list.d" "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs" "$dir"
cat > "$apt/sources.list.d/non-free.sources" <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: $codename
Components: non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
opts="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$apt/sources.list.d
      -o Dir::State::Lists=$apt/lists -o Dir::Cache=$apt/cache -o Debug::NoLocking=1
      -o APT::Sandbox::User=root -o Dir::State::Status=/var/lib/dpkg/status"
echo "cupti-debian: Debian $codename non-free ($arch), into $dir"
# shellcheck disable=SC2086
apt-get -qq $opts update
# shellcheck disable=SC2086
(cd "$apt/debs" && apt-get -qq $opts download libcupti-dev libcupti11.8 nvidia-cuda-dev)
for d in "$apt"/debs/libcupti*.deb; do dpkg-deb -x "$d" "$dir"; done
dpkg-deb --fsys-tarfile "$apt"/debs/nvidia-cuda-dev_*.deb | tar -x -C "$dir" --wildcards './usr/include/*'
echo "cupti-debian: CUPTI $(sed -n 's/^#define CUPTI_API_VERSION \([0-9]*\).*/\1/p' "$dir/usr/include/cupti_version.h") headers ready"
