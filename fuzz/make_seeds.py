#!/usr/bin/python3
"""Writes the committed seed corpora fuzz/corpus/<target>/ (docs/fuzzing.md).

Seeds are small: real IR from examples/corpus (Triton 3.6 output, cut to a
few KiB) and real-format JSON/CSV written here. Run from the repository
root; the output is deterministic.

    /usr/bin/python3 fuzz/make_seeds.py
"""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EX = os.path.join(ROOT, "examples", "corpus")
OUT = os.path.join(ROOT, "fuzz", "corpus")
DIALECT = {"ttir": 0, "ttgir": 0, "llir": 1, "ptx": 2}


def ir(build, kernel_index, stage, limit):
    m = json.load(open(os.path.join(EX, build, "manifest.json")))
    e = m["entries"][kernel_index]
    path = os.path.join(EX, build, "cache", e["cache_dir"], f"{e['kernel']}.{stage}")
    data = open(path, "rb").read()
    if len(data) > limit:  # cut at a line end
        data = data[:data.rfind(b"\n", 0, limit) + 1]
    return data


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def main():
    # Keep regression inputs (crashes found and fixed: regress_*) and files
    # ksnap itself wrote (ksnap_*, see the end), rewrite the rest.
    for d, _, files in os.walk(OUT):
        for f in files:
            if not f.startswith(("regress_", "ksnap_")):
                os.unlink(os.path.join(d, f))
    # Single-file IR targets: dialect byte + text.
    for i, (stage, k) in enumerate([("ttir", 0), ("ttgir", 2), ("llir", 0), ("ptx", 0), ("llir", 4)]):
        text = ir("base", k, stage, 6000)
        put("lexer_fuzz", f"{stage}_{i}", bytes([DIALECT[stage]]) + text)
        put("normalize_fuzz", f"{stage}_{i}", bytes([DIALECT[stage]]) + text)
    # Two-file diff: dialect byte + BASE \0 HEAD, real pass changes (no_licm)
    # and compiler noise (noise), cut to 8 KiB per side.
    for name, head, k, stage in [("softmax_ttgir_licm", "no_licm", 2, "ttgir"),
                                 ("softmax_llir_licm", "no_licm", 2, "llir"),
                                 ("layer_norm_ptx_licm", "no_licm", 4, "ptx"),
                                 ("add_ttir_noise", "noise", 0, "ttir")]:
        pair = ir("base", k, stage, 8192) + b"\0" + ir(head, k, stage, 8192)
        put("structural_diff_fuzz", name, bytes([DIALECT[stage]]) + pair)
    # Pass-dump streams (BASE \0 HEAD) as Triton prints them with
    # MLIR_ENABLE_DUMP=1 / LLVM_IR_ENABLE_DUMP=1: MLIR Before dumps of real
    # TTIR/TTGIR, LLVM function dumps, machine-code dumps; HEAD's LICM output
    # differs (no_licm), or one pass is missing.
    def before(p, a, text):
        return (f"// -----// IR Dump Before {p} ({a}) ('builtin.module' operation) //----- //\n"
                .encode() + text + b"\n")

    def stream(head_build, drop=False):
        ttir, pre = ir("base", 2, "ttir", 2500), ir("no_licm", 2, "ttgir", 2500)
        post = ir(head_build, 2, "ttgir", 2500)
        llir = ir("base", 2, "llir", 2000)
        s = before("Inliner", "inline", ttir) + before("ConvertTritonToTritonGPU",
                                                         "convert-triton-to-tritongpu", pre)
        if not drop:
            s += before("TritonLICM", "triton-licm", pre)
        s += before("Canonicalizer", "canonicalize", post)
        s += b"; *** IR Dump Before TritonLLVMOptimizeModule (triton-llvm-optimize-module) ***\n" + llir
        s += b"; *** IR Dump After InstCombinePass on softmax_kernel ***\n" + llir
        s += (b"# *** IR Dump After NVPTX DAG->DAG Pattern Instruction Selection (nvptx-isel) ***:\n"
              b"# Machine code for function softmax_kernel: IsSSA, TracksLiveness\n"
              b"bb.0 (%ir-block.1):\n  %1:float32regs = LD_f32 0, 0, 1, 3, 32, %0:int64regs, 0\n"
              b"  Return\n# End machine code for function softmax_kernel.\n")
        return s

    put("pass_dump_fuzz", "softmax_licm", stream("base") + b"\0" + stream("no_licm"))
    put("pass_dump_fuzz", "softmax_dropped_pass", stream("base") + b"\0" + stream("base", True))
    put("pass_dump_fuzz", "headers", b"\0".join([
        b"*** IR Dump After Expand Atomic instructions (atomic-expand) *** (function: k)\nx\n"
        b"; *** IR Dump After LoopRotatePass on loop %12 in function k ***\ny\n"
        b"// -----// IR Dump After TritonGPUPipeline Failed (tritongpu-pipeline) ('tt.func' "
        b"operation: @k) //----- //\nz\n",
        b"; *** IR Dump After SimplifyCFGPass on k omitted because no change ***\n"
        b"*** IR Dump At Start ***\nw\n"]))
    add = ("module {\n  tt.func public @add(%x: !tt.ptr<f32>, %n: i32) {\n"
           "    %c = arith.constant 256 : i32\n    %p = tt.get_program_id x : i32\n"
           "    %s = arith.muli %p, %c : i32\n    tt.return\n  }\n}\n")
    hoisted = add.replace("    %c = arith.constant 256 : i32\n", "").replace(
        "    %p = tt", "    %c = arith.constant 256 : i32\n    %p = tt")
    put("structural_diff_fuzz", "tiny_move", b"\0" + add.encode() + b"\0" + hoisted.encode())

    meta = open(os.path.join(EX, "base", "cache", json.load(open(os.path.join(
        EX, "base", "manifest.json")))["entries"][0]["cache_dir"], "add_kernel.json")).read()
    entry = {"kernel": "k", "key": "[('*fp32', 'D'), ('i32', 'D')]{'num_warps': 4}",
             "constexprs": {"BLOCK": 256, "FLAG": True, "MODE": "ieee", "T": [1, [2, 3]]},
             "options": {"num_warps": 4}, "cache_dir": "ABC", "n_regs": 16, "shared": 0,
             "qualname": "m.k", "source_file": "k.py", "source_line": 7,
             "benchmark": {"script": "bench.py", "points": [{"M": 16}, "N=2"]}}
    manifest = {"format": "ksnap-capture", "format_version": 1, "build": "b",
                "triton_version": "3.6.0", "arch": "sm90", "entries": [entry]}
    staged = dict(entry, stages={"ttir": "cache/ABC/k.ttir", "ttgir": "cache/ALIAS/k.ttgir",
                                 "cubin": "cache/ABC/k.cubin"})
    ttgir = ir("base", 0, "ttgir", 3000)
    put("capture_fuzz", "found_by_kernel", json.dumps(manifest, indent=1) + "\0" + meta)
    put("capture_fuzz", "stage_paths",
        json.dumps(dict(manifest, entries=[staged]), indent=1).encode() + b"\0" + meta.encode()
        + b"\0" + ttgir)
    put("capture_fuzz", "old_format_nulls",
        json.dumps({"build": "base", "entries": [dict(entry, key=None, qualname=None,
                                                      source_line=None, n_regs=None)]}) + "\0")
    put("capture_fuzz", "link_out",
        json.dumps(dict(manifest, entries=[dict(entry, stages={"ttir": "cache/ABC/out.ttir"})])))

    put("manifest_fuzz", "plugin_entry", json.dumps(dict(manifest, entries=[staged]), indent=1))
    put("manifest_fuzz", "corpus_layout",
        open(os.path.join(EX, "base", "manifest.json")).read())
    put("manifest_fuzz", "shard",
        json.dumps(dict(manifest, format="ksnap-capture-shard",
                        shard={"host": "h", "pid": 1}, entries=[entry, staged])))
    put("json_fuzz", "manifest", json.dumps(manifest, indent=1))
    put("json_fuzz", "metadata", meta)
    put("json_fuzz", "escapes", '{"a\\u0041": ["\\ud83d\\ude00", "\\n\\t", -0.0, 1e308, '
                                '18446744073709551615, -9223372036854775808], "a": null}')
    put("json_fuzz", "nested", "[" * 99 + "{}" + "]" * 99)

    samples = {"device": "NVIDIA H200", "configs": [[128, 256, 64, 8, 3, 8], [64, 128, 32, 8, 4, 4]],
               "shapes": [{"shape": [512, 512, 512], "autotune_first_call_s": 0.85,
                           "autotune_choice": [1],
                           "samples_us": [[31.1, 30.9, 31.0, 30.8], [30.2, 30.4, 30.1]]},
                          {"shape": [4096, 4096, 4096],
                           "samples_us": [[267.7, 268.4], [265.9, 266.1]]}]}
    put("samples_fuzz", "h200_like", json.dumps(samples))
    put("samples_fuzz", "minimal", '{"shapes": [{"samples_us": [[1]]}]}')

    put("bench_fuzz", "perf_report", b"\1" + open(os.path.join(
        ROOT, "tests", "perf", "data", "matmul-performance-fp16.csv"), "rb").read())
    put("bench_fuzz", "sample_csv", b"\2" + b"name,params,samples,mean,std,n,unit,script\n"
        b"mm,M=512;N=512,31.1 30.9 31.0,,,,us,bench.py\nmm,M=1024,,40.5,1.5,10,us,\n")
    put("bench_fuzz", "sample_json", b"\3" + json.dumps(
        {"name": "mm", "params": {"M": 512, "fast": True}, "samples": [1.5, 2], "unit": "us"}
        ).encode() + b"\n" + json.dumps({"name": "mm", "M": 64, "samples": "1 2 3"}).encode())
    put("bench_fuzz", "auto_csv", b"\0" + b"# comment\nsize,Torch (GB/s),Torch-min,Torch-max\n"
        b"4096.000000,11.65,11.1,12.0\n65536.000000,152.86,150,155\n")

    device = {"backend": "cuda", "name": "NVIDIA H200", "uuid": "GPU-1234", "cc": [9, 0],
              "sm_count": 132, "driver": 13000, "cuda": 13000, "library": "ksnap-tune 0.1.0"}
    cache = {"format": "ksnap-tune-cache", "version": 1, "entries": [
        {"group": "3f9c0a11d2e4b5c6", "group_name": "matmul", "workload": "4096x4096x4096",
         "choice": 2, "choice_name": "BM128_BN128_BK32", "choice_hash": "a1b2c3d4e5f60718",
         "decision": "tied", "median_us": [267.7, 268.4, 265.9], "device": device},
        {"group": "ff", "workload": "7", "choice": 0, "choice_hash": "0", "decision": "winner",
         "device": dict(device, backend="cpu", cc=[0, 0])}]}
    put("tune_cache_fuzz", "two_entries", json.dumps(cache, indent=1))

    record = {"kernel": "matmul_kernel", "qualname": "m.matmul_kernel", "key": "[]{}",
              "signature": "[]", "constexprs": {"BLOCK": "128"}, "options": {"num_warps": "8"},
              "constexprs_known": True, "compile_options": {"num_stages": "3"},
              "cache_dir": "ABC", "resources": {"n_regs": 128}, "source_file": "m.py",
              "source_line": 12, "benchmark_script": "bench.py", "benchmark_points": ["mm[M=1]"],
              "stages": [{"stage": "ttir", "blob": "0123456789abcdef0123456789abcdef",
                          "path": "cache/ABC/matmul_kernel.ttir"}]}
    put("store_record_fuzz", "record", json.dumps(record, separators=(",", ":")))


    # unstable_fuzz/ksnap_check_determinism was written by ksnap itself:
    #   ksnap check-determinism examples/corpus/base examples/corpus/no_licm -f json \
    #     -o fuzz/corpus/unstable_fuzz/ksnap_check_determinism


if __name__ == "__main__":
    main()
