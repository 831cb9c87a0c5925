#!/usr/bin/env bash
# Peak memory of the readers on hostile files within their caps (issue 16:
# no input grows the tool past a few hundred MB). Each file is read by the
# command that reads that kind: `rprof report FILE` (profile.json reader, then
# the raw reader for a raw profile), `rprof merge -o DIR FILE` (raw reader
# only), `rprof report PROFILE --machine FILE` (machine file reader). Prints
# the exit status, max RSS (decimal MB) and wall seconds of each, and the
# first 100 characters of the message.
#
# Every command runs under `ulimit -v` (LIMIT_MB, default 4000 MB of address
# space) so a reader that would take more is stopped there ("killed at the
# limit") instead of pressing a shared machine.
#
# Usage: bench/hostile_inputs.sh [BUILD_DIR]    (default: build)
set -euo pipefail

build=${1:-build}
rprof=$(realpath "$build/bin/rprof")
limit_mb=${LIMIT_MB:-4000}
corpus=$(realpath "$(dirname "$0")/../tests/fuzz/corpus")
[[ -x $rprof ]] || { echo "hostile_inputs: $rprof not found; build first" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "hostile_inputs: /usr/bin/time is not installed" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

zeros() { yes 0 | head -n "$1" | paste -sd, || true; }  # N zeros: 0,0,... (yes ends by SIGPIPE)
deep() {                                                 # N arrays nested D deep
  local open close
  open=$(printf '%.0s[' $(seq "$2")); close=$(printf '%.0s]' $(seq "$2"))
  yes "$open$close" | head -n "$1" | paste -sd, || true
}
strings() {                                              # N strings of 1 MiB
  local i
  for ((i = 0; i < $1; i++)); do
    ((i == 0)) || printf ','
    printf '"'; head -c 1048576 /dev/zero | tr '\0' x; printf '"'
  done
}
# FILE TEXT FROM: FILE with FROM's first occurrence of TEXT followed by stdin.
insert_after() {
  local at
  at=$(grep -bo -m1 -F "$2" "$3" | head -1 | cut -d: -f1)
  { head -c $((at + ${#2})) "$3"; cat; tail -c +$((at + ${#2} + 1)) "$3"; } >"$1"
  [[ -n $at ]] || { echo "hostile_inputs: '$2' not in $3" >&2; exit 1; }
}

raw=$corpus/raw/valid-two-threads.json
profile=$corpus/profile/valid-two-threads.json
machine=$corpus/machine/skylake-sp.json
# The recorded skylake-sp machine: never this machine's own file (nor a calibration).
fixture=$(realpath "$(dirname "$0")/../tests/fixtures/machines/skylake-sp")
export RPROF_SYSROOT=$fixture RPROF_MACHINE_FILE=$fixture/machine.json
{ echo -n '['; zeros 32000000; echo ']'; } >"$tmp/zeros.json"
{ echo -n '"junk": ['; zeros 32000000; echo -n '], '; } | insert_after "$tmp/raw-zeros-member.json" '"signal": 0, ' "$raw"
{ echo -n '"incl": ['; zeros 32000000; echo -n '], '; } | insert_after "$tmp/raw-zeros-incl.json" '"excl_ns": 5, ' "$raw"
{ echo -n '"junk": ['; deep 500000 62; echo -n '], '; } | insert_after "$tmp/raw-deep.json" '"signal": 0, ' "$raw"
{ echo -n '"junk": ['; strings 100; echo -n '], '; } | insert_after "$tmp/raw-strings.json" '"signal": 0, ' "$raw"
{ echo -n '{"junk": ['; zeros 32000000; echo -n ']}, '; } | insert_after "$tmp/profile-zeros-region.json" '"regions": [' "$profile"
{ echo -n '{"junk": ['; deep 500000 60; echo -n ']}, '; } | insert_after "$tmp/profile-deep-region.json" '"regions": [' "$profile"
# The largest files within the caps (256 MiB): a profile.json whose region of
# 32 M zeros is followed by 190 MB of blanks, a raw profile of 250 strings of
# 1 MiB (a reader that holds the text holds all of it).
{ echo -n '{"junk": ['; zeros 32000000; echo -n ']}, '; head -c 190000000 /dev/zero | tr '\0' ' '; } |
  insert_after "$tmp/profile-zeros-254mb.json" '"regions": [' "$profile"
{ echo -n '"junk": ['; strings 250; echo -n '], '; } | insert_after "$tmp/raw-strings-262mb.json" '"signal": 0, ' "$raw"
{ echo -n '"junk": ['; deep 16000 62; echo -n '], '; } | insert_after "$tmp/machine-deep.json" '"schema_version": 1,' "$machine"
{ echo -n '"junk": ['; zeros 1000000; echo -n '], '; } | insert_after "$tmp/machine-zeros.json" '"schema_version": 1,' "$machine"

echo "# rprof readers on hostile files ($(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg))"
echo "# max RSS in decimal MB (/usr/bin/time), under ulimit -v $limit_mb MB"
echo
printf '| %-42s | %8s | %4s | %8s | %7s | %s\n' "command on file" "file MB" "exit" "max RSS" "wall s" "message"
printf '|%s|%s|%s|%s|%s|%s\n' "--------------------------------------------" "----------" "------" \
  "----------" "---------" "---"
run() {  # NAME FILE COMMAND...
  local name=$1 file=$2 rc=0
  shift 2
  ( ulimit -v $((limit_mb * 1000)); /usr/bin/time -f '%M %e' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ) || rc=$?
  local rss wall msg
  read -r rss wall < <(tail -1 "$tmp/time") || true
  [[ $rss =~ ^[0-9]+$ ]] || { rss=0; wall=$(tail -1 "$tmp/time" | cut -d' ' -f2); }
  msg=$(grep -v '^Command\|^\s' "$tmp/err" | head -1 | sed "s|$tmp/||g" | cut -c1-100 || true)
  ((rc == 0)) || grep -q 'rprof:' "$tmp/err" || msg="killed at the limit or crashed: ${msg:-no message}"
  printf '| %-42s | %8.1f | %4s | %5.0f MB | %7s | %s\n' "$name" \
    "$(awk -v b="$(stat -c %s "$file")" 'BEGIN { print b / 1e6 }')" "$rc" \
    "$(awk -v k="$rss" 'BEGIN { print k * 1024 / 1e6 }')" "$wall" "$msg"
}
for f in zeros raw-zeros-member raw-zeros-incl raw-deep raw-strings raw-strings-262mb; do
  run "report $f.json" "$tmp/$f.json" "$rprof" report "$tmp/$f.json"
  run "merge $f.json" "$tmp/$f.json" "$rprof" merge -o "$tmp/out-$f" "$tmp/$f.json"
done
for f in profile-zeros-region profile-deep-region profile-zeros-254mb; do
  run "report $f.json" "$tmp/$f.json" "$rprof" report "$tmp/$f.json"
done
for f in machine-deep machine-zeros; do
  run "report valid --machine $f.json" "$tmp/$f.json" "$rprof" report "$profile" --machine "$tmp/$f.json"
done
