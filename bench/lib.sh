# Shared by the bench/*.sh scripts (sourced, not run). The caller sets
# `reps` (runs per figure) and `tmp` (a scratch directory; "$tmp/out" is
# removed before each run, so a command may write its output directory there)
# and may set `bench_name` (the prefix of error messages).

# "WALL CPU" of one run of a command, its output discarded: wall-clock and
# CPU seconds (user + system, the command's children included).
run_once() {
  rm -rf "$tmp/out"
  local TIMEFORMAT='%R %U %S'  # bash's time: wall, user, system (children too)
  if ! { time "$@" >/dev/null 2>&1; } 2>"$tmp/time"; then
    echo "${bench_name:-bench}: failed: $*" >&2
    exit 1
  fi
  awk '{ print $1, $2 + $3 }' "$tmp/time"
}

# The median of its arguments (the lower middle one of an even count).
median() { printf '%s\n' "$@" | sort -g | sed -n "$((($# + 1) / 2))p"; }
# The smallest of its arguments.
fastest() { printf '%s\n' "$@" | sort -g | head -1; }

# "WALL CPU": median wall-clock and median CPU seconds of REPS runs of a
# command. CPU time is less disturbed by other load on a shared machine.
timed() {
  local i walls=() cpus=() r w c
  for ((i = 0; i < reps; i++)); do
    r=$(run_once "$@") || exit 1
    read -r w c <<<"$r"
    walls+=("$w")
    cpus+=("$c")
  done
  echo "$(median "${walls[@]}")" "$(median "${cpus[@]}")"
}

# a / b, or 0 when b is 0.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) print a / b; else print 0 }'; }

# The inst benches' arguments and checks (inst_bench.sh, inst_sample_bench.sh):
# [BUILD_DIR] [REPS] [SIZE] [FLAGS] -> build, reps, size, flags (default
# "-O3 -march=x86-64-v3" where the CPU has AVX2 and FMA, else "-O2"); rprof,
# src (the source tree), libdir; tmp, removed at exit. Exits where rprof is
# not built or has no GCC plugin.
inst_bench_setup() {
  build=${1:-build}
  reps=${2:-3}
  size=${3:-LARGE}
  if [[ -n ${4:-} ]]; then
    flags=$4
  elif grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
    flags="-O3 -march=x86-64-v3"
  else
    flags="-O2"
  fi
  rprof=$build/bin/rprof
  src=$(cd "$(dirname "$0")/.." && pwd)
  [[ -x $rprof ]] || { echo "$bench_name: $rprof not found; build first" >&2; exit 1; }
  compiler=${CC:-gcc}
  "$rprof" cc --flags "$compiler" >/dev/null || { echo "$bench_name: this rprof has no plugin for $compiler" >&2; exit 1; }
  libdir=$(cd "$build/lib" && pwd)
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
}
