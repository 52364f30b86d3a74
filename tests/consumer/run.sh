#!/usr/bin/env bash
# The consumer test: ksnap configured with -DKSNAP_TUNE_ONLY=ON (no CLI11,
# SQLite, zstd or GTest looked up), installed into an empty prefix, checked to
# hold only the tune runtime; the installed headers compiled one by one as
# C++17 (cxx17_headers.cmake, with g++ and, when there is one, clang++);
# libksnap_tune.so checked for its SONAME and exports. Then, as C++17
# projects outside the tree, against that prefix with find_package(ksnap):
# this folder's project (the static libraries in a program and in a shared
# object that Python's ctypes loads, and the shared library in a program) and
# docs/autotune.md's CPU example, examples/tune-cpu, exactly as the document
# shows it (docs_example.py), run twice. Last, the same program with
# pkg-config alone: ksnap-tune.pc (static) and ksnap-tune-shared.pc.
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
unexpected="$(grep -v -E '^(include/ksnap/(support|capture|tune)/[a-z0-9_]+\.h|lib/libksnap_(support|capture|tune)\.a|lib/libksnap_tune\.so(\.[0-9]+\.[0-9]+(\.[0-9]+)?)?|lib/cmake/ksnap/ksnap(Config|ConfigVersion|Targets|Targets-release)\.cmake|lib/pkgconfig/ksnap-tune(-shared)?\.pc)$' <<<"$got" || true)"
[ -z "$unexpected" ] || fail "the tune-only prefix holds more than the runtime: $unexpected"
for f in lib/libksnap_tune.a lib/libksnap_capture.a lib/libksnap_support.a lib/libksnap_tune.so include/ksnap/tune/group.h \
         lib/cmake/ksnap/ksnapConfig.cmake lib/pkgconfig/ksnap-tune.pc lib/pkgconfig/ksnap-tune-shared.pc; do
  [ -e "$prefix/$f" ] || fail "the prefix has no $f"
done
echo "consumer: prefix holds $(wc -l <<<"$got") files: support + capture + tune headers, 3 static libraries, libksnap_tune.so, CMake config, 2 .pc files"

# The installed headers, each alone, as C++17.
for cxx in g++ clang++; do
  command -v "$cxx" >/dev/null 2>&1 || continue
  out="$(cmake -DCXX="$cxx" -DINCLUDE_DIR="$prefix/include" -DWORK_DIR="$work/cxx17-$cxx" \
           -P "$src/tests/consumer/cxx17_headers.cmake" 2>&1)" || { echo "$out"; fail "headers as C++17 ($cxx)"; }
  echo "consumer: $cxx: ${out#cxx17_headers: }" | cut -c1-110
done

# libksnap_tune.so: versioned SONAME, and nothing but ksnap:: exported.
version="$(sed -n 's/^project(ksnap VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")"
soname="libksnap_tune.so.$(cut -d. -f1,2 <<<"$version")"
# Output is captured before grep -q reads it: under pipefail, grep -q closing
# the pipe early kills the writer with SIGPIPE, and the pipeline fails at random.
dynamic="$(readelf -d "$prefix/lib/libksnap_tune.so")"
grep -q "Library soname: \[$soname\]" <<<"$dynamic" ||
  fail "libksnap_tune.so has no SONAME $soname: $(grep SONAME <<<"$dynamic")"
exports="$(nm -D --defined-only -C "$prefix/lib/libksnap_tune.so" | cut -d' ' -f3-)"
[ "$(grep -c 'ksnap::tune::Group::dispatch' <<<"$exports")" -ge 1 ] || fail "libksnap_tune.so does not export Group::dispatch"
foreign="$(grep -v -E '^((vtable|typeinfo|typeinfo name) for )?ksnap::' <<<"$exports" || true)"
[ -z "$foreign" ] || fail "libksnap_tune.so exports more than ksnap:: symbols: $(head -3 <<<"$foreign")"
echo "consumer: $soname exports $(wc -l <<<"$exports") symbols, all ksnap::"

# find_package(ksnap COMPONENTS tune) from a C++17 project outside the tree.
cmake -S "$src/tests/consumer" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  >"$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; fail "consumer configure"; }
ninja -C "$work/consumer" -v >>"$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; fail "consumer build"; }
grep -q -- "-std=c++17 .*pick_variant.cc" "$work/consumer.log" || fail "the consumer project was not compiled as C++17"
out="$("$work/consumer/pick_variant" "$work/cache.json")" || fail "pick_variant: $out"
echo "consumer (cmake, static):        $out"
grep -q "group 1: v1 (separated)" <<<"$out" || fail "unexpected output: $out"
loaded="$(ldd "$work/consumer/pick_variant_shared")"
grep -qF "$soname => $prefix/lib/$soname" <<<"$loaded" ||
  fail "pick_variant_shared does not load $prefix/lib/$soname: $loaded"
out="$("$work/consumer/pick_variant_shared" "$work/cache_shared.json")" || fail "pick_variant_shared: $out"
echo "consumer (cmake, shared):        $out"
grep -q "group 1: v1 (separated)" <<<"$out" || fail "unexpected output: $out"
# The static libraries inside a shared object, loaded as a Python extension would be.
out="$(/usr/bin/python3 -c 'import ctypes, sys; sys.exit(ctypes.CDLL(sys.argv[1]).ksnap_consumer_pick(sys.argv[2].encode()))' \
         "$work/consumer/libpick_plugin.so" "$work/cache_plugin.json")" || fail "libpick_plugin.so via ctypes: $out"
echo "consumer (static in a .so, ctypes): $out"
grep -q "group 1: v1 (separated)" <<<"$out" || fail "unexpected output: $out"

# docs/autotune.md's CPU example, as the document shows it, built and run twice.
/usr/bin/python3 "$src/tests/consumer/docs_example.py" docs/autotune.md examples/tune-cpu >/dev/null ||
  fail "docs/autotune.md does not show examples/tune-cpu as it is"
cmake -S "$src/examples/tune-cpu" -B "$work/example" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  >"$work/example.log" 2>&1 || { cat "$work/example.log"; fail "examples/tune-cpu configure"; }
ninja -C "$work/example" -v >>"$work/example.log" 2>&1 || { cat "$work/example.log"; fail "examples/tune-cpu build"; }
grep -q -- "-std=gnu++17 .*main.cc" "$work/example.log" || fail "examples/tune-cpu was not compiled as C++17"
for run in first second; do
  out="$(cd "$work" && "$work/example/tune_cpu")" || fail "tune_cpu ($run run): $out"
  sed "s/^/consumer (docs example, $run run): /" <<<"$out"
  [ "$(grep -c 'sums ok$' <<<"$out")" = 3 ] || fail "tune_cpu ($run run) did not sum 3 workloads right: $out"
done
[ "$(grep -c ' (cached) 0 of ' <<<"$out")" = 3 ] || fail "the second run of tune_cpu did not take its 3 decisions from $work/tune-cache.json"

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
g++ -std=c++17 -O1 -o "$work/pick_variant_pc" "$src/tests/consumer/pick_variant.cc" \
  $(pkg-config --cflags --libs ksnap-tune) || fail "build with pkg-config"
loaded="$(ldd "$work/pick_variant_pc")"
if grep -q libksnap_tune <<<"$loaded"; then fail "ksnap-tune.pc linked the shared library"; fi
out="$("$work/pick_variant_pc" "$work/cache_pc.json")" || fail "pick_variant (pkg-config): $out"
echo "consumer (pkg-config, static):   $out"
# shellcheck disable=SC2046
g++ -std=c++17 -O1 -o "$work/pick_variant_pc_shared" "$src/tests/consumer/pick_variant.cc" \
  $(pkg-config --cflags --libs ksnap-tune-shared) || fail "build with pkg-config (shared)"
out="$(LD_LIBRARY_PATH="$prefix/lib" "$work/pick_variant_pc_shared" "$work/cache_pc_shared.json")" ||
  fail "pick_variant (pkg-config, shared): $out"
echo "consumer (pkg-config, shared):   $out"
echo "consumer: ok"
