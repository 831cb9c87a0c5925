#!/usr/bin/env bash
# The cost of the function view: the simulated run with and without
# --functions, side by side (issue 14's target: at most +20%).
#
# For each sample: `rprof --backend=sim --sim-only` without and with
# --functions=1000 (the samples have markers, so without the option they get
# no function view). Wall-clock and CPU seconds (user + system), median of
# REPS runs, and the ratio of those medians. Then the worst cases,
# bench/calls.c (a call per element: nearly every superblock changes
# function; into a leaf, and into a function that is not one), under the tool
# directly, without and with --rp-functions.
#
# Usage: bench/functions_bench.sh [BUILD_DIR] [REPS]    (defaults: build, 3)
# Not a test: it takes a few minutes and its numbers depend on the machine.
set -euo pipefail

build=${1:-build}
reps=${2:-3}
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

echo "# rprof sim with and without --functions ($(date -u +%Y-%m-%d), $(nproc) CPUs)"
echo "# --sim-only --sim-cache $caches; seconds, median of $reps runs: wall (CPU)."
echo
printf '| %-24s | %-15s | %-17s | %-19s |\n' "sample (args)" "sim s" "sim --functions s" "--functions / sim"
printf '|%s|%s|%s|%s|\n' "--------------------------" "-----------------" "-------------------" \
  "---------------------"
for c in "${cases[@]}"; do
  read -r name args <<<"$c"
  prog=$samples/$name
  [[ -x $prog ]] || continue
  # shellcheck disable=SC2086
  read -r aw ac <<<"$(timed "$rprof" -q -o "$tmp/out" --backend=sim --sim-only --sim-cache "$caches" "$prog" $args)"
  # shellcheck disable=SC2086
  read -r bw bc <<<"$(timed "$rprof" -q -o "$tmp/out" --backend=sim --sim-only --sim-cache "$caches" \
        --functions=1000 "$prog" $args)"
  printf '| %-24s | %6.2f (%6.2f) | %7.2f (%7.2f) | %7.3f (%7.3f) |\n' "$name ($args)" \
    "$aw" "$ac" "$bw" "$bc" "$(ratio "$bw" "$aw")" "$(ratio "$bc" "$ac")"
done

# The worst cases: the Valgrind tool itself, without and with --rp-functions,
# on bench/calls.c: a call per element into a leaf (counted at the call site)
# and into a function that calls another (a helper call on call and return).
cc -O2 -g -o "$tmp/calls" "$(dirname "$0")/calls.c"
tool=(valgrind --tool=rprof-sim --rp-l1=32768,8,64 --rp-l2=1048576,8,64 --rp-llc=8388608,16,64)
export VALGRIND_LIB=$build/libexec/rprof/valgrind
for mode in leaf nested; do
  read -r aw ac <<<"$(timed "${tool[@]}" "$tmp/calls" 2000000 10 "$mode")"
  read -r bw bc <<<"$(timed "${tool[@]}" --demangle=no --rp-functions=yes --rp-fn-out="$tmp/fn.txt" \
        "$tmp/calls" 2000000 10 "$mode")"
  printf '| %-24s | %6.2f (%6.2f) | %7.2f (%7.2f) | %7.3f (%7.3f) |\n' "calls $mode (tool)" \
    "$aw" "$ac" "$bw" "$bc" "$(ratio "$bw" "$aw")" "$(ratio "$bc" "$ac")"
done
