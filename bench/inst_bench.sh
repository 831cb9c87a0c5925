#!/usr/bin/env bash
# The inst backend's cost, side by side in one run with the native program,
# the sim backend and cachegrind (issues 29 and 45; targets: the instrumented
# build run alone, and its counted version without traffic, at most 1.1x
# native CPU time, geometric mean over the set; with sampled traffic at most
# 2x).
#
# Every kernel is built with the same flags plainly and with `rprof cc` (the
# plugin's defaults: loop nests versioned, memory accesses instrumented).
# Columns, CPU seconds (user + system, children included), median of REPS
# runs:
#   native      the plain build, no rprof
#   no rprof    the instrumented build alone: its loop nests' plain versions
#               (what rprof's timed run runs, and a user's run without rprof)
#   counts      the instrumented build alone with RPROF_INST_COUNTING=1: the
#               counted versions, no accesses passed on (the cost of rprof's
#               counted run without traffic, rprof's launch aside)
#   rprof off   `rprof --backend=inst --sample=off`: both runs (timed, then
#               counted) with rprof's launch and reports
#   rprof inst  `rprof --backend=inst`: both runs, the counted one simulating
#               1 in 64 cache sets (the default)
#   sim         `rprof --backend=sim --sim-only` on the plain build (one run
#               under rprof's Valgrind tool)
#   cachegrind  `valgrind --tool=cachegrind --cache-sim=yes` on the plain build
# The sampled counted run alone costs about (rprof inst - no rprof); the
# ratios say each against native. And code size: the .text of both builds.
#
# CC=clang (or clang-N): the same with clang and rprof's LLVM plugin, which
# makes no loop versions: "no rprof" and "counts" then both run the counted
# code (with its accesses' filter), and "rprof off"/"rprof inst" are one run.
#
# Usage: [CC=clang] bench/inst_bench.sh [BUILD_DIR] [REPS] [SIZE] [FLAGS]
#   defaults: build, 3, LARGE, "-O3 -march=x86-64-v3" where the CPU has AVX2
#   and FMA, else "-O2". SIZE: LARGE (PolyBench's LARGE dataset sizes) or
#   MEDIUM. NO_SIM=1 leaves out the two Valgrind columns (minutes at LARGE);
#   SIM_MAX_S=S runs them only for kernels whose native run takes at most S
#   CPU seconds (cachegrind with its cache model costs about 300x native).
# Not a test: it takes minutes and its numbers depend on the machine.
set -euo pipefail

bench_name=inst_bench
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
inst_bench_setup "$@"  # build reps size flags rprof src libdir tmp

# PolyBench 4.2's dataset sizes for the PolyBench-style kernels of
# tests/sim/polybench.c (written for rprof), and the samples.
if [[ $size == LARGE ]]; then
  poly=("gemm=1000,1100,1200" "2mm=800,900,1100,1200" "atax=1900,2100" "mvt=2000"
        "syrk=1200,1000" "jacobi1d=500,2000" "jacobi2d=500,1300" "trisolv=2000")
  samples=("daxpy 4000000 20" "triad 4000000 20" "precision 4000000 10" "matmul 512 32")
else
  poly=("gemm=200,220,240" "2mm=180,190,210,220" "atax=390,410" "mvt=400"
        "syrk=240,200" "jacobi1d=100,400" "jacobi2d=100,250" "trisolv=400")
  samples=("daxpy 400000 20" "triad 400000 20" "precision 400000 10" "matmul 192 32")
fi

common=(-DRPROF_ENABLE "-I$src/include" "-I$src/samples" "-L$libdir" "-Wl,-rpath,$libdir" -lrprof -lm)
# shellcheck disable=SC2206
fl=($flags)
build_both() {  # name source
  "$compiler" "${fl[@]}" "$2" "${common[@]}" -o "$tmp/$1.plain"
  "$rprof" cc -- "$compiler" "${fl[@]}" "$2" "${common[@]}" -o "$tmp/$1.inst"
}
text_size() { size -A "$1" | awk '$1 == ".text" { print $2 }'; }

cases=()
build_both polybench "$src/tests/sim/polybench.c"
for p in "${poly[@]}"; do cases+=("polybench $p"); done
for s in "${samples[@]}"; do
  read -r name _ <<<"$s"
  build_both "$name" "$src/samples/$name.c"
  cases+=("$s")
done

echo "# rprof inst vs native, sim and cachegrind ($(date -u +%Y-%m-%d), $(uname -m), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
echo "# $("$compiler" --version | head -1); flags: $flags; sizes: $size; CPU seconds (user + system), median of $reps runs"
echo
printf '| %-30s | %8s | %8s | %8s | %9s | %10s | %8s | %10s | %9s | %9s | %9s | %9s | %7s |\n' \
  "kernel (args)" "native" "no rprof" "counts" "rprof off" "rprof inst" "sim" "cachegrind" \
  "none/nat" "cnt/nat" "off/nat" "rprof/nat" "sim/nat"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' "--------------------------------" \
  "----------" "----------" "----------" "-----------" "------------" "----------" "------------" \
  "-----------" "-----------" "-----------" "-----------" "---------"
sum_none=0 sum_cnt=0 sum_rprof=0
n=0
geo_add() { awk -v s="$1" -v r="$2" 'BEGIN { print s + log(r) }'; }
for c in "${cases[@]}"; do
  read -r name args <<<"$c"
  # shellcheck disable=SC2086
  read -r _ nc <<<"$(timed "$tmp/$name.plain" $args)"
  # shellcheck disable=SC2086
  read -r _ ic <<<"$(timed "$tmp/$name.inst" $args)"
  # shellcheck disable=SC2086
  read -r _ cc0 <<<"$(RPROF_INST_COUNTING=1 timed "$tmp/$name.inst" $args)"
  # shellcheck disable=SC2086
  read -r _ oc <<<"$(timed "$rprof" -q -o "$tmp/out" --backend=inst --sample=off "$tmp/$name.inst" $args)"
  # shellcheck disable=SC2086
  read -r _ rc <<<"$(timed "$rprof" -q -o "$tmp/out" --backend=inst "$tmp/$name.inst" $args)"
  sc="-" cc="-" sr="-"
  if [[ -z ${NO_SIM:-} ]] && awk -v t="$nc" -v m="${SIM_MAX_S:-1e9}" 'BEGIN { exit !(t <= m) }'; then
    # shellcheck disable=SC2086
    read -r _ sc <<<"$(timed "$rprof" -q -o "$tmp/out" --backend=sim --sim-only "$tmp/$name.plain" $args)"
    # shellcheck disable=SC2086
    read -r _ cc <<<"$(timed valgrind --tool=cachegrind --cache-sim=yes \
          --cachegrind-out-file=/dev/null "$tmp/$name.plain" $args)"
    sr=$(printf '%.1f' "$(ratio "$sc" "$nc")")
  fi
  sum_none=$(geo_add "$sum_none" "$(ratio "$ic" "$nc")")
  sum_cnt=$(geo_add "$sum_cnt" "$(ratio "$cc0" "$nc")")
  sum_rprof=$(geo_add "$sum_rprof" "$(ratio "$rc" "$nc")")
  n=$((n + 1))
  printf '| %-30s | %8.3f | %8.3f | %8.3f | %9.3f | %10.3f | %8s | %10s | %9.3f | %9.3f | %9.3f | %9.3f | %7s |\n' \
    "$name $args" "$nc" "$ic" "$cc0" "$oc" "$rc" "$sc" "$cc" "$(ratio "$ic" "$nc")" \
    "$(ratio "$cc0" "$nc")" "$(ratio "$oc" "$nc")" "$(ratio "$rc" "$nc")" "$sr"
done
echo
geo() { awk -v s="$1" -v n="$n" 'BEGIN { print exp(s / n) }'; }
printf 'geometric mean over %d kernels: no rprof / native %.3f (target <= 1.1), counts / native %.3f (target <= 1.1), rprof inst / native %.3f (both runs; the sampled counted run alone about that minus 1: target <= 2)\n' \
  "$n" "$(geo "$sum_none")" "$(geo "$sum_cnt")" "$(geo "$sum_rprof")"
echo
# Functions and loop nests as regions (a program without markers: every
# function with loops and every loop nest is timed at entry and exit). Not in
# the mean above: "plain" calls a function of a 4096-element loop 100,000
# times; "hot" calls a 2-element loop's function 10 million times,
# the worst case (throttled after 10,000 calls, docs/inst-backend.md).
"$compiler" "${fl[@]}" "$src/tests/integration/apps/inst_regions.c" "-I$src/include" -lm -o "$tmp/regions.plain"
"$rprof" cc -- "$compiler" "${fl[@]}" \
  "$src/tests/integration/apps/inst_regions.c" "-I$src/include" -lm -o "$tmp/regions.inst"
echo "function and loop regions, no markers (CPU seconds, median of $reps runs):"
printf '| %-30s | %8s | %8s | %10s | %9s | %11s |\n' "program (args)" "native" "inst bin" \
  "rprof inst" "inst/nat" "rprof/nat"
printf '|%s|%s|%s|%s|%s|%s|\n' "--------------------------------" "----------" "----------" \
  "------------" "-----------" "-------------"
for args in "4096 100000 plain" "1000 10000000 hot"; do
  # shellcheck disable=SC2086
  read -r _ nc <<<"$(timed "$tmp/regions.plain" $args)"
  # shellcheck disable=SC2086
  read -r _ ic <<<"$(timed "$tmp/regions.inst" $args)"
  # shellcheck disable=SC2086
  read -r _ rc <<<"$(timed "$rprof" -q -o "$tmp/out" --backend=inst "$tmp/regions.inst" $args)"
  printf '| %-30s | %8.3f | %8.3f | %10.3f | %9.3f | %11.3f |\n' "inst_regions $args" "$nc" "$ic" \
    "$rc" "$(ratio "$ic" "$nc")" "$(ratio "$rc" "$nc")"
done
echo
echo "code size (.text bytes, plain -> instrumented: three versions of each loop nest):"
for f in "$tmp"/*.plain; do
  name=$(basename "$f" .plain)
  a=$(text_size "$f")
  b=$(text_size "$tmp/$name.inst")
  printf '  %-12s %8d -> %8d  (+%.1f%%)\n' "$name" "$a" "$b" \
    "$(awk -v a="$a" -v b="$b" 'BEGIN { print 100 * (b - a) / a }')"
done
