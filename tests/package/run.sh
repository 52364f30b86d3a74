#!/usr/bin/env bash
# The Debian package, end to end: build ksnap_<version>_<arch>.deb with CPack
# from a build folder, check what it holds and that its Depends are met here,
# install it, and use the installed ksnap from a folder outside the source
# tree: `ksnap diff` on the bundled example, `python3 -m ksnap_triton --help`,
# `ksnap capture` with the installed plugin (Triton stand-in), and the
# installed CMake package from a consumer project (use_installed.sh). Then
# the pip route: the plugin alone, pip-installed offline into a venv, found by
# a ksnap binary that has no plugin next to it.
#
#   bash tests/package/run.sh [BUILD_DIR]     # default build/ (already built)
#
# How the package is installed (KSNAP_PACKAGE_INSTALL):
#   auto     (default) sandbox when possible, else extract
#   sandbox  a real `dpkg -i` into /, inside a private mount namespace where
#            /usr, /var and /etc are overlays on a tmpfs: dpkg checks Depends
#            against the real package database, /usr/bin/python3 finds the
#            plugin in /usr/lib/python3/dist-packages by itself, and nothing
#            is left behind (needs root and unshare; a shared development
#            machine must not get packages installed by a test run)
#   dpkg     a real `dpkg -i` into the real root, `dpkg --purge` at the end; for
#            a throwaway machine (.ci/run sets it); refuses if ksnap is
#            installed already
#   extract  `dpkg -x` into a temporary root, with PYTHONPATH standing in for
#            python3's own /usr/lib/python3/dist-packages (checked to be on
#            /usr/bin/python3's sys.path), Depends checked with dpkg-query
set -euo pipefail
cd "$(dirname "$0")/../.."
src="$PWD"
build="$(cd "${1:-build}" && pwd)"
work="$(mktemp -d)"
mode="${KSNAP_PACKAGE_INSTALL:-auto}"
trap 'rm -rf "$work"' EXIT
say() { echo "package: $*"; }
fail() { echo "package: FAIL: $*" >&2; exit 1; }
version="$(sed -n 's/^project(ksnap VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")"
arch="$(dpkg --print-architecture)"

# ------------------------------------------------------------------ build it
[ -x "$build/ksnap" ] || fail "$build/ksnap is not built"
(cd "$build" && cpack -G DEB -B "$work/deb" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack"; }
deb="$work/deb/ksnap_${version}_${arch}.deb"
[ -f "$deb" ] || fail "no $(basename "$deb"): $(ls "$work/deb")"
say "built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"

# ------------------------------------------------------------------ release
# What a release page carries (scripts/release.sh), from this .deb; it needs
# the git checkout it releases.
if ! git -C "$src" rev-parse --verify -q HEAD >/dev/null; then
  say "release: skipped: $src is not a git checkout"
else
bash "$src/scripts/release.sh" --deb "$deb" --out "$work/release" --allow-dirty >"$work/release.log" 2>&1 ||
  { cat "$work/release.log"; fail "scripts/release.sh"; }
for f in "ksnap-$version.tar.gz" "ksnap_${version}_${arch}.deb" "ksnap_triton-$version-py3-none-any.whl" \
         SHA256SUMS RELEASE_NOTES.md; do
  [ -s "$work/release/$f" ] || fail "the release has no $f"
done
(cd "$work/release" && sha256sum -c --quiet SHA256SUMS) || fail "the release's SHA256SUMS do not check"
[ "$(wc -l <"$work/release/SHA256SUMS")" = 3 ] || fail "SHA256SUMS: $(cat "$work/release/SHA256SUMS")"
tar -tzf "$work/release/ksnap-$version.tar.gz" >"$work/release.list" && grep -qx "ksnap-$version/CMakeLists.txt" "$work/release.list" ||
  fail "the source tarball has no ksnap-$version/CMakeLists.txt"
grep -q "^## $version" "$work/release/RELEASE_NOTES.md" || fail "RELEASE_NOTES.md: $(head -3 "$work/release/RELEASE_NOTES.md")"
say "release: source tarball, .deb, wheel, SHA256SUMS (checked), release notes"
fi

# ------------------------------------------------------------------ contents
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./||' >"$work/contents"
for f in usr/bin/ksnap usr/lib/libksnap_tune.a usr/lib/libksnap_diff.a usr/lib/libksnap_store.a \
         usr/lib/libksnap_tune.so "usr/lib/libksnap_tune.so.${version%.*}" "usr/lib/libksnap_tune.so.$version" \
         usr/lib/pkgconfig/ksnap-tune-shared.pc \
         usr/include/ksnap/tune/group.h usr/include/ksnap/diff/result.h \
         usr/lib/cmake/ksnap/ksnapConfig.cmake usr/lib/cmake/ksnap/ksnapConfigVersion.cmake \
         usr/lib/cmake/ksnap/ksnapTargets.cmake usr/lib/pkgconfig/ksnap-tune.pc \
         usr/lib/python3/dist-packages/ksnap_triton/__main__.py \
         usr/lib/python3/dist-packages/ksnap_triton/_bootstrap/sitecustomize.py \
         usr/share/ksnap/python/ksnap_triton usr/share/ksnap/examples/corpus/base/manifest.json \
         usr/share/man/man1/ksnap.1 usr/share/bash-completion/completions/ksnap \
         usr/share/zsh/vendor-completions/_ksnap \
         "usr/share/ksnap/wheels/ksnap_triton-$version-py3-none-any.whl"; do
  grep -qx "$f" "$work/contents" || fail "the package has no /$f"
done
if grep -E '__pycache__|\.pyc$' "$work/contents"; then fail "the package holds bytecode"; fi
# The shared library is declared (shlibs) and ldconfig runs on install.
# (captured first: grep -q on a pipe under pipefail can SIGPIPE the writer)
shlibs="$(dpkg-deb -I "$deb" shlibs 2>&1 || true)"
grep -qx "libksnap_tune ${version%.*} ksnap (>= $version)" <<<"$shlibs" || fail "shlibs: $shlibs"
postinst="$(dpkg-deb -I "$deb" postinst 2>&1 || true)"
grep -q '^[[:space:]]*ldconfig' <<<"$postinst" || fail "postinst runs no ldconfig: $postinst"
# Every static library in the package is position-independent: each one,
# whole, links into a shared object (a non-PIC object fails with "relocation
# R_X86_64_PC32 ... recompile with -fPIC").
dpkg-deb -x "$deb" "$work/contents.d"
# The package carries jemalloc's notice exactly when its program runs on
# jemalloc (cmake/KsnapAllocator.cmake links it statically when found).
allocator="$(sh "$src/tests/cli/allocator.sh" "$work/contents.d/usr/bin/ksnap")"
if [ "$allocator" = jemalloc ]; then
  grep -qx usr/share/doc/ksnap/copyright.jemalloc "$work/contents" ||
    fail "the program runs on jemalloc but the package has no /usr/share/doc/ksnap/copyright.jemalloc"
  say "the program runs on jemalloc; the package carries its copyright notice"
elif grep -qx usr/share/doc/ksnap/copyright.jemalloc "$work/contents"; then
  fail "the package carries jemalloc's notice but its program does not run on jemalloc"
fi
n=0
for a in "$work"/contents.d/usr/lib/libksnap_*.a; do
  g++ -shared -o "$work/whole.so" -Wl,--whole-archive "$a" -Wl,--no-whole-archive >"$work/pic.log" 2>&1 ||
    { head -5 "$work/pic.log"; fail "$(basename "$a") does not link into a shared object"; }
  n=$((n + 1))
done
want="$(find "$src/src" -mindepth 1 -maxdepth 1 -type d | wc -l)"
[ "$n" = "$want" ] || fail "$n static libraries in the package, $want components in src/"
say "all $n static libraries link into a shared object (position-independent)"
[ "$(dpkg-deb -f "$deb" Package)" = ksnap ] && [ "$(dpkg-deb -f "$deb" Version)" = "$version" ] ||
  fail "control: Package/Version"
# Every Depends entry is installed here, at a version that satisfies it.
depends="$(dpkg-deb -f "$deb" Depends)"
grep -q 'python3' <<<"$depends" && grep -q 'libsqlite3-0' <<<"$depends" || fail "Depends: $depends"
/usr/bin/python3 - "$depends" <<'PY' || fail "unmet Depends"
import re, subprocess, sys
for clause in sys.argv[1].split(","):
    ok = False
    for alt in clause.split("|"):
        m = re.fullmatch(r"\s*([a-z0-9.+-]+)(?::any)?\s*(?:\(\s*([<>=]+)\s*([^)\s]+)\s*\))?\s*", alt)
        if not m:
            sys.exit(f"cannot parse Depends entry {alt!r}")
        name, op, ver = m.groups()
        q = subprocess.run(["dpkg-query", "-W", "-f=${Status}|${Version}", name],
                           capture_output=True, text=True)
        if q.returncode != 0 or not q.stdout.startswith("install ok installed"):
            continue
        have = q.stdout.split("|", 1)[1]
        dpkg_op = {">=": "ge", "<=": "le", ">>": "gt", "<<": "lt", "=": "eq"}.get(op or "", None)
        if op is None or subprocess.run(["dpkg", "--compare-versions", have, dpkg_op, ver]).returncode == 0:
            ok = True
            break
    if not ok:
        sys.exit(f"Depends {clause.strip()!r} is not met on this machine")
PY
say "contents and Depends ok: $depends"

# ------------------------------------------------------------------ install and use it
if [ "$mode" = auto ]; then
  mode=extract
  if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
     unshare -m --propagation private bash "$src/tests/package/use_installed.sh" --probe "$work" 2>/dev/null; then
    mode=sandbox
  fi
fi
case "$mode" in
  sandbox) unshare -m --propagation private bash "$src/tests/package/use_installed.sh" sandbox "$deb" "$work" "$version" ;;
  dpkg|extract) bash "$src/tests/package/use_installed.sh" "$mode" "$deb" "$work" "$version" ;;
  *) fail "KSNAP_PACKAGE_INSTALL=$mode: use auto, sandbox, dpkg or extract" ;;
esac

# ------------------------------------------------------------------ pip
# The plugin alone, offline, into a venv that sees Debian's setuptools.
cp -r "$src/python" "$work/pysrc"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install --no-build-isolation --no-index --no-deps -q "$work/pysrc" \
  >"$work/pip.log" 2>&1 || { cat "$work/pip.log"; fail "pip install --no-build-isolation"; }
where="$(PYTHONPATH= "$work/venv/bin/python" -c 'import ksnap_triton; print(ksnap_triton.__version__, ksnap_triton.__file__)')"
[ "${where%% *}" = "$version" ] || fail "pip-installed ksnap_triton version ${where%% *} != $version"
case "$where" in *"$work/venv/lib/"*) ;; *) fail "pip-installed plugin imported from $where" ;; esac
# A ksnap binary with no plugin beside it uses the venv's.
mkdir -p "$work/lonely/bin"
cp "$build/ksnap" "$work/lonely/bin/ksnap"
PATH="$work/venv/bin:$PATH" PYTHONPATH="$src/python/tests/fake_triton" \
  "$work/lonely/bin/ksnap" capture -o "$work/cap2" -- "$work/venv/bin/python" "$src/python/tests/sweep_script.py" \
  >"$work/capture2.log" 2>&1 || { cat "$work/capture2.log"; fail "ksnap capture with the pip-installed plugin"; }
[ -f "$work/cap2/manifest.json" ] || fail "no manifest from the pip-installed plugin"
rc=0; PATH="/usr/bin:/bin" "$work/lonely/bin/ksnap" merge "$work/cap3" >"$work/none.log" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "cannot import one" "$work/none.log" ||
  fail "no plugin anywhere: exit $rc, $(cat "$work/none.log")"
say "pip install --no-build-isolation into a venv, and ksnap capture with it: ok"
# The wheel the package carries (scripts/build_wheel.py), into a venv of its
# own (no Debian packages), offline: what a pyenv, conda or venv Python does.
whl="$work/contents.d/usr/share/ksnap/wheels/ksnap_triton-$version-py3-none-any.whl"
[ -f "$whl" ] || fail "the package has no /usr/share/ksnap/wheels/$(basename "$whl")"
/usr/bin/python3 -m venv "$work/venv2"
"$work/venv2/bin/python" -m pip install --no-index --no-deps -q "$whl" >"$work/pip2.log" 2>&1 ||
  { cat "$work/pip2.log"; fail "pip install $(basename "$whl")"; }
mkdir -p "$work/elsewhere2"
where="$(cd "$work/elsewhere2" && PYTHONPATH= "$work/venv2/bin/python" -c 'import ksnap_triton; print(ksnap_triton.__version__, ksnap_triton.__file__)')"
[ "${where%% *}" = "$version" ] || fail "wheel-installed ksnap_triton version ${where%% *} != $version"
case "$where" in *"$work/venv2/lib/"*) ;; *) fail "wheel-installed plugin imported from $where" ;; esac
(cd "$work/elsewhere2" && PYTHONPATH= "$work/venv2/bin/python" -m ksnap_triton --help >/dev/null) ||
  fail "python -m ksnap_triton --help in the wheel's venv"
"$work/venv2/bin/python" -m pip uninstall -y -q ksnap-triton >/dev/null 2>&1 || fail "pip uninstall ksnap-triton"
say "the package's wheel: pip install offline into a plain venv, python -m ksnap_triton, pip uninstall: ok"
say "ok"
