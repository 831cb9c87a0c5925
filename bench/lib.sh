# Shared by the bench/*.sh scripts (sourced, not run). The caller sets
# `reps` (runs per figure) and `tmp` (a scratch directory; "$tmp/out" is
# removed before each run, so a command may write its output directory there)
# and may set `bench_name` (the prefix of error messages).

# "WALL CPU": median wall-clock and median CPU seconds (user + system, the
# command's children included) of REPS runs of a command, its output
# discarded. CPU time is less disturbed by other load on a shared machine.
timed() {
  local i walls=() cpus=() w u s
  for ((i = 0; i < reps; i++)); do
    rm -rf "$tmp/out"
    local TIMEFORMAT='%R %U %S'  # bash's time: wall, user, system (children too)
    if ! { time "$@" >/dev/null 2>&1; } 2>"$tmp/time"; then
      echo "${bench_name:-bench}: failed: $*" >&2
      exit 1
    fi
    read -r w u s <"$tmp/time"
    walls+=("$w")
    cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')")
  done
  local mid=$(((reps + 1) / 2))
  echo "$(printf '%s\n' "${walls[@]}" | sort -g | sed -n "${mid}p")" \
       "$(printf '%s\n' "${cpus[@]}" | sort -g | sed -n "${mid}p")"
}

# a / b, or 0 when b is 0.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) print a / b; else print 0 }'; }
