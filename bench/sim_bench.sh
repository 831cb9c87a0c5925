#!/usr/bin/env bash
# rprof's sim backend against cachegrind, on the same samples in the same run.
#
# For each sample: the native run time, `rprof --backend=sim --sim-only` (one
# run under rprof's Valgrind tool: FLOPs by precision and width, three cache
# levels with write-backs), and `valgrind --tool=cachegrind --cache-sim=yes`
# (instruction and data L1 plus a last level, no write-backs) given the same
# L1 and last-level geometry. Wall-clock seconds and CPU seconds (user +
# system, all processes of the run: less disturbed by other load on a shared
# machine), median of REPS runs; ratios of those medians. Target: rprof sim /
# cachegrind <= 1.0.
#
# Usage: bench/sim_bench.sh [BUILD_DIR] [REPS]    (defaults: build, 3)
# Not a test: it takes a few minutes and its numbers depend on the machine.
set -euo pipefail

build=${1:-build}
reps=${2:-3}
rprof=$build/bin/rprof
samples=$build/bin/samples
for f in "$rprof" "$samples/daxpy"; do
  [[ -x $f ]] || { echo "sim_bench: $f not found; build first (cmake --build $build)" >&2; exit 1; }
done
command -v valgrind >/dev/null || { echo "sim_bench: valgrind is not installed" >&2; exit 1; }

# The geometry both simulators get: this machine's L1d and last level (sysfs).
cache_of() {  # level -> "SIZE,WAYS,LINE" in bytes
  local d
  for d in /sys/devices/system/cpu/cpu0/cache/index*; do
    [[ $(cat "$d/level") == "$1" && $(cat "$d/type") != Instruction ]] || continue
    local size ways line
    size=$(cat "$d/size")
    case $size in *K) size=$((${size%K} * 1024)) ;; *M) size=$((${size%M} * 1024 * 1024)) ;; esac
    ways=$(cat "$d/ways_of_associativity")
    line=$(cat "$d/coherency_line_size")
    echo "$size,$ways,$line"
    return
  done
}
l1=$(cache_of 1)
ll=$(cache_of 3)
[[ -n $ll ]] || ll=$(cache_of 2)
l1=${l1:-32768,8,64}
ll=${ll:-8388608,16,64}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bench_name=sim_bench
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"

cases=(
  "daxpy 4000000 20"
  "daxpy_avx2 4000000 20"
  "triad 4000000 20"
  "triad_avx2 4000000 20"
  "precision 4000000 10"
  "matmul 384 32"
)

echo "# rprof sim vs cachegrind ($(date -u +%Y-%m-%d), $(uname -m), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
echo "# $(valgrind --version); simulated L1 $l1 and last level $ll (bytes,ways,line) for both;"
echo "# rprof sim adds its private L2 (this machine's) and write-backs at every level."
echo "# Seconds, median of $reps runs: wall clock, and CPU (user + system) in brackets."
echo
printf '| %-24s | %-15s | %-15s | %-15s | %-19s | %-19s | %-21s |\n' \
  "sample (args)" "native s" "rprof sim s" "cachegrind s" "sim/native" "cachegrind/native" "sim/cachegrind"
printf '|%s|%s|%s|%s|%s|%s|%s|\n' "--------------------------" "-----------------" \
  "-----------------" "-----------------" "---------------------" "---------------------" \
  "-----------------------"
for c in "${cases[@]}"; do
  read -r name args <<<"$c"
  prog=$samples/$name
  [[ -x $prog ]] || continue
  # shellcheck disable=SC2086
  read -r nw nc <<<"$(timed "$prog" $args)"
  # shellcheck disable=SC2086
  read -r sw sc <<<"$(timed "$rprof" -q -o "$tmp/out" --backend=sim --sim-only \
        --sim-cache "l1=${l1%%,*}:$(echo "$l1" | cut -d, -f2),llc=${ll%%,*}:$(echo "$ll" | cut -d, -f2)" \
        "$prog" $args)"
  # shellcheck disable=SC2086
  read -r cw cc <<<"$(timed valgrind --tool=cachegrind --cache-sim=yes \
        --cachegrind-out-file=/dev/null --D1="$l1" --LL="$ll" "$prog" $args)"
  printf '| %-24s | %6.3f (%6.3f) | %6.2f (%6.2f) | %6.2f (%6.2f) | %7.1f (%7.1f) | %7.1f (%7.1f) | %8.2f (%8.2f) |\n' \
    "$name ($args)" "$nw" "$nc" "$sw" "$sc" "$cw" "$cc" \
    "$(ratio "$sw" "$nw")" "$(ratio "$sc" "$nc")" "$(ratio "$cw" "$nw")" "$(ratio "$cc" "$nc")" \
    "$(ratio "$sw" "$cw")" "$(ratio "$sc" "$cc")"
done
