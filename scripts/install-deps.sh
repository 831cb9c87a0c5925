#!/usr/bin/env bash
# Installs the Debian packages rprof builds and tests with. Idempotent: does
# nothing when everything is present, so it is cheap to run before every build.
# Usage: scripts/install-deps.sh [--with-optional]
#   --with-optional: kept for compatibility; everything is required now.
# likwid and libpapi-dev: their backends, and the tests that run LIKWID- and
# PAPI-annotated programs built against the real libraries under rprof;
# gfortran: the Fortran module, sample and tests. gcc-N-plugin-dev: the inst
# backend's GCC plugin (`rprof cc`). clang, llvm-N-dev and libomp-N-dev: its
# LLVM pass plugin (`rprof cc -- clang`) and clang's OpenMP test.
# python3-pandas, python3-matplotlib: the Python package `rprof` (python/rprof)
# and its tests, run with Debian's /usr/bin/python3.
# The HTML report's browser test needs Debian's chromium, Node.js and the npm
# packages locked in tests/html/package-lock.json (playwright-core, which
# drives /usr/bin/chromium and never downloads a browser of its own).
set -euo pipefail

required=(
  g++ cmake make pkg-config valgrind
  libfmt-dev libspdlog-dev libcli11-dev nlohmann-json3-dev libtomlplusplus-dev
  catch2 libbenchmark-dev libpfm4-dev libxml2-utils
  openmpi-bin libopenmpi-dev
  chromium
  likwid libpapi-dev gfortran
  python3 python3-pandas python3-matplotlib
)
optional=()
# The inst backend's GCC plugin is built against the headers of the GCC that
# builds rprof (gcc-12-plugin-dev on Debian 12).
if command -v gcc >/dev/null; then
  required+=("gcc-$(gcc -dumpversion | cut -d. -f1)-plugin-dev")
else
  required+=(gcc-12-plugin-dev)
fi
# The LLVM pass plugin is built against the LLVM of the default clang (N its
# major version: llvm-14-dev and libomp-14-dev on Debian 12).
if command -v clang >/dev/null; then
  clang_major="$(clang -dumpversion | cut -d. -f1)"
  required+=(clang "llvm-${clang_major}-dev" "libomp-${clang_major}-dev")
else
  required+=(clang llvm-14-dev libomp-14-dev)
fi

missing=()
for p in "${required[@]}" "${optional[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js may come from Debian or elsewhere (NodeSource): only its absence counts.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)

sudo=""
if [[ ${#missing[@]} -gt 0 ]]; then
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  echo "install-deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q >/dev/null || true
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages for tests/html, exactly as locked; skipped when the installed
# versions already match the lock file.
html_dir="$(cd "$(dirname "$0")/.." && pwd)/tests/html"
if ! node -e '
  const lock = require(process.argv[1] + "/package-lock.json").packages;
  for (const [k, v] of Object.entries(lock)) {
    if (!k) continue;
    if (require(process.argv[1] + "/" + k + "/package.json").version !== v.version) process.exit(1);
  }' "$html_dir" 2>/dev/null; then
  echo "install-deps: npm ci in tests/html (playwright-core)" >&2
  (cd "$html_dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
