#!/usr/bin/env bash
# Installs the ksnap .deb one of three ways and uses it from a folder outside
# the source tree (called by tests/package/run.sh, which explains the modes):
#
#   use_installed.sh sandbox|dpkg|extract DEB WORK VERSION
#   use_installed.sh --probe WORK     # exit 0 when the sandbox can be made here
set -euo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
say() { echo "package: $*"; }
fail() { echo "package: FAIL: $*" >&2; exit 1; }

# Overlays on /usr, /var and /etc, their changes kept in a tmpfs: only valid
# inside `unshare -m --propagation private`, gone when it ends.
overlay_root() {
  local ov="$1/overlay"
  mkdir -p "$ov"
  mount -t tmpfs ksnap-test "$ov"
  for d in usr var etc; do
    mkdir -p "$ov/$d/upper" "$ov/$d/work"
    mount -t overlay overlay -o "lowerdir=/$d,upperdir=$ov/$d/upper,workdir=$ov/$d/work" "/$d"
  done
}

if [ "${1:-}" = --probe ]; then
  [ "$(id -u)" = 0 ] || exit 1
  overlay_root "$2/probe"
  exit 0
fi
mode="$1" deb="$2" work="$3" version="$4"

installed_by_us=0
# --purge, not -r: a removed package stays known to dpkg ("rc",
# deinstall ok config-files), and the next run must find the machine as it was.
trap '[ "$installed_by_us" = 0 ] || dpkg --purge ksnap >/dev/null 2>&1 || true' EXIT
py_env=()
root=""
case "$mode" in
  sandbox|dpkg)
    [ "$(id -u)" = 0 ] || fail "installing with dpkg -i needs root"
    if [ "$mode" = sandbox ]; then
      overlay_root "$work"
    else
      # Only an installed package is in the way. "rc" (removed, config files
      # known) or "not-installed" is what a previous run's removal leaves.
      status="$(dpkg-query -W -f='${Status}' ksnap 2>/dev/null || true)"
      case "$status" in
        "" | *" not-installed" | *" config-files") ;;
        *) fail "a ksnap package is installed already ($status); not replacing it" ;;
      esac
    fi
    dpkg -i "$deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i"; }
    [ "$mode" = sandbox ] || installed_by_us=1
    [ "$(dpkg-query -W -f='${Status}' ksnap)" = "install ok installed" ] || fail "dpkg-query: not installed"
    if [ "$mode" = sandbox ]; then
      say "installed with dpkg -i into / (a private mount namespace with overlays: nothing persists)"
    else
      say "installed with dpkg -i into / (removed again at the end)"
    fi
    ;;
  extract)
    root="$work/root"
    dpkg -x "$deb" "$root"
    /usr/bin/python3 -c 'import sys; sys.exit("/usr/lib/python3/dist-packages" not in sys.path)' ||
      fail "/usr/bin/python3 does not search /usr/lib/python3/dist-packages"
    py_env=(PYTHONPATH="$root/usr/lib/python3/dist-packages")
    say "extracted with dpkg -x into $root"
    ;;
  *) fail "unknown mode $mode" ;;
esac
ksnap="$root/usr/bin/ksnap"
examples="$root/usr/share/ksnap/examples/corpus"
# ------------------------------------------------------------------ use it
mkdir -p "$work/elsewhere"
cd "$work/elsewhere"
[ "$("$ksnap" --version)" = "ksnap $version" ] || fail "ksnap --version: $("$ksnap" --version)"
"$ksnap" diff "$examples/base" "$examples/no_licm" --stat >"$work/stat.txt" || fail "ksnap diff"
grep -q "matmul_kernel" "$work/stat.txt" || fail "ksnap diff --stat names no changed kernel: $(cat "$work/stat.txt")"
rc=0; "$ksnap" diff "$examples/base" "$examples/noise" --exit-code >/dev/null || rc=$?
[ "$rc" = 0 ] || fail "base vs noise must be equal after normalization (exit $rc)"
rc=0; "$ksnap" diff "$examples/base" "$examples/no_licm" --exit-code >/dev/null || rc=$?
[ "$rc" = 1 ] || fail "base vs no_licm: --exit-code gave $rc, not 1"
say "ksnap diff on the installed example (base vs no_licm): $(tail -1 "$work/stat.txt" | sed "s/^ *//")"
env "${py_env[@]}" /usr/bin/python3 -m ksnap_triton --help >"$work/help.txt" ||
  fail "python3 -m ksnap_triton --help"
grep -q "capture" "$work/help.txt" || fail "plugin help: $(cat "$work/help.txt")"
where="$(env "${py_env[@]}" /usr/bin/python3 -c 'import ksnap_triton; print(ksnap_triton.__file__)')"
case "$where" in "$root/usr/lib/python3/dist-packages/"*) ;; *) fail "ksnap_triton came from $where" ;; esac
say "python3 -m ksnap_triton --help from $PWD: ok ($where)"

# ksnap capture with the installed plugin (the Triton stand-in compiles).
PYTHONPATH="$src/python/tests/fake_triton" KSNAP_PYTHON=/usr/bin/python3 \
  "$ksnap" capture -o "$work/cap" -- /usr/bin/python3 "$src/python/tests/sweep_script.py" \
  >"$work/capture.log" 2>&1 || { cat "$work/capture.log"; fail "ksnap capture"; }
n="$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["entries"]))' "$work/cap/manifest.json")"
[ "$n" = 7 ] || fail "the capture holds $n variants, not 7"
say "ksnap capture with the installed plugin: $(tail -1 "$work/capture.log")"

# The installed CMake package, from a C++17 consumer project: the static
# libraries in a program and in a shared object (loaded with ctypes), the
# shared library in a program.
cmake -S "$src/tests/consumer" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$root/usr" \
  >"$work/consumer.log" 2>&1 && ninja -C "$work/consumer" >>"$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log"; fail "consumer project against the package"; }
say "consumer against the package: $("$work/consumer/pick_variant" "$work/tune.json")"
out="$("$work/consumer/pick_variant_shared" "$work/tune_shared.json")" || fail "pick_variant_shared: $out"
loaded="$(ldd "$work/consumer/pick_variant_shared" | sed -n 's/^[[:space:]]*libksnap_tune\.so\.[0-9.]* => \([^ ]*\) .*/\1/p')"
[ -n "$loaded" ] && [ "$(readlink -f "$loaded")" = "$(readlink -f "$root/usr/lib/libksnap_tune.so.${version%.*}")" ] ||
  fail "pick_variant_shared does not load the package's libksnap_tune.so: $(ldd "$work/consumer/pick_variant_shared")"
out="$(/usr/bin/python3 -c 'import ctypes, sys; sys.exit(ctypes.CDLL(sys.argv[1]).ksnap_consumer_pick(sys.argv[2].encode()))' \
         "$work/consumer/libpick_plugin.so" "$work/tune_plugin.json")" || fail "libpick_plugin.so via ctypes: $out"
say "consumer against the package, libksnap_tune.so and the static libraries in a .so: ok"
# COMPONENTS tune looks up libxxhash only: no libzstd, no libsqlite3 (whose
# -dev packages a tune user need not have); COMPONENTS store does look them up.
for lib in xxhash zstd sqlite3; do
  n="$(grep -c "^KSNAP_${lib}_LIBRARY:" "$work/consumer/CMakeCache.txt" || true)"
  case "$lib:$n" in xxhash:1|zstd:0|sqlite3:0) ;; *) fail "COMPONENTS tune: lib$lib looked up $n times" ;; esac
done
mkdir -p "$work/store_user"
cat >"$work/store_user/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.22)
project(store_user LANGUAGES CXX)
find_package(ksnap 0.1 REQUIRED COMPONENTS store)
CM
cmake -S "$work/store_user" -B "$work/store_user/b" -DCMAKE_PREFIX_PATH="$root/usr" >"$work/store_user.log" 2>&1 ||
  { cat "$work/store_user.log"; fail "find_package(ksnap COMPONENTS store) against the package"; }
for lib in xxhash zstd sqlite3; do
  grep -q "^KSNAP_${lib}_LIBRARY:" "$work/store_user/b/CMakeCache.txt" || fail "COMPONENTS store: lib$lib not looked up"
done
say "find_package(ksnap COMPONENTS tune) looks up libxxhash only; COMPONENTS store also libzstd and libsqlite3"

# docs/autotune.md's CPU example against the package.
cmake -S "$src/examples/tune-cpu" -B "$work/example" -G Ninja -DCMAKE_PREFIX_PATH="$root/usr" \
  >"$work/example.log" 2>&1 && ninja -C "$work/example" >>"$work/example.log" 2>&1 ||
  { cat "$work/example.log"; fail "examples/tune-cpu against the package"; }
out="$("$work/example/tune_cpu" "$work/tune_cpu.json")" || fail "tune_cpu: $out"
[ "$(grep -c 'sums ok$' <<<"$out")" = 3 ] || fail "tune_cpu: $out"
say "examples/tune-cpu against the package: $(head -1 <<<"$out")"

