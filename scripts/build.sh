#!/usr/bin/env bash
# Configures and builds ksnap in build/ (Release, -O3, Ninja).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build -j"$(nproc)"
