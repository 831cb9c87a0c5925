#!/usr/bin/env bash
# Installs rprof from the build tree into a fresh prefix, then builds a tiny
# consumer both ways (CMake package, pkg-config) and profiles it with the
# installed rprof. Usage: test_install.sh <build-dir> <source-dir> <work-dir>
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
# pkg-config cannot name a path that holds a space (its --cflags are split by
# the shell): under such a build tree the prefix goes to a private directory
# whose path has none.
if [[ $prefix == *[[:space:]]* ]]; then
  prefix=$(mktemp -d /tmp/rprof-install.XXXXXX)/prefix
  trap 'rm -rf "$(dirname "$prefix")"' EXIT
fi
# Hermetic: the test's own HOME and the recorded default machine, so the
# profiling below never calibrates this machine or reads the user's cache.
mkdir -p "$work/home"
export HOME=$work/home XDG_CACHE_HOME=$work/home/.cache
export RPROF_SYSROOT=$src/tests/fixtures/machines/zen4-desktop
export RPROF_MACHINE_FILE=$RPROF_SYSROOT/machine.json
cmake --install "$build" --prefix "$prefix" >/dev/null

for f in bin/rprof include/rprof/rprof.h include/rprof/markers.h include/rprof/rprof.hpp \
         lib/librprof.so lib/cmake/rprof/rprofConfig.cmake lib/pkgconfig/rprof.pc; do
  [[ -e $prefix/$f ]] || { echo "FAIL: not installed: $f"; exit 1; }
done

check_profile() {  # <binary> <label>
  local out=$work/out-$2
  "$prefix/bin/rprof" -q -o "$out" "$1" >/dev/null 2>"$work/err-$2"
  # CSV columns: path,name,depth,calls,...
  "$prefix/bin/rprof" report --format csv "$out" | grep -q '^consumer_region,consumer_region,0,3,' ||
    { echo "FAIL ($2): region consumer_region with 3 calls missing"; cat "$work/err-$2"; exit 1; }
}

# 1. CMake package
cmake -S "$src/tests/install/consumer" -B "$work/cmake-build" \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
check_profile "$work/cmake-build/consumer" cmake

# 2. pkg-config
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
c++ -std=c++17 "$src/tests/install/consumer/consumer.cpp" -o "$work/pc-consumer" \
  $(pkg-config --cflags --libs rprof)
check_profile "$work/pc-consumer" pkgconfig
# 3. The Python package, found by Debian's python3 in the prefix's site
# directory (on sys.path through PYTHONPATH here; /usr/local's is by default).
site=$(/usr/bin/python3 -c 'import os, sysconfig; print(os.path.relpath(sysconfig.get_path("purelib"), sysconfig.get_path("data")))')
[[ -f $prefix/$site/rprof/__init__.py ]] || { echo "FAIL: not installed: $site/rprof"; exit 1; }
PYTHONPATH=$prefix/$site /usr/bin/python3 -m rprof "$work/out-cmake" >"$work/py.txt" ||
  { echo "FAIL: python3 -m rprof on the installed package"; exit 1; }
grep -q '^consumer_region  *3 ' "$work/py.txt" ||
  { echo "FAIL: python3 -m rprof: no consumer_region row with 3 calls"; cat "$work/py.txt"; exit 1; }
echo "install test: CMake package and pkg-config consumers profiled (3 calls each); python3 -m rprof read it"
