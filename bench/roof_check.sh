#!/usr/bin/env bash
# No program beats the roof (not a test): runs every sample of the repository
# and the STREAM-like loops of bench/roof_check/loops.c (copy, scale, add,
# triad, daxpy, sum; out of cache and in L2; 1 thread and every CPU) under
# rprof on this machine, and prints each region's highest fraction of any
# roof (the FLOP roofline's bound and every boundary's bandwidth roof) and
# the highest of all, beside the goal: at most 1.00.
#
# Counts come from the sim backend (exact; times from a native run), so the
# loops are built for AVX2 at most (Valgrind runs no AVX-512); the machine
# file is the one `rprof` would use (BENCH_MACHINE to pass one).
#
# Usage: bench/roof_check.sh [BUILD_DIR]   (default build)
# Environment: BENCH_PASSES (passes over the out-of-cache arrays, default 3),
# BENCH_OUT (directory for the profiles), BENCH_MACHINE (a machine file).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
rprof=$build/bin/rprof
passes=${BENCH_PASSES:-3}
out=${BENCH_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/rprof-roof.XXXXXX")}
mkdir -p "$out"
[[ -x $rprof ]] || { echo "roof_check: $rprof not built" >&2; exit 1; }
machine=()
[[ -n ${BENCH_MACHINE:-} ]] && machine=(--machine "$BENCH_MACHINE")

lib=$build/lib
[[ -e $lib/librprof.so ]] || { echo "roof_check: $lib/librprof.so not built" >&2; exit 1; }
arch=()
grep -q ' avx2 ' /proc/cpuinfo && grep -q ' fma ' /proc/cpuinfo && arch=(-mavx2 -mfma)
cc -O3 "${arch[@]}" -fopenmp -I"$root/include" "$root/bench/roof_check/loops.c" \
  -L"$lib" -Wl,-rpath,"$lib" -lrprof -o "$out/loops.bin"

echo "roof_check: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) CPUs;" \
     "load before: $(cut -d' ' -f1-3 /proc/loadavg); profiles in $out" >&2
runs=()
run() {  # name, then the command
  local name=$1; shift
  if "$rprof" "${machine[@]}" --backend=sim -q -o "$out/$name" -- "$@" \
       > "$out/$name.out" 2> "$out/$name.err"; then
    runs+=("$name")
  else
    echo "roof_check: $name failed (see $out/$name.err)" >&2
  fi
}
run loops "$out/loops.bin" "$passes"
for s in "$build"/bin/samples/*; do
  [[ -x $s && -f $s ]] || continue
  name=$(basename "$s")
  case $name in
    mpi_*|*_avx512*) continue ;;  # MPI needs mpirun; sim runs no AVX-512
    fusion) run fusion-fused "$s" fused; run fusion-unfused "$s" unfused; continue ;;
  esac
  run "$name" "$s"
done

/usr/bin/python3 - "$out" "${runs[@]}" <<'PY'
import json, sys
out, names = sys.argv[1], sys.argv[2:]
rows = []
for name in names:
    try:
        doc = json.load(open(f"{out}/{name}/profile.json"))
    except Exception as e:
        print(f"roof_check: {name}: unreadable report ({e})", file=sys.stderr)
        continue
    for r in doc.get("regions", []):
        best, what = 0.0, ""
        rl = r.get("roofline") or {}
        if rl.get("available") and rl.get("fraction_of_bound") is not None:
            best, what = rl["fraction_of_bound"], "FLOP roofline bound"
        for b in (r.get("memory") or {}).get("boundaries", []):
            f = b.get("fraction_of_roof") or 0
            if f > best:
                best = f
                what = "%s bandwidth roof %.4g GB/s (%s kernel, %s pages, %s)" % (
                    b["boundary"].upper(), b["roof_gbs"], b.get("roof_kernel"),
                    b.get("roof_pages") or "?",
                    "read-limited" if b.get("roof_read_limited") else "any mix")
        if best > 0:
            rows.append((best, name, r.get("name") or r.get("path"), what))
rows.sort(reverse=True)
print("| fraction | program | region | highest against |")
print("|---:|---|---|---|")
for f, prog, reg, what in rows:
    print("| %.3f | %s | %s | %s |" % (f, prog, reg, what))
top = rows[0][0] if rows else float("nan")
over = sum(1 for r in rows if r[0] > 1.0)
print()
print("highest fraction of any roof: %.3f (goal: at most 1.00); %d of %d regions above 1.00"
      % (top, over, len(rows)))
PY
