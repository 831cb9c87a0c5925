#!/usr/bin/env bash
# Compares `rprof machine` with likwid-bench in the same run (not a test).
# Prints rprof/likwid-bench ratios for peak DP FMA at the widest ISA (1 thread
# and all CPUs) and for load, copy and triad bandwidth at 32 kB, 1 MB, 64 MB and
# 2 GB (1 thread; 2 GB also with all CPUs). Target: every ratio >= 0.95.
#
# Usage: bench/machine_vs_likwid.sh [path/to/rprof]   (default build/bin/rprof)
# Environment: BENCH_MODE=quick|full (default full), BENCH_REPS (likwid runs
# per figure, best kept, default 3), BENCH_OUT (directory for raw outputs),
# BENCH_LIKWID_BYTES (bytes one likwid-bench run moves: its -i is this over the
# working set, at least 10; default: likwid's own runs of at least 1 s). On a
# busy machine short runs, as rprof's repetitions are, give both tools the
# same chance of an undisturbed one: e.g. BENCH_LIKWID_BYTES=4e9 BENCH_REPS=10.
#
# Conventions match on both sides: GFLOP/s with FMA = 2 FLOPs; GB/s with
# GB = 1e9 bytes counting the kernels' loads and stores (no write-allocate
# read); sizes are total working sets in decimal units (likwid's kB = 1000 B);
# the best of the repetitions on both sides.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
rprof=${1:-$root/build/bin/rprof}
mode=${BENCH_MODE:-full}
reps=${BENCH_REPS:-3}
likwid_bytes=${BENCH_LIKWID_BYTES:-}
out=${BENCH_OUT:-$(mktemp -d /tmp/rprof-bench.XXXXXX)}
mkdir -p "$out"

[[ -x "$rprof" ]] || { echo "bench: $rprof not built (cmake --build build)" >&2; exit 1; }
if ! command -v likwid-bench >/dev/null; then
  echo "bench: installing likwid (Debian package) for likwid-bench" >&2
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends likwid >/dev/null \
    || { $sudo apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive \
         $sudo apt-get install -y -q --no-install-recommends likwid >/dev/null; }
fi
command -v python3 >/dev/null || { echo "bench: python3 is needed to read JSON" >&2; exit 1; }

cpus=$(nproc)
sizes=(32kB 1MB 64MB 2GB)
flags=$(grep -m1 '^flags' /proc/cpuinfo)
if [[ $flags == *avx512f* ]]; then isa=avx512; width=512
elif [[ $flags == *avx2* && $flags == *" fma"* ]]; then isa=avx; width=256
else isa=sse; width=128; fi
peak_kernel=peakflops_${isa}_fma
[[ $isa == sse ]] && peak_kernel=peakflops_sse
load_kernel=load_${isa}
copy_kernel=copy_${isa}
triad_kernel=triad_${isa}_fma
[[ $isa == sse ]] && triad_kernel=triad_sse

echo "bench: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $cpus CPUs;" \
     "likwid-bench $(likwid-bench -h 2>&1 | grep -m1 -o 'Version *[0-9.]*' | awk '{print $2}')" \
     "(runs of ${likwid_bytes:-1 s}${likwid_bytes:+ bytes}, best of $reps); rprof machine --$mode; raw outputs in $out" >&2
echo "bench: load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# likwid-bench: best of $reps runs of one kernel; prints MFlops/s or MByte/s.
likwid_best() {  # kernel workgroup field
  local best=0 v iters=()
  if [[ -n $likwid_bytes ]]; then  # N:32kB:1 -> -i bytes / 32000
    iters=(-i "$(python3 -c "import re, math; m = re.match(r'([0-9.]+)([kMG])B', '$2'.split(':')[1]);
print(max(10, math.ceil(float('$likwid_bytes') / (float(m[1]) * {'k': 1e3, 'M': 1e6, 'G': 1e9}[m[2]]))))")")
  fi
  for ((i = 0; i < reps; i++)); do
    v=$(likwid-bench "${iters[@]}" -t "$1" -W "$2" 2>&1 | tee -a "$out/likwid.log" |
        awk -v f="$3" '$1 == f":" {print $2}')
    [[ -z $v ]] && { echo "bench: likwid-bench -t $1 -W $2 printed no $3 (see $out/likwid.log)" >&2; echo 0; return; }
    best=$(python3 -c "print(max($best, $v))")
  done
  echo "$best"
}

"$rprof" machine "--$mode" --sizes "$(IFS=,; echo "${sizes[*]}")" --output "$out/machine.json" \
  > "$out/machine.txt"

declare -A L
L[peak1]=$(likwid_best "$peak_kernel" N:16kB:1 MFlops/s)
L[peakN]=$(likwid_best "$peak_kernel" "N:$((16 * cpus))kB:$cpus" MFlops/s)
for s in "${sizes[@]}"; do
  L[load_$s]=$(likwid_best "$load_kernel" "N:$s:1" MByte/s)
  L[copy_$s]=$(likwid_best "$copy_kernel" "N:$s:1" MByte/s)
  L[triad_$s]=$(likwid_best "$triad_kernel" "N:$s:1" MByte/s)
done
L[loadN_2GB]=$(likwid_best "$load_kernel" "N:2GB:$cpus" MByte/s)
L[triadN_2GB]=$(likwid_best "$triad_kernel" "N:2GB:$cpus" MByte/s)
echo "bench: load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

python3 - "$out/machine.json" "$cpus" "$width" "$isa" <<PY
import json, sys
m = json.load(open(sys.argv[1])); cpus = int(sys.argv[2]); width = sys.argv[3]
likwid = {$(for k in "${!L[@]}"; do printf '"%s": %s, ' "$k" "${L[$k]}"; done)}
def sset(t):
    return next((s for s in m["ceilings"] if s["threads"] == t), None)
def peak(t):
    s = sset(t)
    return next(p["gflops"] for p in s["peaks"]
                if p["precision"] == "dp" and p["width"] == width and p["mix"] == "fma")
def sweep(kernel, t, size):
    sw = next(x for x in m["sweeps"] if x["kernel"] == kernel and x["threads"] == t
              and x.get("purpose") == "sizes")
    return sw["points"][size]["gbs"]
sizes = ["32kB", "1MB", "64MB", "2GB"]
rows = [("peak DP FMA %s-bit, 1 thread" % width, "GFLOP/s", peak(1), likwid["peak1"] / 1e3),
        ("peak DP FMA %s-bit, %d threads" % (width, cpus), "GFLOP/s", peak(cpus), likwid["peakN"] / 1e3)]
for i, s in enumerate(sizes):
    rows.append(("load %s, 1 thread" % s, "GB/s", sweep("load", 1, i), likwid["load_" + s] / 1e3))
for i, s in enumerate(sizes):
    rows.append(("copy %s, 1 thread" % s, "GB/s", sweep("copy", 1, i), likwid["copy_" + s] / 1e3))
for i, s in enumerate(sizes):
    rows.append(("triad %s, 1 thread" % s, "GB/s", sweep("triad", 1, i), likwid["triad_" + s] / 1e3))
if cpus > 1:
    rows.append(("load 2GB, %d threads" % cpus, "GB/s", sweep("load", cpus, 3), likwid["loadN_2GB"] / 1e3))
    rows.append(("triad 2GB, %d threads" % cpus, "GB/s", sweep("triad", cpus, 3), likwid["triadN_2GB"] / 1e3))
print("| figure | unit | rprof | likwid-bench | rprof/likwid |")
print("|---|---|---:|---:|---:|")
low = 0
for name, unit, r, l in rows:
    ratio = r / l if l > 0 else float("nan")
    low += not (ratio >= 0.95)
    print("| %s | %s | %.1f | %.1f | %.3f%s |" % (name, unit, r, l, ratio, "" if ratio >= 0.95 else " (< 0.95)"))
print()
print("%d of %d ratios below 0.95; mode %s; noisy-machine notes: %s" %
      (low, len(rows), m["mode"], "; ".join(n for n in m["notes"] if "noisy" in n) or "none"))
PY
