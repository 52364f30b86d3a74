#!/usr/bin/env bash
# The README's first command: install what building needs, build ksnap (the
# CLI and its libraries; no tests, no benchmarks), and run the main job on the
# bundled example (base build vs. the build without triton_licm).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --build
bash scripts/build.sh -DKSNAP_BUILD_TESTS=OFF -DKSNAP_BUILD_BENCH=OFF
./build/ksnap diff examples/corpus/base examples/corpus/no_licm
