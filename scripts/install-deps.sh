#!/usr/bin/env bash
# Installs what ksnap needs to build and test on Debian 12, from Debian's
# packages only. Safe to run again: it installs only what is missing.
set -euo pipefail
pkgs=(cmake ninja-build g++ pkg-config git
      libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev libfmt-dev
      libxxhash-dev libzstd-dev libsqlite3-dev
      python3 python3-pytest cmark-gfm
      clang libclang-rt-14-dev)
if [ "${KSNAP_BROWSER_TESTS:-1}" = 1 ]; then
  pkgs+=(chromium)
  command -v node >/dev/null 2>&1 || pkgs+=(nodejs npm)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
