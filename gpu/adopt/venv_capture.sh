#!/usr/bin/env bash
# The GPU check of issue 10: install the capture plugin from the source tree
# with pip into a fresh venv (offline), then capture one real Triton kernel
# with the installed plugin, from a folder outside the source tree.
#
#   bash gpu/adopt/venv_capture.sh [OUTDIR]      # from the repository root
#
# The interpreter that has Triton and PyTorch is $KSNAP_GPU_PYTHON, else
# python3. The venv is made with --system-site-packages so that it sees that
# Triton and torch; the plugin itself must come from the venv, which the
# script checks. Prints, on success:
#   venv_capture: triton 3.6.x, torch 2.x, <GPU name>
#   venv_capture: installed ksnap-triton 0.1.0 into <venv>
#   venv_capture: ksnap_triton imported from <venv>/lib/python3.X/site-packages/ksnap_triton
#   ksnap_triton: 1 variants of 1 kernels (1 launched) in <tmp>/cap/manifest.json
#   venv_capture: add_kernel BLOCK_SIZE=1024: stages ... ttir ttgir llir ptx cubin ..., launched, n_regs=...
#   venv_capture: OK
# and leaves OUTDIR/venv_capture.tar.gz (the capture) and OUTDIR/venv_capture.log.
set -euo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-${OUT:-$src/out}}"
mkdir -p "$out"
exec > >(tee "$out/venv_capture.log") 2>&1
py="${KSNAP_GPU_PYTHON:-python3}"
work="$(mktemp -d /tmp/ksnap-venv-XXXXXX)"
trap 'rm -rf "$work"' EXIT
say() { echo "venv_capture: $*"; }
die() { say "FAIL: $*"; exit 1; }

"$py" - <<'PY' || die "$py cannot import triton and torch with a GPU"
import torch, triton
print(f"venv_capture: triton {triton.__version__}, torch {torch.__version__}, "
      f"{torch.cuda.get_device_name() if torch.cuda.is_available() else 'NO GPU'}")
assert torch.cuda.is_available()
PY

# A copy of python/: pip builds in the source folder (build/, *.egg-info),
# which must not land in the repository.
cp -r "$src/python" "$work/src"
rm -rf "$work/src/tests" "$work/src/bench"
venv_py="$work/venv/bin/python"
pip=("$venv_py" -m pip)
if ! "$py" -m venv --system-site-packages "$work/venv" 2>"$work/venv.err"; then
  # No ensurepip for this interpreter: a venv without pip, filled by the outer pip.
  "$py" -m venv --system-site-packages --without-pip "$work/venv" || { cat "$work/venv.err"; die "cannot make a venv"; }
  pip=("$py" -m pip --python "$venv_py")
fi
# When $py is itself a venv, --system-site-packages shows its base, not its
# packages: then a .pth adds $py's site folders after the venv's own.
if ! "$venv_py" -c 'import triton, torch' 2>/dev/null; then
  site="$("$venv_py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  "$py" -c 'import site; print("\n".join(site.getsitepackages()))' > "$site/_outer_site.pth"
  "$venv_py" -c 'import triton, torch' || die "the venv cannot import $py's triton and torch"
  say "the venv sees $py's packages through $site/_outer_site.pth"
fi
"${pip[@]}" install --no-build-isolation --no-index --no-deps -q "$work/src" ||
  die "pip install --no-build-isolation failed (does $py have setuptools >= 61 and wheel?)"
say "installed $("${pip[@]}" show ksnap-triton | sed -n 's/^Name: //p;s/^Version: //p' | paste -sd' ') into $work/venv"

mkdir -p "$work/elsewhere"
cd "$work/elsewhere"   # nothing of the source tree on sys.path
where="$(PYTHONPATH= "$venv_py" -c 'import ksnap_triton, os; print(os.path.dirname(ksnap_triton.__file__))')"
say "ksnap_triton imported from $where"
case "$where" in "$work/venv/"*) ;; *) die "the plugin was not imported from the venv" ;; esac

cat > "$work/elsewhere/one_kernel.py" <<'PY'
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


x = torch.rand(98432, device="cuda")
y = torch.rand(98432, device="cuda")
out = torch.empty_like(x)
add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK_SIZE=1024)
torch.testing.assert_close(out, x + y)
print("one_kernel: result ok")
PY
PYTHONPATH= "$venv_py" -m ksnap_triton capture -o "$work/cap" -- "$venv_py" one_kernel.py ||
  die "capture failed"

"$venv_py" - "$work/cap" <<'PY' || die "the capture is incomplete"
import json, os, sys
root = sys.argv[1]
m = json.load(open(os.path.join(root, "manifest.json")))
entries = [e for e in m["entries"] if e["kernel"] == "add_kernel"]
assert len(entries) == 1, f"{len(entries)} add_kernel entries"
e = entries[0]
files = sorted(os.listdir(os.path.join(root, "cache", e["cache_dir"])))
stages = sorted({f.rsplit(".", 1)[-1] for f in files if "." in f})
for s in ("ttir", "ttgir", "llir", "ptx", "cubin"):
    assert s in stages, f"no {s} file in {files}"
assert e.get("launched"), "not marked launched"
print(f"venv_capture: add_kernel BLOCK_SIZE={e['constexprs']['BLOCK_SIZE']}: stages "
      f"{' '.join(stages)}, launched, n_regs={e.get('n_regs')}, triton {m.get('triton_version')}")
PY
tar -C "$work" -czf "$out/venv_capture.tar.gz" cap
say "OK"
