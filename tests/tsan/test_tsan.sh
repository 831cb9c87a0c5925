#!/usr/bin/env bash
# The runtime under ThreadSanitizer: builds the runtime sources and the
# threads_stress app with -fsanitize=thread (a separate, small build), runs
# 16 threads x 20000 begin/end pairs with markers active, and fails on any
# ThreadSanitizer report or a wrong call count in the raw profile.
# Mode "perf": the perf backend's per-thread counters instead (a kernel
# software event: no PMU needed), 16 threads x 2000 pairs; skipped (exit 77,
# with the reason) where perf_event_open is not allowed.
# Usage: test_tsan.sh <source-dir> <work-dir> [time|perf]
set -euo pipefail
src=$1 work=$2 mode=${3:-time}
rm -rf "$work" && mkdir -p "$work/out"
cxx=${CXX:-c++}
echo 'int main(){}' > "$work/probe.cpp"
if ! "$cxx" -fsanitize=thread "$work/probe.cpp" -o "$work/probe" 2>/dev/null; then
  echo "SKIP: this compiler cannot link -fsanitize=thread"
  exit 77
fi
# The runtime's backend table (generated from the backends' declarations in a
# real build, runtime/backend_table.h) for the two backends built here.
cat > "$work/backends.cpp" <<'CPP'
#include "runtime/backend_table.h"
namespace rprof {
std::unique_ptr<Backend> make_time_backend(std::string* why);
std::unique_ptr<Backend> make_perf_backend(std::string* why);
const RuntimeBackendEntry kRuntimeBackends[] = {
    {"time", make_time_backend, nullptr, nullptr},
    {"perf", make_perf_backend, nullptr, nullptr},
};
const size_t kNumRuntimeBackends = 2;
}  // namespace rprof
CPP
"$cxx" -std=c++20 -O1 -g -fsanitize=thread -pthread -DRPROF_ENABLE -DRPROF_BUILDING_RUNTIME \
  -I"$src/include" -I"$src/lib" \
  "$src"/lib/runtime/*.cpp "$work/backends.cpp" "$src/lib/backends/time/time_backend.cpp" \
  "$src"/lib/hwcounters/perf_{spec,errors,counters}.cpp "$src/lib/backends/perf/perf_backend.cpp" \
  "$src"/lib/backends/inst/inst_{backend,sample}.cpp \
  "$src/tests/integration/apps/threads_stress.cpp" -o "$work/threads_stress_tsan"

if [[ $mode == time ]]; then
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
  exit 0
fi

RPROF_OUTPUT_DIR=$work/out RPROF_BACKEND=perf RPROF_PERF_EVENTS="page-faults=1:0x2:0:0:u" \
  TSAN_OPTIONS="halt_on_error=1 exitcode=66" \
  "$work/threads_stress_tsan" 16 2000 > "$work/log" 2>&1 || {
  echo "FAIL: threads_stress (perf) under TSan exited with $?"; cat "$work/log"; exit 1; }
if grep -q "ThreadSanitizer" "$work/log"; then
  echo "FAIL: ThreadSanitizer report (perf backend)"; cat "$work/log"; exit 1
fi
if ! grep -q '"backend":"perf"' "$work"/out/rprof-raw.*.json; then
  echo "SKIP: the perf backend cannot count here: $(grep -o 'counters off.*' "$work/log" || echo 'no reason printed')"
  exit 77
fi
n=$(grep -o '"calls":2000' "$work"/out/rprof-raw.*.json | wc -l)
[[ $n -eq 32 ]] || { echo "FAIL: perf: expected 32 nodes with 2000 calls, found $n"; exit 1; }
echo "tsan: perf backend, 16 threads x 2000 pairs, exact counts, no report"
