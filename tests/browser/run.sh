#!/usr/bin/env bash
# Browser test of the HTML report: headless Debian chromium driven by
# playwright-core (tests/browser/report.test.mjs). Installs nothing.
#
#   tests/browser/run.sh                 # uses ./build (or KSNAP_BUILD_DIR)
#   KSNAP_BUILD_DIR=build-x CI=true tests/browser/run.sh
#
# Needs: /usr/bin/chromium (or CHROMIUM), node, tests/browser/node_modules
# (npm ci), the ksnap and html_report_bench binaries in the build folder, and
# the corpus at ../shared/corpus (or KSNAP_CORPUS_DIR).
# Without chromium or node_modules it skips (exit 0) unless CI is set; under
# CI=true a missing prerequisite is a failure. Screenshots and the reports go
# to the build folder's browser-artifacts/ (or OUT_DIR), for CI to upload.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
build="${KSNAP_BUILD_DIR:-$repo/build}"
case "$build" in /*) ;; *) build="$repo/$build" ;; esac
export CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
export KSNAP_BIN="${KSNAP_BIN:-$build/ksnap}"
export HTML_BENCH="${HTML_BENCH:-$build/bench/html_report_bench}"
export OUT_DIR="${OUT_DIR:-$build/browser-artifacts}"
in_ci=0
if [ -n "${CI:-}" ] && [ "${CI}" != "false" ] && [ "${CI}" != "0" ]; then in_ci=1; fi

missing=()
[ -x "$CHROMIUM" ] || missing+=("chromium at $CHROMIUM (apt-get update && apt-get install -y chromium)")
command -v node >/dev/null 2>&1 || missing+=("node (apt-get install -y nodejs npm)")
[ -f "$here/node_modules/playwright-core/package.json" ] || missing+=("playwright-core (cd tests/browser && npm ci)")
if [ ${#missing[@]} -gt 0 ]; then
  for m in "${missing[@]}"; do echo "browser test: missing $m" >&2; done
  if [ $in_ci -eq 1 ]; then
    echo "browser test: FAILED (CI is set, prerequisites are required)" >&2
    exit 1
  fi
  echo "browser test: SKIPPED (install the above, or set CI=true to make this a failure)"
  exit 0
fi
for bin in "$KSNAP_BIN" "$HTML_BENCH"; do
  if [ ! -x "$bin" ]; then
    echo "browser test: FAILED: $bin not built (ninja -C $build ksnap html_report_bench)" >&2
    exit 1
  fi
done

corpus="${KSNAP_CORPUS_DIR:-$repo/../shared/corpus}"
if [ -f "$corpus/base/manifest.json" ] && [ -f "$corpus/no_licm/manifest.json" ]; then
  export KSNAP_CORPUS_DIR="$(cd "$corpus" && pwd)"
else
  echo "browser test: no corpus at $corpus: the corpus report and the 10k report are not tested"
  unset KSNAP_CORPUS_DIR
fi
examples="${KSNAP_EXAMPLE_DIR:-$repo/examples/corpus}"
if [ -d "$examples" ]; then export KSNAP_EXAMPLE_DIR="$(cd "$examples" && pwd)"; else unset KSNAP_EXAMPLE_DIR; fi
if [ -z "${KSNAP_CORPUS_DIR:-}" ] && [ -z "${KSNAP_EXAMPLE_DIR:-}" ]; then
  echo "browser test: SKIPPED: neither the shared corpus nor examples/corpus is present"
  exit 0
fi

mkdir -p "$OUT_DIR"
cd "$here"
exec node report.test.mjs
