#!/usr/bin/env bash
# What a release page carries, from a clean commit:
#
#   bash scripts/release.sh [--build DIR] [--deb FILE] [--out DIR] [--allow-dirty]
#   => OUT/ksnap-<v>.tar.gz                     source (git archive of HEAD, reproducible)
#      OUT/ksnap_<v>_<arch>.deb                 the Debian package (cpack, or --deb)
#      OUT/ksnap_triton-<v>-py3-none-any.whl    the capture plugin for any Python >= 3.9
#      OUT/SHA256SUMS                           sha256sum -c checks them all
#      OUT/RELEASE_NOTES.md                     this version's CHANGELOG.md section
#
# The version is CMakeLists.txt's `project(ksnap VERSION x.y.z)`; it must equal
# python/ksnap_triton/__init__.py's __version__ and have a `## x.y.z` section in
# CHANGELOG.md. Tag the commit `v<x.y.z>` and upload OUT's files (the action's
# `install: deb` takes the .deb's URL and its SHA-256 from SHA256SUMS).
# Exit status: 0 ok; 1 a check failed (the message says which); 2 usage.
set -euo pipefail
cd "$(dirname "$0")/.."
src="$PWD"
build="build" deb="" out="dist" allow_dirty=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --deb) deb="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --allow-dirty) allow_dirty=1; shift ;;
    *) echo "release: unknown argument $1" >&2; exit 2 ;;
  esac
done
fail() { echo "release: FAIL: $*" >&2; exit 1; }
say() { echo "release: $*"; }

version="$(sed -n 's/^project(ksnap VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"
[ -n "$version" ] || fail "CMakeLists.txt: no project(ksnap VERSION x.y.z)"
py_version="$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' python/ksnap_triton/__init__.py)"
[ "$py_version" = "$version" ] ||
  fail "python/ksnap_triton/__init__.py: __version__ $py_version is not $version (CMakeLists.txt)"
grep -q "^## $version\b" CHANGELOG.md 2>/dev/null ||
  fail "CHANGELOG.md: no '## $version' section (write what changed first)"
if [ "$allow_dirty" = 0 ] && [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  fail "the work tree has uncommitted changes: a release is made from a commit (--allow-dirty to try anyway)"
fi
commit="$(git rev-parse HEAD)"
arch="$(dpkg --print-architecture)"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# Source: git archive is reproducible for one commit (gzip -n: no name, no time).
git archive --format=tar --prefix="ksnap-$version/" "$commit" | gzip -n -9 >"$out/ksnap-$version.tar.gz"
say "ksnap-$version.tar.gz from $commit"

# The .deb: given, or made with cpack from the build folder.
if [ -z "$deb" ]; then
  [ -x "$build/ksnap" ] || fail "$build/ksnap is not built (bash scripts/build.sh, or --deb FILE)"
  [ "$("$build/ksnap" --version)" = "ksnap $version" ] ||
    fail "$build/ksnap is $("$build/ksnap" --version), not $version: rebuild"
  (cd "$build" && cpack -G DEB -B "$out/.cpack" >"$out/.cpack.log" 2>&1) ||
    { cat "$out/.cpack.log"; fail "cpack"; }
  deb="$out/.cpack/ksnap_${version}_${arch}.deb"
fi
[ -f "$deb" ] || fail "no .deb at $deb"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] ||
  fail "$deb is version $(dpkg-deb -f "$deb" Version), not $version"
cp "$deb" "$out/ksnap_${version}_${arch}.deb"
rm -rf "$out/.cpack" "$out/.cpack.log"
say "ksnap_${version}_${arch}.deb"

# The wheel, built from the same commit's python/ (standard library only).
wheel_src="$(mktemp -d)"
trap 'rm -rf "$wheel_src"' EXIT
git archive --format=tar "$commit" python/ksnap_triton scripts/build_wheel.py | tar -x -C "$wheel_src"
SOURCE_DATE_EPOCH="$(git log -1 --format=%ct "$commit")" \
  /usr/bin/python3 "$wheel_src/scripts/build_wheel.py" "$out" --source "$wheel_src/python" >/dev/null
[ -f "$out/ksnap_triton-$version-py3-none-any.whl" ] || fail "no wheel"
say "ksnap_triton-$version-py3-none-any.whl"

# Release notes: this version's CHANGELOG section.
awk -v v="$version" '
  /^## / { if (on) exit; if ($2 == v) on = 1 }
  on { print }' CHANGELOG.md >"$out/RELEASE_NOTES.md"

(cd "$out" && sha256sum "ksnap-$version.tar.gz" "ksnap_${version}_${arch}.deb" \
   "ksnap_triton-$version-py3-none-any.whl" >SHA256SUMS && sha256sum -c --quiet SHA256SUMS)
say "SHA256SUMS checks; tag the commit v$version and upload $out/*"
