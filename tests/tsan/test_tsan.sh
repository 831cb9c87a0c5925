#!/usr/bin/env bash
# The runtime under ThreadSanitizer: builds the runtime sources and the
# threads_stress app with -fsanitize=thread (a separate, small build), runs
# 16 threads x 20000 begin/end pairs with markers active, and fails on any
# ThreadSanitizer report or a wrong call count in the raw profile.
# Usage: test_tsan.sh <source-dir> <work-dir>
set -euo pipefail
src=$1 work=$2
rm -rf "$work" && mkdir -p "$work/out"
cxx=${CXX:-c++}
echo 'int main(){}' > "$work/probe.cpp"
if ! "$cxx" -fsanitize=thread "$work/probe.cpp" -o "$work/probe" 2>/dev/null; then
  echo "SKIP: this compiler cannot link -fsanitize=thread"
  exit 77
fi
"$cxx" -std=c++20 -O1 -g -fsanitize=thread -pthread -DRPROF_ENABLE -DRPROF_BUILDING_RUNTIME \
  -I"$src/include" -I"$src/lib" \
  "$src"/lib/runtime/*.cpp "$src/lib/backends/backend_factory.cpp" \
  "$src"/lib/backends/perf/perf_{spec,errors,counters,backend}.cpp \
  "$src/tests/integration/apps/threads_stress.cpp" -o "$work/threads_stress_tsan"
RPROF_OUTPUT_DIR=$work/out TSAN_OPTIONS="halt_on_error=1 exitcode=66" \
  "$work/threads_stress_tsan" 16 20000 > "$work/log" 2>&1 || {
  echo "FAIL: threads_stress under TSan exited with $?"; cat "$work/log"; exit 1; }
if grep -q "ThreadSanitizer" "$work/log"; then
  echo "FAIL: ThreadSanitizer report"; cat "$work/log"; exit 1
fi
raw=$(ls "$work"/out/rprof-raw.*.json)
# 16 threads each close "outer" and "inner" 20000 times: 32 nodes with calls 20000.
n=$(grep -o '"calls":20000' "$raw" | wc -l)
[[ $n -eq 32 ]] || { echo "FAIL: expected 32 nodes with 20000 calls, found $n"; exit 1; }
echo "tsan: 16 threads x 20000 pairs, exact counts, no ThreadSanitizer report"
# The perf backend's per-thread counters (a kernel software event: no PMU
# needed), when perf_event_open is allowed here at all.
rm -rf "$work/out" && mkdir -p "$work/out"
RPROF_OUTPUT_DIR=$work/out RPROF_BACKEND=perf RPROF_PERF_EVENTS="page-faults=1:0x2:0:0:u" \
  TSAN_OPTIONS="halt_on_error=1 exitcode=66" \
  "$work/threads_stress_tsan" 16 2000 > "$work/log" 2>&1 || {
  echo "FAIL: threads_stress (perf) under TSan exited with $?"; cat "$work/log"; exit 1; }
if grep -q "ThreadSanitizer" "$work/log"; then
  echo "FAIL: ThreadSanitizer report (perf backend)"; cat "$work/log"; exit 1
fi
if grep -q '"backend":"perf"' "$work"/out/rprof-raw.*.json; then
  n=$(grep -o '"calls":2000' "$work"/out/rprof-raw.*.json | wc -l)
  [[ $n -eq 32 ]] || { echo "FAIL: perf: expected 32 nodes with 2000 calls, found $n"; exit 1; }
  echo "tsan: perf backend, 16 threads x 2000 pairs, exact counts, no report"
else
  echo "tsan: perf backend not checked: $(grep -o 'counters off.*' "$work/log")"
fi
