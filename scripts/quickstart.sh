#!/usr/bin/env bash
# The README's first command: install dependencies, build, and run the main
# job on the bundled example (base build vs. the build without triton_licm).
set -euo pipefail
cd "$(dirname "$0")/.."
KSNAP_BROWSER_TESTS=0 bash scripts/install-deps.sh
bash scripts/build.sh
./build/ksnap diff examples/corpus/base examples/corpus/no_licm
