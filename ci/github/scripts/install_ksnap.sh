#!/usr/bin/env bash
# Installs ksnap for the GitHub action (action.yml), never from the caller's
# repository, and never trusts a binary it has not verified:
#
#   KSNAP_INSTALL=auto    the ksnap on PATH only when KSNAP_SHA256 is set and is
#                         the SHA-256 of that binary (a runner image's pinned
#                         ksnap); an unpinned or mismatching one is ignored with
#                         a warning (a self-hosted runner that also ran a fork's
#                         code may hold a ksnap that code replaced); else deb
#                         when KSNAP_DEB_URL is set; else source
#   KSNAP_INSTALL=deb     download KSNAP_DEB_URL (a release's ksnap_<v>_amd64.deb),
#                         check it against KSNAP_DEB_SHA256 (required); with
#                         KSNAP_INSTALL_PREFIX: `dpkg -x` it there (no root;
#                         the runtime libraries must be present), else
#                         `apt-get install ./ksnap.deb` (root or sudo), which
#                         pulls in its Depends
#   KSNAP_INSTALL=source  build the action's own checkout (KSNAP_SOURCE, the
#                         action's folder, pinned by the action's ref):
#                         Debian/Ubuntu build dependencies with apt-get, CMake +
#                         Ninja without tests, installed into
#                         KSNAP_INSTALL_PREFIX (default $RUNNER_TEMP/ksnap-bin).
#                         A prefix that holds a ksnap built from the same source
#                         (its .source-key equals `--source-key`: the action
#                         restores it from actions/cache) is used as it is:
#                         every PR does not rebuild ksnap
#
#   install_ksnap.sh --source-key   prints the key of KSNAP_SOURCE: the SHA-256 of
#                         every file the build reads, the OS and the compiler
#   KSNAP_INSTALL=none    use the ksnap on PATH; checked against KSNAP_SHA256
#                         when that is set, else trusted as it is (the caller
#                         vouches for the runner)
#
# Appends the bin folder to $GITHUB_PATH and prints the version it installed.
set -euo pipefail
mode="${KSNAP_INSTALL:-auto}"
prefix="${KSNAP_INSTALL_PREFIX:-}"
src="${KSNAP_SOURCE:?KSNAP_SOURCE: the ksnap source folder}"

# The identity of a build from source: the files it reads, the OS, the compiler.
source_key() {
  local paths=() p
  for p in CMakeLists.txt cmake include src tools python/ksnap_triton scripts/build_wheel.py examples/corpus; do
    [ -e "$src/$p" ] && paths+=("$p")
  done
  {
    (cd "$src" && find "${paths[@]}" -type f ! -name '*.pyc' ! -path '*/__pycache__/*' -print0 |
       LC_ALL=C sort -z | xargs -0 sha256sum)
    grep -E '^(ID|VERSION_ID)=' /etc/os-release 2>/dev/null || true
    { c++ --version 2>/dev/null || echo "no c++"; } | sed -n 1p
  } | sha256sum | cut -c1-32
}
if [ "${1:-}" = --source-key ]; then
  source_key
  exit 0
fi
tmp="${RUNNER_TEMP:-/tmp}"
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi
}

pin="${KSNAP_SHA256:-}"
sha256_of() { sha256sum "$1" | cut -d' ' -f1; }
# True when the ksnap on PATH is the pinned binary (KSNAP_SHA256).
path_ksnap_verified() {
  local bin
  bin="$(command -v ksnap 2>/dev/null)" || return 1
  [ -n "$pin" ] || return 1
  [ "$(sha256_of "$(readlink -f "$bin")")" = "$pin" ]
}

if [ "$mode" = auto ]; then
  if path_ksnap_verified; then mode=none
  else
    if command -v ksnap >/dev/null 2>&1; then
      if [ -n "$pin" ]; then why="its SHA-256 is not ksnap-sha256"; else why="no ksnap-sha256 pins it"; fi
      echo "::warning::install: auto: not using the ksnap at $(command -v ksnap): $why"
    fi
    if [ -n "${KSNAP_DEB_URL:-}" ]; then mode=deb; else mode=source; fi
  fi
fi
case "$mode" in
  none)
    command -v ksnap >/dev/null || { echo "::error::install: none, and no ksnap on PATH"; exit 1; }
    if [ -n "$pin" ] && ! path_ksnap_verified; then
      echo "::error::install: the ksnap at $(command -v ksnap) does not have the SHA-256 ksnap-sha256 pins"
      exit 1
    fi
    ;;
  deb)
    [ -n "${KSNAP_DEB_URL:-}" ] || { echo "::error::install: deb needs deb-url"; exit 1; }
    [ -n "${KSNAP_DEB_SHA256:-}" ] || { echo "::error::install: deb needs deb-sha256 (the .deb's SHA-256)"; exit 1; }
    deb="$tmp/ksnap.deb"
    curl -fsSL --retry 3 -o "$deb" "$KSNAP_DEB_URL"
    got="$(sha256_of "$deb")"
    [ "$got" = "$KSNAP_DEB_SHA256" ] || { echo "::error::$KSNAP_DEB_URL has SHA-256 $got, not deb-sha256 $KSNAP_DEB_SHA256"; exit 1; }
    [ "$(dpkg-deb -f "$deb" Package)" = ksnap ] || { echo "::error::$KSNAP_DEB_URL is not the ksnap package"; exit 1; }
    if [ -n "$prefix" ]; then
      dpkg -x "$deb" "$prefix"
      echo "$prefix/usr/bin" >> "$GITHUB_PATH"
      export PATH="$prefix/usr/bin:$PATH"
    else
      as_root apt-get install -y -qq "$deb" >/dev/null
    fi
    ;;
  source)
    prefix="${prefix:-$tmp/ksnap-bin}"
    key="$(source_key)"
    if [ -x "$prefix/bin/ksnap" ] && [ "$(cat "$prefix/.source-key" 2>/dev/null)" = "$key" ] &&
       "$prefix/bin/ksnap" --version >/dev/null 2>&1; then
      echo "$prefix/bin" >> "$GITHUB_PATH"
      export PATH="$prefix/bin:$PATH"
      echo "$(ksnap --version) at $(command -v ksnap) (install: source, cached build $key)"
      exit 0
    fi
    KSNAP_BROWSER_TESTS=0 bash "$src/scripts/install-deps.sh" --build
    launcher=()
    if command -v ccache >/dev/null 2>&1; then
      launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
    fi
    cmake -S "$src" -B "$tmp/ksnap-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DKSNAP_BUILD_TESTS=OFF -DKSNAP_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
    cmake --build "$tmp/ksnap-build" >/dev/null
    cmake --install "$tmp/ksnap-build" --prefix "$prefix" >/dev/null
    echo "$key" >"$prefix/.source-key"
    echo "$prefix/bin" >> "$GITHUB_PATH"
    export PATH="$prefix/bin:$PATH"
    ;;
  *) echo "::error::install: $mode (use auto, deb, source or none)"; exit 1 ;;
esac
echo "$(ksnap --version) at $(command -v ksnap) (install: $mode)"
