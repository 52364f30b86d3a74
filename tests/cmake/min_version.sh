#!/usr/bin/env bash
# cmake_minimum_required(VERSION 3.22) checked with a real CMake 3.22: the
# one Ubuntu 22.04 ships (3.22.1), taken from its archive (two .debs, pinned
# by sha256, unpacked into a scratch folder; nothing is installed). With it:
#   1. the whole project (tests, benches) configures and generates, warning-free;
#   2. the tune-only build, its install and the consumer project
#      (tests/consumer/run.sh: find_package(ksnap) and pkg-config) pass.
# Without network access to the archive the check is skipped, saying so.
#   bash tests/cmake/min_version.sh          # exit 0 = pass or skipped
# KSNAP_CMAKE_322_DEBS: a folder that already holds the two .debs.
set -euo pipefail
cd "$(dirname "$0")/../.."
src="$PWD"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "cmake-3.22: FAIL: $*" >&2; exit 1; }

base=http://archive.ubuntu.com/ubuntu/pool/main/c/cmake
declare -A sha=(
  [cmake_3.22.1-1ubuntu1_amd64.deb]=5cda51128ca90f80de48a63f12818f8220bb4cd8fc42853500b8a4e71039b1c9
  [cmake-data_3.22.1-1ubuntu1_all.deb]=3a29e5796d80c3da53f898972e79d8fb23d40d4ffe9bb162b67966394a45b0e9
)
if [ "$(dpkg --print-architecture 2>/dev/null || echo unknown)" != amd64 ]; then
  echo "cmake-3.22: SKIPPED: the pinned CMake 3.22.1 .deb is for amd64"
  exit 0
fi
for deb in "${!sha[@]}"; do
  if [ -n "${KSNAP_CMAKE_322_DEBS:-}" ] && [ -f "$KSNAP_CMAKE_322_DEBS/$deb" ]; then
    cp "$KSNAP_CMAKE_322_DEBS/$deb" "$work/$deb"
  elif ! curl -sfL --max-time 120 -o "$work/$deb" "$base/$deb"; then
    echo "cmake-3.22: SKIPPED: cannot download $base/$deb (no network access to the Ubuntu archive)"
    exit 0
  fi
  echo "${sha[$deb]}  $work/$deb" | sha256sum -c --quiet - || fail "$deb: sha256 mismatch"
  dpkg-deb -x "$work/$deb" "$work/root"
done
bin="$work/root/usr/bin"
version="$("$bin/cmake" --version)"; version="${version%%$'\n'*}"
[ "$version" = "cmake version 3.22.1" ] || fail "unpacked cmake says: $version"
echo "cmake-3.22: $version"

# 1. The whole project.
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
"$bin/cmake" -S "$src" -B "$work/full" -G Ninja -DKSNAP_BUILD_TESTS=ON -DKSNAP_BUILD_BENCH=ON \
  "${launcher[@]}" >"$work/full.log" 2>&1 || { cat "$work/full.log"; fail "configure (tests, benches)"; }
if grep -q "CMake Warning\|CMake Deprecation Warning" "$work/full.log"; then
  cat "$work/full.log"
  fail "configure warned"
fi
echo "cmake-3.22: the whole project (tests, benches) configures and generates, no warnings"

# 2. Tune-only build, install, consumer project: with this cmake first on PATH.
PATH="$bin:$PATH" KSNAP_TUNE_BUILD_DIR="$work/tune" bash tests/consumer/run.sh
echo "cmake-3.22: ok"
