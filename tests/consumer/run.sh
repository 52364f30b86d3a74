#!/usr/bin/env bash
# The consumer test: ksnap configured with -DKSNAP_TUNE_ONLY=ON (no CLI11,
# SQLite, zstd or GTest looked up), installed into an empty prefix, checked to
# hold only the tune runtime; then this folder's project is built against that
# prefix with find_package(ksnap) and run, and the same program is built again
# with pkg-config (ksnap-tune.pc) alone.
#
#   bash tests/consumer/run.sh      # from the repository root; exit 0 = pass
# KSNAP_TUNE_BUILD_DIR (default build-tune-only/) keeps the ksnap build.
set -euo pipefail
cd "$(dirname "$0")/../.."
src="$PWD"
build="${KSNAP_TUNE_BUILD_DIR:-$src/build-tune-only}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
fail() { echo "consumer: FAIL: $*" >&2; exit 1; }

launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
echo "consumer: configure ksnap -DKSNAP_TUNE_ONLY=ON in $build"
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKSNAP_TUNE_ONLY=ON \
  "${launcher[@]}" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "configure"; }
# Only the runtime's own dependencies were looked up.
for dep in CLI11 GTest SQLITE3 ZSTD benchmark; do
  if grep -q "^${dep}_\(DIR\|FOUND\)\b" "$build/CMakeCache.txt" ||
     grep -qi "module '\?lib${dep,,}\|Checking for module '${dep,,}" "$work/configure.log"; then
    fail "a tune-only configure looked up $dep"
  fi
done
ninja -C "$build" -j2 >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build"; }
cmake --install "$build" --prefix "$prefix" >/dev/null

# The prefix holds the tune runtime and nothing else.
got="$(cd "$prefix" && find . -type f -o -type l | sed 's|^\./||' | sort)"
unexpected="$(grep -v -E '^(include/ksnap/(support|capture|tune)/[a-z0-9_]+\.h|lib/libksnap_(support|capture|tune)\.a|lib/cmake/ksnap/ksnap(Config|ConfigVersion|Targets|Targets-release)\.cmake|lib/pkgconfig/ksnap-tune\.pc)$' <<<"$got" || true)"
[ -z "$unexpected" ] || fail "the tune-only prefix holds more than the runtime: $unexpected"
for f in lib/libksnap_tune.a lib/libksnap_capture.a lib/libksnap_support.a include/ksnap/tune/group.h \
         lib/cmake/ksnap/ksnapConfig.cmake lib/pkgconfig/ksnap-tune.pc; do
  [ -e "$prefix/$f" ] || fail "the prefix has no $f"
done
echo "consumer: prefix holds $(wc -l <<<"$got") files: support + capture + tune headers, 3 static libraries, CMake config, ksnap-tune.pc"

# find_package(ksnap COMPONENTS tune) from a project outside the tree.
cmake -S "$src/tests/consumer" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  >"$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; fail "consumer configure"; }
ninja -C "$work/consumer" >>"$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; fail "consumer build"; }
out="$("$work/consumer/pick_variant" "$work/cache.json")" || fail "pick_variant: $out"
echo "consumer (cmake):      $out"
grep -q "group 1: v1 (separated)" <<<"$out" || fail "unexpected output: $out"

# A component this prefix lacks is an error when REQUIRED.
mkdir -p "$work/missing"
cat >"$work/missing/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.22)
project(missing LANGUAGES CXX)
find_package(ksnap REQUIRED COMPONENTS store)
CM
if cmake -S "$work/missing" -B "$work/missing/b" -DCMAKE_PREFIX_PATH="$prefix" >"$work/missing.log" 2>&1; then
  fail "find_package(ksnap COMPONENTS store) succeeded on a tune-only prefix"
fi
grep -q "store" "$work/missing.log" || fail "the missing-component error does not name it"

# pkg-config alone, no CMake.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
[ "$(pkg-config --modversion ksnap-tune)" = "$(sed -n 's/^project(ksnap VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")" ] ||
  fail "ksnap-tune.pc version differs from the project's"
# shellcheck disable=SC2046
g++ -O1 -o "$work/pick_variant_pc" "$src/tests/consumer/pick_variant.cc" \
  $(pkg-config --cflags --libs ksnap-tune) || fail "build with pkg-config"
out="$("$work/pick_variant_pc" "$work/cache_pc.json")" || fail "pick_variant (pkg-config): $out"
echo "consumer (pkg-config): $out"
echo "consumer: ok"
