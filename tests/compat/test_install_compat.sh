#!/usr/bin/env bash
# Installs rprof into a fresh prefix, builds the LIKWID, PAPI-HL and Fortran
# programs of tests/compat and samples/ against the installed drop-ins both
# ways (pkg-config rprof-likwid / rprof-papi / rprof-fortran; CMake targets
# rprof::likwid, rprof::papi, rprof::fortran) and profiles them with the
# installed rprof (timing backend), checking exact call counts and nesting.
# A program built against the real liblikwid (from the build tree) is run
# too: the installed rprof must find its installed drop-in to preload.
# Usage: test_install_compat.sh <build-dir> <source-dir> <work-dir> <fortran ON|OFF>
set -euo pipefail
build=$1 src=$2 work=$3 fortran=$4
if grep -q '^RPROF_SANITIZE:STRING=.' "$build/CMakeCache.txt"; then
  echo "skipped: sanitized build: its librprof cannot be loaded into uninstrumented programs"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
# pkg-config cannot name a path that holds a space (its --cflags are split by
# the shell): under such a build tree the prefix goes to a private directory
# whose path has none.
if [[ $prefix == *[[:space:]]* ]]; then
  prefix=$(mktemp -d /tmp/rprof-install.XXXXXX)/prefix
  trap 'rm -rf "$(dirname "$prefix")"' EXIT
fi
cmake --install "$build" --prefix "$prefix" >/dev/null

need=(lib/librprof-likwid.so lib/librprof-papi.so include/rprof/likwid/likwid-marker.h
      include/rprof/likwid/likwid.h include/rprof/papi/papi.h
      lib/pkgconfig/rprof-likwid.pc lib/pkgconfig/rprof-papi.pc)
[[ $fortran == ON ]] && need+=(lib/librprof-fortran.so include/rprof/fortran/rprof.mod
                               include/rprof/likwid/likwid.mod lib/pkgconfig/rprof-fortran.pc)
for f in "${need[@]}"; do
  [[ -e $prefix/$f ]] || { echo "FAIL: not installed: $f"; exit 1; }
done

fail() { echo "FAIL: $*"; exit 1; }

# expect <binary> <label> <path>=<calls>...: run `rprof` on `binary 100 3`.
expect() {
  local bin=$1 label=$2 out=$work/out-$2
  shift 2
  "$prefix/bin/rprof" -q --backend=time -o "$out" "$bin" 100 3 >"$work/stdout-$label" \
    2>"$work/err-$label" || { cat "$work/err-$label"; fail "$label: rprof failed"; }
  local csv
  csv=$("$prefix/bin/rprof" report --format csv "$out")
  local want_regions=$#
  # Marked regions: every row but the header and the whole run's [program].
  [[ $(tail -n +2 <<<"$csv" | grep -v -e '^\[program\],' -e '^$' | wc -l) -eq $want_regions ]] ||
    fail "$label: expected $want_regions regions, got:"$'\n'"$csv"
  for pair in "$@"; do
    local path=${pair%=*} calls=${pair#*=} got
    got=$(awk -F, -v p="$path" '$1 == p { print $4 }' <<<"$csv")
    [[ $got == "$calls" ]] || fail "$label: region $path: $calls calls expected, got '$got'"$'\n'"$csv"
  done
  echo "ok: $label"
}

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
cc -O2 "$src/tests/compat/likwid_markers.c" -o "$work/likwid-pc" $(pkg-config --cflags --libs rprof-likwid)
expect "$work/likwid-pc" likwid-pc outer=3 outer/inner=9 inner=1
cc -O2 "$src/tests/compat/papi_hl.c" -o "$work/papi-pc" $(pkg-config --cflags --libs rprof-papi)
expect "$work/papi-pc" papi-pc compute=3 compute/kernel=6 after_stop=1
if [[ $fortran == ON ]]; then
  gfortran -O2 "$src/samples/triad_f.f90" -o "$work/triad-f-pc" $(pkg-config --cflags --libs rprof-fortran)
  expect "$work/triad-f-pc" triad-f-pc triad=3
  gfortran -O2 "$src/tests/compat/likwid_markers_f.F90" -o "$work/likwid-f-pc" \
    $(pkg-config --cflags --libs rprof-likwid)
  expect "$work/likwid-f-pc" likwid-f-pc outer=3 outer/inner=6
fi

cmake -S "$src/tests/compat/consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DRPROF_COMPAT_SRC="$src" -DWITH_FORTRAN="$fortran" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
expect "$work/cmake-build/likwid_markers" likwid-cmake outer=3 outer/inner=9 inner=1
expect "$work/cmake-build/papi_hl" papi-cmake compute=3 compute/kernel=6 after_stop=1
if [[ $fortran == ON ]]; then
  expect "$work/cmake-build/triad_f" triad-f-cmake triad=3
fi

# Built against the real liblikwid / libpapi: the installed rprof preloads
# its installed drop-in.
for real in likwid_markers_real:"outer=3 outer/inner=9 inner=1" \
            papi_hl_real:"compute=3 compute/kernel=6 after_stop=1"; do
  bin=$build/tests/compat/programs/${real%%:*}
  if [[ -x $bin ]]; then
    # shellcheck disable=SC2086
    expect "$bin" "${real%%:*}-installed" ${real#*:}
  else
    echo "note: $bin not built (no real library at configure time)"
  fi
done
echo "install test (drop-ins): pkg-config and CMake consumers profiled with exact calls"
