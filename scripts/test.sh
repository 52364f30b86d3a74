#!/usr/bin/env bash
# The README's second command: build, then run every test suite.
#   - C++ unit and golden CLI tests (gtest via ctest)
#   - Python tests of the Triton capture plugin and the PR-workflow scripts (pytest)
#   - the C++ unit and CLI tests again under ASan+UBSan (scripts/sanitize.sh)
#   - a short libFuzzer run of every parser target (fuzz/run.sh)
#   - the HTML report in headless Chromium
# Set KSNAP_FUZZ_SECONDS (default 20 per target) to fuzz longer, and
# KSNAP_SANITIZE_TESTS=0 to skip the sanitizer build. `--fast` runs the first
# tier only (build, ctest, pytest) and stops. Each tier prints how long it
# took (README.md lists the figures on a 2-core machine).
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
[ "${1:-}" = --fast ] && fast=1
tier_start=$SECONDS
tier_name=""
# tier NAME: closes the tier before (printing its time) and opens NAME.
tier() {
  [ -n "$tier_name" ] && echo "== $tier_name: $((SECONDS - tier_start)) s"
  tier_name="$1"
  tier_start=$SECONDS
  [ -n "$1" ] && echo "== $1"
  return 0
}
# The C++ CLI tests build shell command lines from temporary paths without
# quoting them (ksnap itself takes argv and handles any path): a TMPDIR with a
# space or a shell character would break dozens of them for no product
# reason. Use a private folder under /tmp instead, and say so.
if [ -n "${TMPDIR:-}" ] && [[ "$TMPDIR" =~ [^A-Za-z0-9._/+=,@-] ]]; then
  safe_tmp="$(mktemp -d /tmp/ksnap-tests.XXXXXX)"
  echo "== TMPDIR='$TMPDIR' holds characters the tests' shell command lines do not quote; using $safe_tmp for this run"
  export TMPDIR="$safe_tmp"
  trap 'rm -rf "$safe_tmp"' EXIT
fi
tier "build"
bash scripts/install-deps.sh   # the quick start installs only what building needs
bash scripts/build.sh -DKSNAP_BUILD_TESTS=ON -DKSNAP_BUILD_BENCH=ON
tier "ctest"
ctest --test-dir build -j"$(nproc)" --output-on-failure
# The PR-workflow scripts' tests (tests/workflow) run inside ctest
# (workflow_scripts); the capture plugin's tests run here. Each folder has its
# own conftest.py, so each is its own pytest run.
if [ -d python/tests ]; then
  tier "pytest python/tests"
  /usr/bin/python3 -m pytest -q python/tests
fi
if [ "$fast" = 1 ]; then
  tier ""
  echo "== fast tier passed (scripts/test.sh without --fast runs every tier)"
  exit 0
fi
if [ "${KSNAP_SANITIZE_TESTS:-1}" = 1 ]; then
  tier "ctest under ASan+UBSan (build-asan)"
  bash scripts/sanitize.sh
fi
if [ -x fuzz/run.sh ] || [ -f fuzz/run.sh ]; then
  tier "fuzz (${KSNAP_FUZZ_SECONDS:-20} s per target)"
  bash fuzz/run.sh "${KSNAP_FUZZ_SECONDS:-20}"
fi
if [ -f tests/browser/run.sh ]; then
  tier "browser"
  if [ -f tests/browser/package-lock.json ] && [ ! -d tests/browser/node_modules ] &&
     command -v npm >/dev/null 2>&1; then
    (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
  fi
  bash tests/browser/run.sh
fi
# ---- install, package, PR workflow: the consumer project against a
# tune-only install, the .deb built/installed/used, the workflow YAML lint
# (the step runner of the workflows runs inside ctest: workflow_scripts).
tier "install: tune-only prefix + consumer project"
bash tests/consumer/run.sh
tier "cmake_minimum_required 3.22 with a real CMake 3.22.1"
bash tests/cmake/min_version.sh
tier "package: the .deb, built, installed, used (KSNAP_PACKAGE_INSTALL=${KSNAP_PACKAGE_INSTALL:-auto})"
bash tests/package/run.sh build
tier "action install: source (the action's own source built into RUNNER_TEMP, never the caller's tree)"
bash tests/workflow/install_source.sh
tier "workflow YAML lint"
bash tests/workflow/lint/run.sh
# ---- end install, package, PR workflow
tier ""
echo "== all test suites passed"
