#!/bin/bash
# The runtime's memory over a process's life (tests/integration/apps/lifetime.c):
# peak RSS of 10,000 short-lived threads and the size of the tables file they
# leave, the wall time of 20 forks after 2,000 threads and of 200 forks of a
# parent holding 5,000 region names, and a run under
# `ulimit -v`; each natively (the app linked with librprof, markers inactive
# without the launcher's environment), with the runtime active and its shared
# tables (RPROF_OUTPUT_DIR and RPROF_TABLES_DIR set by hand, as the launcher
# sets them), and under `rprof --backend=time`.
#
#   bench/lifetime_bench.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: lifetime_bench.sh BUILD_DIR}
app=$build/tests/integration/apps/lifetime
rprof=$build/bin/rprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

active() {  # runs the app with the runtime active; its tables in $tmp/tables
  rm -rf "$tmp/raw" "$tmp/tables"
  mkdir -p "$tmp/raw" "$tmp/tables"
  RPROF_OUTPUT_DIR=$tmp/raw RPROF_TABLES_DIR=$tmp/tables "$@"
}
tables_bytes() { du -b --apparent-size "$tmp"/tables/rprof-tables.* | awk '{ s += $1 } END { print s }'; }
tables_disk() { du -k "$tmp"/tables/rprof-tables.* | awk '{ s += $1 } END { print s " kB" }'; }

echo "== 10,000 short-lived threads in sequence (app's own VmHWM / VmRSS, kB)"
echo "native:        $("$app" threads 10000 exit | grep rss_kb)"
echo "runtime active: $(active "$app" threads 10000 _exit | grep rss_kb); tables file $(tables_bytes) bytes, $(tables_disk) on disk"
echo "rprof --backend=time: $("$rprof" -q --backend=time -o "$tmp/out1" -- "$app" threads 10000 exit | grep rss_kb)"
/usr/bin/time -f "  rprof (launcher + app) max RSS %M kB, wall %e s" \
  "$rprof" -q --backend=time -o "$tmp/out2" -- "$app" threads 10000 exit >/dev/null

echo "== 6,000 threads, then _exit"
active "$app" threads 6000 _exit >/dev/null
echo "runtime active: tables file $(tables_bytes) bytes"

echo "== 20 forks after 2,000 threads (wall time of the 20 fork+wait)"
for i in 1 2 3; do
  echo "native:         $("$app" threads 2000 forks 20 | grep forks_ms)"
  echo "runtime active: $(active "$app" threads 2000 forks 20 | grep forks_ms)"
done

echo "== 200 forks of a parent with 5,000 names (wall time; raw/ of the output directory)"
/usr/bin/time -f "native:               wall %e s" "$app" forknames 5000 200
/usr/bin/time -f "rprof --backend=time: wall %e s, max RSS %M kB" \
  "$rprof" -q --backend=time -o "$tmp/out3" -- "$app" forknames 5000 200 >/dev/null
echo "  raw/: $(du -sh "$tmp/out3/raw" | cut -f1)"

echo "== ulimit -v (KiB) for rprof and the app; the app completes 20,202 region paths, then _exit"
for gib in 4 8 16; do
  out=$tmp/ulimit$gib
  if (ulimit -v $((gib * 1024 * 1024)) && "$rprof" -q --backend=time -o "$out" -- "$app" limit 1048576 >/dev/null 2>&1); then
    echo "${gib} GiB: $(python3 -c "import json,sys; p=json.load(open('$out/profile.json')); print(len(p['regions']), 'regions;', [n for n in p['notes'] if 'kept' in n][0][:120])")"
  else
    echo "${gib} GiB: rprof failed"
  fi
done
