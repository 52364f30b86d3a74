// libFuzzer target for the binary reader (binary/): ELF64 section table,
// symbols and notes, a cubin's .nv.info attributes, an hsaco's AMDGPU
// metadata note (msgpack), and occupancy over whatever figures come out.
// Seeds: small real cubins and hsaco files (fuzz/corpus/binary_fuzz). The
// first input byte picks the kernel name the readers look for. Checks: no
// crash, no sanitizer report; every error names the file; the msgpack reader
// alone on the input never crashes either.
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "ksnap/binary/msgpack.h"
#include "ksnap/binary/occupancy.h"
#include "ksnap/binary/resources.h"

using ksnap::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ksnap;
  if (size == 0) return 0;
  static const char* const kKernels[] = {"saxpy", "block_sum", "clamp_scale", "matmul_kernel",
                                         "softmax_kernel", "attn_fwd", "layer_norm_fwd", "add_kernel"};
  const char* kernel = kKernels[data[0] % (sizeof kKernels / sizeof kKernels[0])];
  std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto r = binary::read_kernel_resources(bytes, kernel, "fuzz.bin");
  if (!r) {
    check(r.status().location().file == "fuzz.bin");
  } else {
    for (const char* t : {"sm_80", "sm_90", "gfx942"})
      for (int64_t threads : {1, 128, 1024})
        (void)binary::occupancy(*r, *binary::target_limits(t), threads, data[0] * 1024);
  }
  (void)binary::msgpack::parse(bytes);
  return 0;
}
