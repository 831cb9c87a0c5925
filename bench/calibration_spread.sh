#!/usr/bin/env bash
# How far repeated calibrations of one machine move its figures (issue 27:
# "quick calibrations repeated on one machine agree within a stated spread";
# the aim: bandwidths within 5%). Runs `rprof machine` RUNS times one after
# the other, each into its own file, and prints for every figure its values,
# median and spread = (max - min) / median beside the 5% anchor; then, by
# kind (bandwidth, peak, latency), how many figures stayed within it.
# Latencies are lower-is-better; their spread is reported the same way.
#
# Usage: bench/calibration_spread.sh [BUILD_DIR] [RUNS] [MODE]
#   defaults: build, 5, quick. Not a test: seconds to minutes, and the
#   figures are this machine's (a VM's neighbours move its DRAM and LLC).
set -euo pipefail

build=${1:-build}
runs=${2:-5}
mode=${3:-quick}
rprof=$build/bin/rprof
[[ -x $rprof ]] || { echo "calibration_spread: $rprof not found; build first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
files=()
for ((i = 1; i <= runs; i++)); do
  # --output: a file of its own, so no run reads or replaces the user's cache.
  "$rprof" machine "--$mode" --output "$tmp/m$i.json" >/dev/null 2>"$tmp/err" ||
    { cat "$tmp/err" >&2; exit 1; }
  files+=("$tmp/m$i.json")
done
echo "rprof machine --$mode, $runs runs one after the other on $(uname -n)," \
  "$(nproc) CPUs; load average before the last: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "${files[@]}" <<'PY'
import json, statistics, sys
anchor = 0.05
rows = {}
for path in sys.argv[1:]:
    m = json.load(open(path))
    for s in m["ceilings"]:
        t = s["threads"]
        th = f"({t} thread{'s' if t > 1 else ''})"
        for b in s["bandwidth"]:
            pages = f", {b['pages']}" if b.get("pages") else ""
            rows.setdefault(("bandwidth", f"{b['boundary'].upper()} {b['kernel']}{pages} {th}", "GB/s"), []).append(b["gbs"])
        # The roofs regions are held against (MixRoof): at each boundary the
        # best of any kernel and the best read rate, bytes as they cross it.
        for bd in ["l1", "l2", "llc", "dram"]:
            here = [b for b in s["bandwidth"] if b["boundary"] == bd]
            if not here:
                continue
            def crossing(b):
                return b["gbs"] if bd == "l1" else b["traffic_gbs"]
            def read_share(b):
                loads = {"load": 1, "copy": 1, "triad": 3, "update": 1, "daxpy": 2, "streams": 8, "ntcopy": 1}[b["kernel"]]
                stores = {"load": 0, "streams": 0}.get(b["kernel"], 1)
                wa = stores if bd != "l1" and b["kernel"] in ("copy", "triad") else 0
                return (loads + wa) / (loads + wa + stores)
            rows.setdefault(("roof", f"{bd.upper()} roof, any mix {th}", "GB/s"), []).append(max(crossing(b) for b in here))
            rows.setdefault(("roof", f"{bd.upper()} roof, read rate {th}", "GB/s"), []).append(max(crossing(b) * read_share(b) for b in here))
        for p in s["peaks"]:
            rows.setdefault(("peak", f"{p['precision'].upper()} {p['width']} {p['mix']} {th}", "GFLOP/s"), []).append(p["gflops"])
        for l in s["latency"]:
            rows.setdefault(("latency", f"{l['level']} {th}", "ns"), []).append(l["ns"])
print(f"{'figure':34} {'unit':8} {'median':>8} {'spread':>7} {'anchor':>6}  values")
within = {}
for (kind, name, unit), v in rows.items():
    med = statistics.median(v)
    spread = (max(v) - min(v)) / med if med > 0 else 0
    ok = spread <= anchor
    n, k = within.get(kind, (0, 0))
    within[kind] = (n + 1, k + ok)
    flag = "" if ok else "  > anchor"
    print(f"{name:34} {unit:8} {med:8.4g} {100*spread:6.1f}% {100*anchor:5.0f}%  "
          + " ".join(f"{x:.4g}" for x in v) + flag)
for kind, (n, k) in within.items():
    print(f"{kind}: {k} of {n} figures within {100*anchor:.0f}% over {len(sys.argv) - 1} calibrations")
PY
