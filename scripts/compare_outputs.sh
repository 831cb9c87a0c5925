#!/usr/bin/env bash
# Do two builds of rprof render the same runs the same? For a refactoring
# that must not change behaviour (docs/ARCHITECTURE.md): runs each sample
# once with NEW's rprof (sim backend where it works, else time; the recorded
# zen4-desktop machine, so ceilings and simulated caches are fixed), then
# has both builds re-read what those runs saved: `rprof merge` of each output
# directory (each driver's merge of its passes) and `rprof report` of its
# profile.json in every format (text, json, csv, svg, html). Times come from
# the one run, so every file must be byte-identical; any difference is
# printed and the script exits 1.
#
# Usage: scripts/compare_outputs.sh OLD_BUILD_DIR NEW_BUILD_DIR [WORK_DIR]
set -euo pipefail
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
work=${3:-$(mktemp -d)}
mkdir -p "$work"
export HOME=$work/home RPROF_SYSROOT=$src/tests/fixtures/machines/zen4-desktop
export RPROF_MACHINE_FILE=$RPROF_SYSROOT/machine.json
mkdir -p "$HOME"
[[ -f $RPROF_MACHINE_FILE ]] || { echo "compare_outputs: no $RPROF_MACHINE_FILE" >&2; exit 2; }

# sample name and arguments: small sizes, a few seconds each under sim.
samples=(
  "daxpy 200000 5" "triad 200000 5" "matmul 96" "nested" "precision" "memcpy 4000000 2"
  "chase 100000 50000" "tiny" "fusion" "stream_int 200000 2" "omp_triad 200000 2"
)
differ=0 compared=0
for s in "${samples[@]}"; do
  read -r name args <<<"$s"
  app=$new/bin/samples/$name
  [[ -x $app ]] || { echo "skip $name: not built"; continue; }
  out=$work/run-$name
  rm -rf "$out"
  # shellcheck disable=SC2086
  if ! OMP_NUM_THREADS=2 "$new/bin/rprof" -q -o "$out" --backend=sim "$app" $args >/dev/null 2>&1; then
    rm -rf "$out"
    # shellcheck disable=SC2086
    OMP_NUM_THREADS=2 "$new/bin/rprof" -q -o "$out" --backend=time "$app" $args >/dev/null 2>&1 ||
      { echo "skip $name: it did not run"; continue; }
  fi
  for b in old new; do
    bin=${!b}/bin/rprof
    rm -rf "$work/$b-$name" && mkdir -p "$work/$b-$name"
    "$bin" merge "$out" -o "$work/$b-$name/merged" >"$work/$b-$name/merge.txt" 2>/dev/null ||
      echo "merge failed" >"$work/$b-$name/merge.txt"
    for f in text json csv svg html; do
      "$bin" report "$out/profile.json" --format $f >"$work/$b-$name/report.$f" 2>&1 || true
    done
  done
  # The merged directory's own files, minus the names of the directories.
  for b in old new; do
    find "$work/$b-$name/merged" -type f | sort | while read -r f; do
      sed "s#$work/$b-$name/merged#MERGED#g" "$f" >"$f.norm" && mv "$f.norm" "$f"
    done
  done
  if diff -r "$work/old-$name" "$work/new-$name" >"$work/diff-$name.txt"; then
    echo "same: $name ($(find "$work/new-$name" -type f | wc -l) files)"
  else
    echo "DIFFERENT: $name ($work/diff-$name.txt):"
    head -20 "$work/diff-$name.txt" | cut -c1-240
    differ=1
  fi
  compared=$((compared + 1))
done
echo "compare_outputs: $compared samples compared, $([[ $differ == 0 ]] && echo "all the same" || echo "some differ")"
exit $differ
