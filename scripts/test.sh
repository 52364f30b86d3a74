#!/usr/bin/env bash
# The README's second command: build, then run every test suite.
#   - C++ unit and golden CLI tests (gtest via ctest)
#   - Python tests of the Triton capture plugin and the PR-workflow scripts (pytest)
#   - the C++ unit and CLI tests again under ASan+UBSan (scripts/sanitize.sh)
#   - a short libFuzzer run of every parser target (fuzz/run.sh)
#   - the HTML report in headless Chromium
# Set KSNAP_FUZZ_SECONDS (default 20 per target) to fuzz longer, and
# KSNAP_SANITIZE_TESTS=0 to skip the sanitizer build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh   # the quick start installs only what building needs
bash scripts/build.sh -DKSNAP_BUILD_TESTS=ON -DKSNAP_BUILD_BENCH=ON
echo "== ctest"
ctest --test-dir build -j"$(nproc)" --output-on-failure
# The PR-workflow scripts' tests (tests/workflow) run inside ctest
# (workflow_scripts); the capture plugin's tests run here. Each folder has its
# own conftest.py, so each is its own pytest run.
if [ -d python/tests ]; then
  echo "== pytest python/tests"
  /usr/bin/python3 -m pytest -q python/tests
fi
if [ "${KSNAP_SANITIZE_TESTS:-1}" = 1 ]; then
  echo "== ctest under ASan+UBSan (build-asan)"
  bash scripts/sanitize.sh
fi
if [ -x fuzz/run.sh ] || [ -f fuzz/run.sh ]; then
  echo "== fuzz (${KSNAP_FUZZ_SECONDS:-20} s per target)"
  bash fuzz/run.sh "${KSNAP_FUZZ_SECONDS:-20}"
fi
if [ -f tests/browser/run.sh ]; then
  echo "== browser"
  if [ -f tests/browser/package-lock.json ] && [ ! -d tests/browser/node_modules ] &&
     command -v npm >/dev/null 2>&1; then
    (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
  fi
  bash tests/browser/run.sh
fi
# ---- install, package, PR workflow: the consumer project against a
# tune-only install, the .deb built/installed/used, the workflow YAML lint
# (the step runner of the workflows runs inside ctest: workflow_scripts).
echo "== install: tune-only prefix + consumer project"
bash tests/consumer/run.sh
echo "== cmake_minimum_required 3.22 with a real CMake 3.22.1"
bash tests/cmake/min_version.sh
echo "== package: the .deb, built, installed, used (KSNAP_PACKAGE_INSTALL=${KSNAP_PACKAGE_INSTALL:-auto})"
bash tests/package/run.sh build
echo "== action install: source (the action's own source built into RUNNER_TEMP, never the caller's tree)"
bash tests/workflow/install_source.sh
echo "== workflow YAML lint"
bash tests/workflow/lint/run.sh
# ---- end install, package, PR workflow
echo "== all test suites passed"
