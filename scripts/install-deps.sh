#!/usr/bin/env bash
# Installs the Debian packages rprof builds and tests with. Idempotent: does
# nothing when everything is present, so it is cheap to run before every build.
# Usage: scripts/install-deps.sh [--with-optional]
#   --with-optional also installs what optional backends and tests use
#   (PAPI and likwid backends).
set -euo pipefail

required=(
  g++ cmake make pkg-config valgrind
  libfmt-dev libspdlog-dev libcli11-dev nlohmann-json3-dev
  catch2 libbenchmark-dev libpfm4-dev libxml2-utils
  openmpi-bin libopenmpi-dev
)
optional=()
if [[ "${1:-}" == "--with-optional" ]]; then
  optional=(libpapi-dev likwid)
fi

missing=()
for p in "${required[@]}" "${optional[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >/dev/null || true
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
