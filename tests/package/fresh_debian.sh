#!/usr/bin/env bash
# The first hour of a new user, in a fresh Debian 12 root (debootstrap, as a
# container would be) whose first python3 on PATH is a pyenv Python, not
# Debian's: the README's install path (install-deps --package, build.sh,
# cpack, apt-get install of the .deb), the plugin's wheel into that Python
# offline, `ksnap capture` + `ksnap diff` with that Python, and the C++17
# consumer of the installed package (find_package + ksnap::tune) built and
# run. Prints each step and exits non-zero at the first that fails.
#
#   sudo bash tests/package/fresh_debian.sh [ROOT] [PYENV_VERSION]
#
# ROOT (default /var/tmp/ksnap-fresh-debian) is made with `debootstrap
# --variant=minbase bookworm` when it has no /etc/debian_version; the pyenv
# tree is copied from $PYENV_ROOT (default ~/.pyenv) with only
# versions/PYENV_VERSION (default: the oldest 3.x >= 3.9 there). Needs root
# (chroot, mount) and Debian's mirror. Triton is not installable here, so the
# captured program runs on python/tests/fake_triton (the plugin's own test
# double); what is shown is that the wheel and the CLI work from that Python.
# With KSNAP_FRESH_CCACHE=DIR the build in the root uses that ccache folder
# (same compiler output, faster); by default it builds from nothing.
# Not part of scripts/test.sh (it takes ~15 minutes and needs root and the
# mirror); its last log is docs/first-hour-fresh-debian.log.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
root=${1:-/var/tmp/ksnap-fresh-debian}
pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
ver=${2:-}
if [ -z "$ver" ]; then
  ver=$(ls "$pyenv_root/versions" | grep -E '^3\.(9|1[0-9])\.[0-9]+$' | sort -V | head -1)
fi
[ -x "$pyenv_root/versions/$ver/bin/python3" ] ||
  { echo "fresh_debian: no pyenv Python $ver under $pyenv_root" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "fresh_debian: run as root (chroot, mount)" >&2; exit 2; }
step() { printf '\n==> %s\n' "$*"; }

if [ ! -f "$root/etc/debian_version" ]; then
  step "debootstrap bookworm into $root"
  command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
  debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >/dev/null
fi
cat "$root/etc/debian_version"

step "the repository at HEAD ($(git -C "$repo" rev-parse --short HEAD)) into $root/work/ksnap"
rm -rf "$root/work/ksnap"
mkdir -p "$root/work/ksnap"
git -C "$repo" archive HEAD | tar -x -C "$root/work/ksnap"

step "pyenv with Python $ver into $root/root/.pyenv"
rm -rf "$root/root/.pyenv"
mkdir -p "$root/root/.pyenv/versions"
cp -a "$pyenv_root/bin" "$pyenv_root/libexec" "$root/root/.pyenv/"
[ -d "$pyenv_root/plugins" ] && cp -a "$pyenv_root/plugins" "$root/root/.pyenv/"
cp -a "$pyenv_root/versions/$ver" "$root/root/.pyenv/versions/"
# The wheel goes into a Python that has never seen ksnap_triton.
rm -rf "$root/root/.pyenv/versions/$ver/lib/python"*/site-packages/ksnap_triton*

mounts=(proc sys dev dev/pts)
cleanup() {
  for m in $(printf '%s\n' "${mounts[@]}" | tac); do umount -l "$root/$m" 2>/dev/null || true; done
  [ -n "${KSNAP_FRESH_CCACHE:-}" ] && umount -l "$root/root/.cache/ccache" 2>/dev/null || true
}
trap cleanup EXIT
for m in "${mounts[@]}"; do mkdir -p "$root/$m"; mount --bind "/$m" "$root/$m"; done
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
if [ -n "${KSNAP_FRESH_CCACHE:-}" ]; then
  mkdir -p "$root/root/.cache/ccache"
  mount --bind "$KSNAP_FRESH_CCACHE" "$root/root/.cache/ccache"
fi

in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PYENV_ROOT=/root/.pyenv PYENV_VERSION="$ver" \
    PATH="/root/.pyenv/shims:/root/.pyenv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    CCACHE_BASEDIR=/work KSNAP_FRESH_CCACHE="${KSNAP_FRESH_CCACHE:-}" /bin/bash -c "$1"
}

step "the pyenv Python is the first python3 on PATH"
in_root 'eval "$(pyenv init -)"; pyenv rehash; command -v python3; python3 --version;
         python3 -c "import sys; print(sys.prefix)"'

step "the README's install path: install-deps.sh --package, build.sh, cpack, apt-get install ./ksnap.deb"
in_root 'set -e; apt-get update -qq; cd /work/ksnap
         [ -n "$KSNAP_FRESH_CCACHE" ] && apt-get install -y -qq ccache >/dev/null
         t0=$(date +%s)
         bash scripts/install-deps.sh --package
         echo "deps: $(( $(date +%s) - t0 )) s"; t0=$(date +%s)
         bash scripts/build.sh
         echo "build: $(( $(date +%s) - t0 )) s"
         (cd build && cpack -G DEB >/dev/null)
         apt-get install -y -qq ./build/ksnap_*_amd64.deb >/dev/null
         command -v ksnap; ksnap --version; man -w ksnap 2>/dev/null || ls /usr/share/man/man1/ksnap.1*
         ls /usr/share/ksnap/wheels/'

step "the wheel into the pyenv Python, offline"
in_root 'set -e; eval "$(pyenv init -)"
         python3 -m pip install --no-index --no-cache-dir /usr/share/ksnap/wheels/ksnap_triton-*.whl
         cd / && python3 -c "import ksnap_triton, sys; print(ksnap_triton.__file__); print(sys.executable)"
         python3 -m ksnap_triton --help | head -3'

step "ksnap capture with the pyenv Python (Triton stand-in: python/tests/fake_triton), twice, then ksnap diff"
in_root 'set -e; eval "$(pyenv init -)"; cd /tmp; rm -rf fresh && mkdir fresh && cd fresh
         cp /work/ksnap/python/tests/kernels_for_tests.py .
         printf "%s\n" "import sys, kernels_for_tests as k" \
           "blk = int(sys.argv[1])" \
           "k.add_kernel[(4,)](object(), object(), 1024, BLOCK=blk)" > bench.py
         export PYTHONPATH=/work/ksnap/python/tests/fake_triton:/tmp/fresh
         ksnap capture -o base -- python3 bench.py 256
         ksnap capture -o head -- python3 bench.py 256
         ksnap diff base head; echo "diff exit $?"
         head -c 300 base/manifest.json; echo'

step "the C++17 consumer of the installed package: examples/tune-cpu with find_package(ksnap COMPONENTS tune)"
in_root 'set -e; rm -rf /tmp/consumer && cp -r /work/ksnap/examples/tune-cpu /tmp/consumer && cd /tmp/consumer
         cmake -S . -B b -G Ninja -DCMAKE_CXX_STANDARD=17 >/dev/null && cmake --build b >/dev/null
         ls b; for x in b/*; do [ -x "$x" ] && [ -f "$x" ] && "$x"; done; echo "consumer exit $?"'

step "done: a fresh Debian 12 with pyenv Python $ver first on PATH installed, captured, diffed and linked ksnap"
