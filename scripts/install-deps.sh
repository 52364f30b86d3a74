#!/usr/bin/env bash
# Installs what ksnap needs to build and test on Debian 12, from Debian's
# packages only. Safe to run again: it installs only what is missing.
#   install-deps.sh             everything: build, tests, packaging, browser test
#   install-deps.sh --build     only what building and running ksnap needs (the quick start)
#   install-deps.sh --package   --build plus dpkg-dev: what `cpack -G DEB` needs
# Not root: apt-get runs under sudo (sudo -n without a terminal, so CI fails
# with a message instead of waiting for a password).
set -euo pipefail
pkgs=(cmake ninja-build g++ pkg-config git
      libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev libfmt-dev
      libxxhash-dev libzstd-dev libsqlite3-dev libjemalloc-dev
      python3 python3-pytest cmark-gfm
      clang libclang-rt-14-dev)
if [ "${KSNAP_BROWSER_TESTS:-1}" = 1 ]; then
  pkgs+=(chromium)
  command -v node >/dev/null 2>&1 || pkgs+=(nodejs npm)
fi
# Install, package and workflow tests: the .deb (dpkg-dev for its Depends),
# pip into a venv, the workflow step runner (yaml), the YAML lint (npm).
pkgs+=(dpkg-dev python3-venv python3-pip python3-setuptools python3-wheel python3-yaml)
# The manifest schema check of the plugin's tests (python/tests/test_manifest_schema.py).
pkgs+=(python3-jsonschema)
# The CMake 3.22 check (tests/cmake/min_version.sh) downloads Ubuntu's cmake.
pkgs+=(curl ca-certificates)
command -v npm >/dev/null 2>&1 || pkgs+=(nodejs npm)
case "${1:-}" in
  "") ;;
  --build | --package)
    pkgs=(cmake ninja-build g++ pkg-config git
          nlohmann-json3-dev libcli11-dev libxxhash-dev libzstd-dev libsqlite3-dev libjemalloc-dev
          python3)
    if [ "$1" = --package ]; then pkgs+=(dpkg-dev file); fi
    ;;
  *) echo "install-deps: unknown option $1 (use --build, --package or nothing)" >&2; exit 2 ;;
esac
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 ||
      { echo "install-deps: not root and no sudo: install ${missing[*]} as root" >&2; exit 1; }
    sudo=(sudo)
    [ -t 0 ] || sudo=(sudo -n)
    "${sudo[@]}" true 2>/dev/null ||
      { echo "install-deps: sudo -n needs a password here: run as root, or install ${missing[*]}" >&2; exit 1; }
  fi
  echo "install-deps: installing ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
