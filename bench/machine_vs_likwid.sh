#!/usr/bin/env bash
# Holds every roof of `rprof machine` against likwid-bench in the same run
# (not a test). For each boundary (L1, L2, LLC, DRAM) and thread count (1 and
# all CPUs) it runs every likwid-bench kernel this CPU has of the families
# load, copy, copy_mem (non-temporal stores), triad, daxpy, update and stream
# (and their _mem variants at DRAM), at the AVX-512 and AVX2 widths (SSE where
# neither runs), at the working set rprof used for that boundary, and prints
# rprof's roof beside the best likwid-bench kernel. Target: every roof at
# least 0.95x the best likwid-bench kernel at that level.
#
# Two conventions, both printed:
#   explicit: the kernels' loads and stores (likwid-bench's and STREAM's
#     MByte/s; no write-allocate read): rprof's best `gbs`.
#   traffic: the bytes that cross the boundary below L1, with the
#     write-allocate read of a store to a line not read first (copy x 3/2,
#     stream x 4/3, triad x 5/4; load, update, daxpy and non-temporal stores
#     x 1): rprof's roof (`traffic_gbs`), the figure regions are held against.
#     At L1 both are explicit.
# GB = 1e9 bytes; best of the repetitions on both sides; GFLOP/s with FMA = 2.
#
# Usage: bench/machine_vs_likwid.sh [path/to/rprof]   (default build/bin/rprof)
# Environment: BENCH_MODE=quick|full (default quick), BENCH_REPS (likwid runs
# per figure, best kept, default 2), BENCH_OUT (directory for raw outputs),
# BENCH_MACHINE (an existing machine file instead of a new calibration),
# BENCH_LEVELS (boundaries to compare, default "l1 l2 llc dram"; each likwid
# kernel runs about 1 s, some 180 runs in all on an AVX-512 machine).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
rprof=${1:-$root/build/bin/rprof}
mode=${BENCH_MODE:-quick}
reps=${BENCH_REPS:-2}
out=${BENCH_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/rprof-bench.XXXXXX")}
mkdir -p "$out"

[[ -x "$rprof" ]] || { echo "bench: $rprof not built (cmake --build build)" >&2; exit 1; }
command -v likwid-bench >/dev/null ||
  { echo "bench: likwid-bench not found: scripts/install-deps.sh installs Debian's likwid" >&2; exit 1; }

cpus=$(nproc)
flags=$(grep -m1 '^flags' /proc/cpuinfo)
isas=()
[[ $flags == *avx512f* ]] && isas+=(avx512)
[[ $flags == *avx2* && $flags == *" fma"* ]] && isas+=(avx)
((${#isas[@]})) || isas=(sse)
available=" $(likwid-bench -a 2>/dev/null | awk '{print $1}' | tr '\n' ' ') "
kernels=()      # every kernel at every level
mem_kernels=()  # non-temporal-store kernels other than copy_mem: DRAM only
for isa in "${isas[@]}"; do
  for fam in load copy copy_mem triad daxpy update stream triad_mem daxpy_mem stream_mem; do
    for k in "${fam}_${isa}" "${fam}_${isa}_fma"; do
      [[ $available == *" $k "* ]] || continue
      case $fam in triad_mem|daxpy_mem|stream_mem) mem_kernels+=("$k") ;; *) kernels+=("$k") ;; esac
    done
  done
done
peak_kernel=peakflops_${isas[0]}_fma
[[ ${isas[0]} == sse ]] && peak_kernel=peakflops_sse

echo "bench: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $cpus CPUs;" \
     "likwid-bench kernels: ${kernels[*]} ${mem_kernels[*]} (best of $reps runs of about 1 s);" \
     "rprof machine --$mode; raw outputs in $out" >&2
echo "bench: load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

if [[ -n ${BENCH_MACHINE:-} ]]; then
  cp "$BENCH_MACHINE" "$out/machine.json"
else
  "$rprof" machine "--$mode" --output "$out/machine.json" > "$out/machine.txt"
fi

# The working set (bytes, all threads) rprof used at each boundary and
# thread count: "threads boundary bytes" lines.
/usr/bin/python3 - "$out/machine.json" > "$out/sets.txt" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for s in m["ceilings"]:
    seen = set()
    for b in s["bandwidth"]:
        if b["boundary"] in seen: continue
        seen.add(b["boundary"])
        print(s["threads"], b["boundary"], b["provenance"]["working_set_bytes"])
PY

# likwid-bench: best of $reps runs; prints MByte/s (or MFlops/s).
likwid_best() {  # kernel workgroup field
  local best=0 v
  for ((i = 0; i < reps; i++)); do
    v=$(likwid-bench -t "$1" -W "$2" 2>&1 | tee -a "$out/likwid.log" |
        awk -v f="$3" '$1 == f":" {print $2}')
    [[ -z $v ]] && { echo "bench: likwid-bench -t $1 -W $2 printed no $3 (see $out/likwid.log)" >&2; v=0; }
    best=$(/usr/bin/python3 -c "print(max($best, $v))")
  done
  echo "$best"
}

: > "$out/likwid.txt"
while read -r threads boundary bytes; do
  [[ $threads == 1 || $threads == "$cpus" ]] || continue
  [[ " ${BENCH_LEVELS:-l1 l2 llc dram} " == *" $boundary "* ]] || continue
  # likwid-bench sizes are per workgroup in kB (1000 B); at least 4 kB per thread.
  kb=$(( bytes / 1000 )); (( kb < 4 * threads )) && kb=$(( 4 * threads ))
  list=("${kernels[@]}")
  [[ $boundary == dram ]] && list+=("${mem_kernels[@]}")
  for k in "${list[@]}"; do
    echo "$threads $boundary $k $(likwid_best "$k" "N:${kb}kB:$threads" MByte/s)" >> "$out/likwid.txt"
  done
done < "$out/sets.txt"
peak1=$(likwid_best "$peak_kernel" N:16kB:1 MFlops/s)
peakN=$(likwid_best "$peak_kernel" "N:$((16 * cpus))kB:$cpus" MFlops/s)
echo "bench: load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

/usr/bin/python3 - "$out/machine.json" "$out/likwid.txt" "$peak1" "$peakN" "$cpus" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
peak_l = {1: float(sys.argv[3]) / 1e3, int(sys.argv[5]): float(sys.argv[4]) / 1e3}
def write_allocate(kernel):  # traffic / explicit bytes below L1
    fam = kernel.split("_")[0]
    if "_mem" in kernel: return 1.0
    return {"copy": 1.5, "stream": 4 / 3, "triad": 1.25}.get(fam, 1.0)
likwid = {}
for line in open(sys.argv[2]):
    t, b, k, v = line.split()
    likwid.setdefault((int(t), b), []).append((k, float(v) / 1e3))
print("rprof machine (%s mode, %s) against likwid-bench, %s" %
      (m["mode"], m.get("pages", ""), m["cpu"]["model_name"]))
print()
print("| boundary | threads | rprof roof (kernel, pages) | best likwid-bench (kernel) | ratio |"
      " rprof explicit | likwid explicit | ratio |")
print("|---|---:|---|---|---:|---:|---:|---:|")
low = rows = 0
for s in m["ceilings"]:
    t = s["threads"]
    for b in ["l1", "l2", "llc", "dram"]:
        mine = [x for x in s["bandwidth"] if x["boundary"] == b]
        theirs = likwid.get((t, b))
        if not mine or not theirs: continue
        roof = max(mine, key=lambda x: x["gbs"] if b == "l1" else x["traffic_gbs"])
        roof_v = roof["gbs"] if b == "l1" else roof["traffic_gbs"]
        conv = [(k, v * (1 if b == "l1" else write_allocate(k))) for k, v in theirs]
        lk, lv = max(conv, key=lambda x: x[1])
        ex = max(mine, key=lambda x: x["gbs"])
        ek, ev = max(theirs, key=lambda x: x[1])
        r1 = roof_v / lv if lv > 0 else float("nan")
        r2 = ex["gbs"] / ev if ev > 0 else float("nan")
        rows += 1
        low += not (r1 >= 0.95)
        print("| %s | %d | %.1f (%s, %s) | %.1f (%s) | %.3f%s | %.1f (%s) | %.1f (%s) | %.3f |" %
              (b.upper(), t, roof_v, roof["kernel"], roof.get("pages", "?"), lv, lk, r1,
               "" if r1 >= 0.95 else " **< 0.95**", ex["gbs"], ex["kernel"], ev, ek, r2))
for s in m["ceilings"]:
    t = s["threads"]
    if t not in peak_l: continue
    dp = [p for p in s["peaks"] if p["precision"] == "dp"]
    best = max(dp, key=lambda p: p["gflops"])
    r = best["gflops"] / peak_l[t] if peak_l[t] > 0 else float("nan")
    print("| peak DP | %d | %.1f GFLOP/s (%s %s) | %.1f GFLOP/s (peakflops) | %.3f | | | |" %
          (t, best["gflops"], best["mix"], best["width"], peak_l[t], r))
print()
print("%d of %d roofs below 0.95x the best likwid-bench kernel at their level (traffic "
      "convention below L1); notes: %s" %
      (low, rows, "; ".join(n for n in m["notes"] if "noisy" in n or "busy" in n) or "none"))
PY
