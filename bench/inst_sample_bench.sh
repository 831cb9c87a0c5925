#!/usr/bin/env bash
# The inst backend's cache simulation (issue 30): speed and accuracy of the
# sampled model, side by side in one run with the full model and the sim
# backend (target: sampled at most 3x native CPU time, geometric mean; each
# region's traffic at L2, LLC and DRAM within 5% of the full model or inside
# its stated 95% interval for at least 95% of regions).
#
# Every kernel is built plainly and with `rprof cc` (memory accesses
# instrumented), same flags. Columns, CPU seconds (user + system, children
# included), median of REPS runs:
#   native    the plain build, no rprof
#   off       rprof --backend=inst --sample=off on the instrumented build
#   sampled   rprof --backend=inst (the default --sample rate)
#   full      rprof --backend=inst --sample=full (every access simulated)
#   sim       rprof --backend=sim --sim-only on the plain build (SIM_MAX_S)
# and accuracy, sampled against full over the kernel's regions and the three
# boundaries: the largest relative difference, and how many region-boundary
# pairs are within 5% or inside their interval ("ok/n"). Caches: this
# machine's (as a user gets them) unless CACHES gives --sim-cache's value.
#
# Usage: bench/inst_sample_bench.sh [BUILD_DIR] [REPS] [SIZE] [FLAGS]
#   defaults: build, 3, LARGE, "-O3 -march=x86-64-v3" where the CPU has AVX2
#   and FMA, else "-O2". SIZE LARGE or MEDIUM (PolyBench's). NO_SIM=1 leaves
#   out the sim column; SIM_MAX_S=S runs it only for kernels whose native run
#   takes at most S CPU seconds. SAMPLE=RATE replaces the
#   default rate. Not a test: minutes, and machine-dependent numbers.
set -euo pipefail

bench_name=inst_sample_bench
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
inst_bench_setup "$@"  # build reps size flags rprof src libdir tmp
py=/usr/bin/python3

if [[ $size == LARGE ]]; then
  poly=("gemm=1000,1100,1200" "2mm=800,900,1100,1200" "atax=1900,2100" "mvt=2000"
        "syrk=1200,1000" "jacobi1d=500,2000" "jacobi2d=500,1300" "trisolv=2000")
  samples=("daxpy 4000000 20" "triad 4000000 20" "matmul 512 32")
  traffic_scale=4
else
  poly=("gemm=200,220,240" "2mm=180,190,210,220" "atax=390,410" "mvt=400"
        "syrk=240,200" "jacobi1d=100,400" "jacobi2d=100,250" "trisolv=400")
  samples=("daxpy 400000 20" "triad 400000 20" "matmul 192 32")
  traffic_scale=1
fi

common=(-DRPROF_ENABLE "-I$src/include" "-I$src/samples" "-L$libdir" "-Wl,-rpath,$libdir" -lrprof -lm)
# shellcheck disable=SC2206
fl=($flags)
build_both() {  # name source
  gcc "${fl[@]}" "$2" "${common[@]}" -o "$tmp/$1.plain"
  "$rprof" cc gcc "${fl[@]}" "$2" "${common[@]}" -o "$tmp/$1.inst"
}
# rprof with a fresh output directory per run (timed runs repeat): rp NAME
# ARGS...; the last run's directory is in $tmp/NAME.last.
cat >"$tmp/rp" <<EOF
#!/bin/sh
name=\$1; shift
d=\$(mktemp -d -p "$tmp") && rmdir "\$d" && echo "\$d" >"$tmp/\$name.last" && exec "$rprof" -q -o "\$d" "\$@"
EOF
chmod +x "$tmp/rp"
cache_opt=()
[[ -n ${CACHES:-} ]] && cache_opt=("--sim-cache=$CACHES")
sample_opt=()
[[ -n ${SAMPLE:-} ]] && sample_opt=("--sample=$SAMPLE")

cases=()
build_both polybench "$src/tests/sim/polybench.c"
for p in "${poly[@]}"; do cases+=("polybench $p"); done
for s in "${samples[@]}"; do
  read -r name _ <<<"$s"
  build_both "$name" "$src/samples/$name.c"
  cases+=("$s")
done
build_both traffic "$src/tests/integration/apps/inst_traffic.c"
cases+=("traffic $traffic_scale")

# sampled vs full: "max_rel_diff ok n" over regions x {l2, llc, dram}.
compare() {  # full.json sampled.json
  "$py" - "$1" "$2" <<'EOF'
import json, sys
def regions(path):
    out = {}
    todo = list(json.load(open(path))["regions"])
    while todo:
        r = todo.pop()
        out["/".join(r["path"])] = r
        todo.extend(r.get("children", []))
    return out
full, samp = regions(sys.argv[1]), regions(sys.argv[2])
worst, ok, n = 0.0, 0, 0
for name, r in samp.items():
    est = {s["boundary"]: s for s in r.get("sampled_traffic", [])}
    for b in ("l2", "llc", "dram"):
        if b not in est or name not in full:
            continue
        c = full[name].get("counters", {})
        f = c.get("bytes.%s.read" % b, 0) + c.get("bytes.%s.write" % b, 0)
        e, ci = est[b]["bytes"], est[b]["ci95_bytes"]
        n += 1
        if abs(e - f) <= max(0.05 * f, ci):
            ok += 1
        if f > 0:
            worst = max(worst, abs(e - f) / f)
print("%.3f %d %d" % (worst, ok, n))
EOF
}

echo "# rprof inst cache simulation: sampled vs full vs sim ($(date -u +%Y-%m-%d), $(uname -m), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
echo "# $(gcc --version | head -1); flags: $flags; sizes: $size; caches: ${CACHES:-this machine}; sample: ${SAMPLE:-default}; CPU seconds (user + system), median of $reps runs"
echo
printf '| %-28s | %7s | %7s | %8s | %8s | %8s | %8s | %8s | %8s | %9s | %6s |\n' "kernel (args)" \
  "native" "off" "sampled" "full" "sim" "samp/nat" "full/nat" "sim/nat" "max diff" "ok/n"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' "------------------------------" "---------" \
  "---------" "----------" "----------" "----------" "----------" "----------" "----------" \
  "-----------" "--------"
logs=0 logf=0 n=0 tok=0 tn=0
for c in "${cases[@]}"; do
  read -r name args <<<"$c"
  # shellcheck disable=SC2086
  read -r _ nc <<<"$(timed "$tmp/$name.plain" $args)"
  # shellcheck disable=SC2086
  read -r _ oc <<<"$(timed "$tmp/rp" off --backend=inst --sample=off "${cache_opt[@]}" "$tmp/$name.inst" $args)"
  # shellcheck disable=SC2086
  read -r _ sc <<<"$(timed "$tmp/rp" samp --backend=inst "${sample_opt[@]}" "${cache_opt[@]}" "$tmp/$name.inst" $args)"
  # shellcheck disable=SC2086
  read -r _ fc <<<"$(timed "$tmp/rp" full --backend=inst --sample=full "${cache_opt[@]}" "$tmp/$name.inst" $args)"
  read -r worst ok cnt <<<"$(compare "$(cat "$tmp/full.last")/profile.json" "$(cat "$tmp/samp.last")/profile.json")"
  mc="-" mr="-"
  if [[ -z ${NO_SIM:-} ]] && awk -v t="$nc" -v m="${SIM_MAX_S:-1e9}" 'BEGIN { exit !(t <= m) }'; then
    # shellcheck disable=SC2086
    read -r _ mc <<<"$(timed "$tmp/rp" sim --backend=sim --sim-only "${cache_opt[@]}" "$tmp/$name.plain" $args)"
    mr=$(printf '%.1f' "$(ratio "$mc" "$nc")")
  fi
  sr=$(ratio "$sc" "$nc")
  fr=$(ratio "$fc" "$nc")
  logs=$(awk -v s="$logs" -v r="$sr" 'BEGIN { print s + log(r) }')
  logf=$(awk -v s="$logf" -v r="$fr" 'BEGIN { print s + log(r) }')
  n=$((n + 1)) tok=$((tok + ok)) tn=$((tn + cnt))
  printf '| %-28s | %7.3f | %7.3f | %8.3f | %8.3f | %8s | %8.2f | %8.2f | %8s | %8.1f%% | %6s |\n' \
    "$name $args" "$nc" "$oc" "$sc" "$fc" "$mc" "$sr" "$fr" "$mr" \
    "$(awk -v w="$worst" 'BEGIN { print 100 * w }')" "$ok/$cnt"
done
echo
printf 'geometric mean over %d kernels: sampled / native %.2f (target <= 3), full / native %.2f; regions x boundaries within 5%% of full or inside the interval: %d of %d (%.1f%%, target >= 95%%)\n' \
  "$n" "$(awk -v s="$logs" -v n="$n" 'BEGIN { print exp(s / n) }')" \
  "$(awk -v s="$logf" -v n="$n" 'BEGIN { print exp(s / n) }')" "$tok" "$tn" \
  "$(awk -v a="$tok" -v b="$tn" 'BEGIN { print b ? 100 * a / b : 0 }')"
