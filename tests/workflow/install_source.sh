#!/usr/bin/env bash
# The action's `install: source` path (ci/github/scripts/install_ksnap.sh), as
# a runner runs it: from the caller's checkout (a repository whose own
# CMakeLists.txt must never be configured), building the action's own source
# into $RUNNER_TEMP, installing into the prefix, adding it to $GITHUB_PATH.
# Then the installed ksnap diffs the bundled example and finds its plugin.
# The source tree is left as it was (no file added or changed, ignored ones
# included).
#   bash tests/workflow/install_source.sh     # from anywhere; exit 0 = pass
set -euo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "install-source: FAIL: $*" >&2; exit 1; }

# The caller's repository: configuring it would fail loudly.
mkdir -p "$work/caller"
printf 'cmake_minimum_required(VERSION 3.22)\nproject(caller)\nmessage(FATAL_ERROR "the caller tree was configured")\n' \
  >"$work/caller/CMakeLists.txt"
before="$(cd "$src" && git status --porcelain --ignored=matching 2>/dev/null | sort || true)"

export RUNNER_TEMP="$work/runner-temp" GITHUB_PATH="$work/github_path"
mkdir -p "$RUNNER_TEMP"
: >"$GITHUB_PATH"
(cd "$work/caller" && KSNAP_INSTALL=source KSNAP_SOURCE="$src" KSNAP_INSTALL_PREFIX="" \
   bash "$src/ci/github/scripts/install_ksnap.sh") >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; fail "install_ksnap.sh exited $?"; }
grep -q "(install: source)" "$work/install.log" || { cat "$work/install.log"; fail "no install line"; }
bin="$(cat "$GITHUB_PATH")"
[ "$bin" = "$RUNNER_TEMP/ksnap-bin/bin" ] || fail "GITHUB_PATH holds '$bin', expected $RUNNER_TEMP/ksnap-bin/bin"
[ -x "$bin/ksnap" ] || fail "no $bin/ksnap"
[ ! -e "$work/caller/build" ] && [ ! -e "$work/caller/CMakeCache.txt" ] || fail "something was built in the caller tree"

# The installed binary works, away from the source tree.
cd "$work"
set +e
"$bin/ksnap" diff "$src/examples/corpus/base" "$src/examples/corpus/no_licm" --exit-code -q
rc=$?
set -e
[ "$rc" = 1 ] || fail "ksnap diff of the example: exit $rc, expected 1 (IR changed)"
[ -d "$RUNNER_TEMP/ksnap-bin/share/ksnap/python/ksnap_triton" ] || fail "the plugin was not installed under share/ksnap/python"

# The next PR's run: the cache restored the prefix; the same source is not
# built again. A prefix from other source is.
key="$(KSNAP_SOURCE="$src" bash "$src/ci/github/scripts/install_ksnap.sh" --source-key)"
[ "$(cat "$RUNNER_TEMP/ksnap-bin/.source-key")" = "$key" ] || fail "the prefix has no .source-key $key"
: >"$GITHUB_PATH"
start=$SECONDS
(cd "$work/caller" && KSNAP_INSTALL=source KSNAP_SOURCE="$src" KSNAP_INSTALL_PREFIX="" \
   bash "$src/ci/github/scripts/install_ksnap.sh") >"$work/install2.log" 2>&1 ||
  { cat "$work/install2.log"; fail "install_ksnap.sh (cached) exited $?"; }
grep -q "(install: source, cached build $key)" "$work/install2.log" ||
  { cat "$work/install2.log"; fail "the second install did not use the cached build"; }
[ "$(cat "$GITHUB_PATH")" = "$RUNNER_TEMP/ksnap-bin/bin" ] || fail "cached: GITHUB_PATH holds $(cat "$GITHUB_PATH")"
[ $((SECONDS - start)) -lt 30 ] || fail "the cached install took $((SECONDS - start)) s"
# The key follows the source: one changed file gives another key.
mkdir -p "$work/keysrc" && cp -r "$src/CMakeLists.txt" "$src/cmake" "$src/include" "$src/src" "$src/tools" "$work/keysrc/"
mkdir -p "$work/keysrc/python" "$work/keysrc/scripts" "$work/keysrc/examples"
cp -r "$src/python/ksnap_triton" "$work/keysrc/python/" && cp "$src/scripts/build_wheel.py" "$work/keysrc/scripts/"
cp -r "$src/examples/corpus" "$work/keysrc/examples/"
[ "$(KSNAP_SOURCE="$work/keysrc" bash "$src/ci/github/scripts/install_ksnap.sh" --source-key)" = "$key" ] ||
  fail "a copy of the same source has another key"
echo "// changed" >>"$work/keysrc/src/support/status.cc"
[ "$(KSNAP_SOURCE="$work/keysrc" bash "$src/ci/github/scripts/install_ksnap.sh" --source-key)" != "$key" ] ||
  fail "a changed source file keeps the key"

after="$(cd "$src" && git status --porcelain --ignored=matching 2>/dev/null | sort || true)"
[ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after") || true; fail "the source tree changed"; }
echo "install-source: ok ($("$bin/ksnap" --version))"
