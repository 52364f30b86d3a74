"""Makes a copy of a capture in which one variant is compiled with another option.

    change_one_option.py CAPTURE OUT KERNEL OPTION VALUE_JSON

Copies CAPTURE's manifest.json and cache folders into OUT (copies, not
links: recompile refuses paths that resolve outside the capture), and in the
first entry of KERNEL sets
``recompile.options[OPTION] = VALUE`` - what the capture would have recorded
had that variant been compiled with it (a knob or environment setting, not a
JIT key option: the variant keeps its identity). Prints the changed variant.
"""

import json
import os
import shutil
import sys


def main() -> None:
    cap, out, kernel, option, value = sys.argv[1:6]
    m = json.load(open(os.path.join(cap, "manifest.json")))
    os.makedirs(out, exist_ok=True)
    if not os.path.exists(os.path.join(out, "cache")):
        shutil.copytree(os.path.join(cap, "cache"), os.path.join(out, "cache"),
                        ignore=shutil.ignore_patterns("*.so"))
    e = next(e for e in m["entries"] if e["kernel"] == kernel)
    e["recompile"]["options"][option] = json.loads(value)
    json.dump(m, open(os.path.join(out, "manifest.json"), "w"), indent=1)
    print(f"changed {kernel} {e['constexprs']} {e['options']}: {option}={value}")


if __name__ == "__main__":
    main()
