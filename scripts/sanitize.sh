#!/usr/bin/env bash
# Builds the unit tests with AddressSanitizer + UndefinedBehaviorSanitizer
# in build-asan/ (-O1, no benchmarks) and runs them: every parser, reader
# and CLI test (the CLI tests run build-asan/ksnap, so every hostile-input
# reproducer of tests/cli/hostile_cli_test.cc runs sanitized too). Any
# sanitizer report fails the run. scripts/test.sh calls it; set
# KSNAP_SANITIZE_TESTS=0 there to skip it.
#
#   bash scripts/sanitize.sh            # build + ctest
#   bash scripts/sanitize.sh -R Hostile # extra ctest arguments
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${KSNAP_ASAN_BUILD_DIR:-build-asan}"
KSNAP_BUILD_DIR="$dir" bash scripts/build.sh -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DKSNAP_SANITIZE=ON -DKSNAP_BUILD_TESTS=ON -DKSNAP_BUILD_BENCH=OFF
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# workflow_scripts is the Python CI glue (no parser of ours beyond what the
# CLI tests cover); it runs once, unsanitized, in the main ctest.
ctest --test-dir "$dir" -j"$(nproc)" --output-on-failure -E '^workflow_scripts$' "$@"
