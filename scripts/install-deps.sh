#!/usr/bin/env bash
# Installs what ksnap needs on Debian 12, from Debian's packages only. Safe
# to run again: it installs only what is missing.
#   install-deps.sh           everything: build, tests, packaging, browser test
#   install-deps.sh --build   only what building and running ksnap needs (the quick start)
set -euo pipefail
pkgs=(cmake ninja-build g++ pkg-config git
      nlohmann-json3-dev libcli11-dev libxxhash-dev libzstd-dev libsqlite3-dev
      python3)
if [ "${1:-}" != --build ]; then
  pkgs+=(libgtest-dev libgmock-dev libbenchmark-dev libfmt-dev
         python3-pytest python3-yaml
         clang libclang-rt-14-dev
         dpkg-dev python3-venv python3-pip python3-setuptools python3-wheel)
  if [ "${KSNAP_BROWSER_TESTS:-1}" = 1 ]; then
    pkgs+=(chromium)
  fi
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
