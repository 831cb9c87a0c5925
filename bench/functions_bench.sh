#!/usr/bin/env bash
# The cost of the function view: the simulated run with and without
# --functions, side by side (issue 14's target: at most +20%).
#
# For each sample: `rprof --backend=sim --sim-only` without and with
# --functions=1000 (the samples have markers, so without the option they get
# no function view). CPU seconds (user + system), REPS runs of each,
# alternating: the medians and their ratio, and the fastest runs and theirs.
# Then the worst cases,
# bench/calls.c (a call per element: nearly every superblock changes
# function; into a leaf, and into a function that is not one) and two common
# call-heavy shapes (qsort with a comparator, recursion), under the tool
# directly, without and with --rp-functions.
#
# Usage: bench/functions_bench.sh [BUILD_DIR] [REPS]    (defaults: build, 5)
# Not a test: it takes a few minutes and its numbers depend on the machine.
set -euo pipefail

build=${1:-build}
reps=${2:-5}
rprof=$build/bin/rprof
samples=$build/bin/samples
[[ -x $rprof && -x $samples/daxpy ]] || {
  echo "functions_bench: $rprof or $samples/daxpy not found; build first" >&2
  exit 1
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
caches="l1=32K:8:64,l2=1M:8:64,llc=8M:16:64"

bench_name=functions_bench
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"

cases=(
  "daxpy 4000000 20"
  "triad 4000000 20"
  "matmul 256 8"
  "precision 2000000 10"
)

# CPU seconds (user + system, children included) of one run.
cpu_of() {
  local r
  r=$(run_once "$@") || exit 1
  echo "${r#* }"
}

# One table row: LABEL, then the command without --functions and the words
# that turn it on, as `--` WITH... after it. The runs alternate (without,
# with), REPS each, so that both see the same moments of a shared machine;
# CPU seconds, median (fastest: on a noisy VM the least disturbed figure).
row() {
  local label=$1 i am a0 bm b0
  shift
  local cmd=() extra=()
  while [[ $1 != -- ]]; do cmd+=("$1"); shift; done
  shift
  extra=("$@")
  local without=() with=()
  for ((i = 0; i < reps; i++)); do
    without+=("$(cpu_of "${cmd[@]}")")
    with+=("$(cpu_of "${cmd[0]}" "${extra[@]}" "${cmd[@]:1}")")
  done
  am=$(median "${without[@]}")
  a0=$(fastest "${without[@]}")
  bm=$(median "${with[@]}")
  b0=$(fastest "${with[@]}")
  printf '| %-24s | %6.2f (%6.2f) | %7.2f (%7.2f) | %7.3f (%7.3f) |\n' "$label" \
    "$am" "$a0" "$bm" "$b0" "$(ratio "$bm" "$am")" "$(ratio "$b0" "$a0")"
}

header() {
  printf '| %-24s | %-15s | %-17s | %-19s |\n' "$1" "sim s" "sim --functions s" "--functions / sim"
  printf '|%s|%s|%s|%s|\n' "--------------------------" "-----------------" "-------------------" \
    "---------------------"
}

echo "# rprof sim with and without --functions ($(date -u +%Y-%m-%d), $(nproc) CPUs)"
echo "# CPU seconds (user + system), $reps runs each, alternating: median (fastest)."
echo "# rprof --backend=sim --sim-only --sim-cache $caches"
echo
header "sample (args)"
for c in "${cases[@]}"; do
  read -r name args <<<"$c"
  prog=$samples/$name
  [[ -x $prog ]] || continue
  # shellcheck disable=SC2086
  row "$name ($args)" "$rprof" -q -o "$tmp/out" --backend=sim --sim-only --sim-cache "$caches" \
    "$prog" $args -- --functions=1000
done

# The worst cases and two common call-heavy shapes: the Valgrind tool itself,
# without and with --rp-functions, on bench/calls.c (a call per element into
# a leaf, and into a function that calls another; libc's qsort with a
# comparator; recursion).
cc -O2 -g -o "$tmp/calls" "$(dirname "$0")/calls.c"
export VALGRIND_LIB=$build/libexec/rprof/valgrind
echo
echo "# The Valgrind tool alone on bench/calls.c, --rp-functions=yes or not."
echo
header "calls (args)"
for c in "leaf 2000000 10" "nested 2000000 10" "qsort 1000000 2" "fib 30 10"; do
  read -r mode n r <<<"$c"
  row "$mode ($n $r)" valgrind --tool=rprof-sim --rp-l1=32768,8,64 --rp-l2=1048576,8,64 \
    --rp-llc=8388608,16,64 "$tmp/calls" "$n" "$r" "$mode" \
    -- --demangle=no --rp-functions=yes --rp-fn-out="$tmp/fn.txt"
done
