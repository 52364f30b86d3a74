"""The "kernel suite" of the simulated repositories in test_actions.py.

Stands in for a Triton program under `ksnap capture`: each run writes the
per-process shard and Triton cache folders the capture plugin would, copied
from one build of a real capture (examples/corpus or ../shared/corpus), so the
IR that flows through the workflows is real compiler output.
bench/variant.txt names the build: base, noise, no_licm, fusion_off; or
"broken", which makes the suite crash as a broken PR would.
"""

import json
import os
import shutil
import socket
import sys

CORPUS = "@CORPUS@"


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "variant.txt"), encoding="utf-8") as f:
        variant = f.read().strip()
    if variant == "broken":
        raise RuntimeError("bench/run_suite.py: this PR broke the suite")
    out = os.environ["KSNAP_CAPTURE_DIR"]  # set by ksnap capture, like the plugin reads it
    cache = os.environ["TRITON_CACHE_DIR"]
    src = os.path.join(CORPUS, variant)
    with open(os.path.join(src, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    for e in manifest["entries"]:
        shutil.copytree(os.path.join(src, "cache", e["cache_dir"]),
                        os.path.join(cache, e["cache_dir"]), dirs_exist_ok=True)
    os.makedirs(os.path.join(out, "manifest.d"), exist_ok=True)
    shard = os.path.join(out, "manifest.d", f"{socket.gethostname()}-{os.getpid()}.json")
    with open(shard, "w", encoding="utf-8") as f:
        json.dump(manifest, f)
    print(f"suite: {len(manifest['entries'])} kernel variants ({variant})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
