#!/bin/sh
# tools/deps.sh: the build's packages and the tests' are separate lists; a user who is not root
# and has no sudo is told what to do instead of "sudo: not found". Simulated with a dpkg-query
# that reports nothing installed, run as the user nobody without sudo on PATH.
here=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$(id -u)" != 0 ] || ! command -v su >/dev/null 2>&1 || ! id nobody >/dev/null 2>&1; then
    echo "needs root, su and the user nobody to simulate a plain user"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir "$tmp/bin"
printf '#!/bin/sh\nexit 1\n' > "$tmp/bin/dpkg-query"
cp "$here/tools/deps.sh" "$tmp/deps.sh"
chmod -R a+rx "$tmp"
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

su nobody -s /bin/sh -c "PATH=$tmp/bin:/usr/bin:/bin sh $tmp/deps.sh" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 1 ] || fail "no sudo: exit $rc"
grep -q "run this script as root" "$tmp/err" || fail "no sudo: $(cat "$tmp/err")"
grep -q "cmocka" "$tmp/out" && fail "the build's list has the tests' packages: $(cat "$tmp/out")"
su nobody -s /bin/sh -c "PATH=$tmp/bin:/usr/bin:/bin sh $tmp/deps.sh --test" >"$tmp/out" 2>&1
grep -q "libcmocka-dev" "$tmp/out" || fail "--test does not add the tests' packages"
sh "$here/tools/deps.sh" --bogus >/dev/null 2>&1
[ $? = 2 ] || fail "bad option: not exit 2"
echo "deps: $fails failures"
[ $fails = 0 ]
