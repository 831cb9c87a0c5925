#!/usr/bin/env bash
# CTest driver for report.test.mjs: the HTML report in headless Chromium.
# Usage: run_html_test.sh RPROF DAXPY_SAMPLE WORK_DIR
# Exits 77 (CTest: skipped) with the reason when Node.js >= 20, Debian's
# chromium or the npm packages are missing; scripts/install-deps.sh
# installs all three.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
chromium=${RPROF_CHROMIUM:-/usr/bin/chromium}
skip() { echo "test_html_report: SKIPPED: $*"; exit 77; }

command -v node >/dev/null || skip "node is not installed (scripts/install-deps.sh installs it)"
major=$(node -p 'process.versions.node.split(".")[0]')
[[ $major -ge 20 ]] || skip "node $(node --version) is too old for playwright-core (needs 20 or newer)"
[[ -x $chromium ]] || skip "no Chromium at $chromium (scripts/install-deps.sh installs Debian's chromium)"
[[ -f $here/node_modules/playwright-core/package.json ]] ||
  skip "playwright-core is not installed in tests/html (scripts/install-deps.sh runs npm ci there)"

rm -rf "$3"
mkdir -p "$3/home"
# Hermetic: the test's own HOME, and the recorded default machine (its caches
# and machine file), never this machine's calibration or the user's cache.
machine="$here/../fixtures/machines/zen4-desktop"
export HOME="$3/home" XDG_CACHE_HOME="$3/home/.cache"
export RPROF_SYSROOT="$machine" RPROF_MACHINE_FILE="$machine/machine.json"
# Never let playwright look for or fetch a browser of its own.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PLAYWRIGHT_BROWSERS_PATH=0
exec node "$here/report.test.mjs" "$1" "$2" "$3" "$chromium"
