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
[ "$bin" = "$RUNNER_TEMP/ksnap/bin" ] || fail "GITHUB_PATH holds '$bin', expected $RUNNER_TEMP/ksnap/bin"
[ -x "$bin/ksnap" ] || fail "no $bin/ksnap"
[ ! -e "$work/caller/build" ] && [ ! -e "$work/caller/CMakeCache.txt" ] || fail "something was built in the caller tree"

# The installed binary works, away from the source tree.
cd "$work"
set +e
"$bin/ksnap" diff "$src/examples/corpus/base" "$src/examples/corpus/no_licm" --exit-code -q
rc=$?
set -e
[ "$rc" = 1 ] || fail "ksnap diff of the example: exit $rc, expected 1 (IR changed)"
[ -d "$RUNNER_TEMP/ksnap/share/ksnap/python/ksnap_triton" ] || fail "the plugin was not installed under share/ksnap/python"

after="$(cd "$src" && git status --porcelain --ignored=matching 2>/dev/null | sort || true)"
[ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after") || true; fail "the source tree changed"; }
echo "install-source: ok ($("$bin/ksnap" --version))"
