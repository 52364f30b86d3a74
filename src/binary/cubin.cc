// NVIDIA cubin resources: the `.nv.info` attribute lists and the kernel's
// sections.
//
// An attribute list is a sequence of entries, each a format byte, an
// attribute byte and a 16-bit little-endian field: for EIFMT_SVAL (4) the
// field is the size of the data that follows; for EIFMT_NVAL (1), EIFMT_BVAL
// (2) and EIFMT_HVAL (3) it is the value itself and nothing follows. In the
// global `.nv.info` the per-kernel figures are SVAL pairs (symbol index,
// value); in `.nv.info.<kernel>` they belong to that kernel. Learned from the
// cuobjdump -elf dumps of the cubins in tests/fixtures/sass and public notes
// on the cubin format; checked against cuobjdump -res-usage
// (tests/fixtures/sass/*.res-usage.txt) and the H200's launch figures.
#include <array>

#include "ksnap/binary/resources.h"

namespace ksnap::binary {
namespace {

constexpr uint8_t kFmtNval = 1, kFmtBval = 2, kFmtHval = 3, kFmtSval = 4;

constexpr uint8_t kAttrMaxThreads = 0x05;
constexpr uint8_t kAttrReqntid = 0x10;
constexpr uint8_t kAttrFrameSize = 0x11;
constexpr uint8_t kAttrMinStackSize = 0x12;
constexpr uint8_t kAttrMaxRegCount = 0x1b;
constexpr uint8_t kAttrCrsStackSize = 0x1e;
constexpr uint8_t kAttrMaxStackSize = 0x23;
constexpr uint8_t kAttrRegcount = 0x2f;

struct Attribute {
  uint8_t format = 0;
  uint8_t attr = 0;
  uint16_t value = 0;     ///< The 16-bit field (the size, for SVAL).
  std::string_view data;  ///< SVAL data.
  uint64_t offset = 0;    ///< In the file, for messages.
};

Expected<std::vector<Attribute>> attributes(const Elf& elf, const Section& s) {
  std::vector<Attribute> out;
  std::string_view d = elf.data(s);
  uint64_t at = 0;
  while (at < d.size()) {
    Attribute a;
    a.offset = s.offset + at;
    if (!read_u8(d, at, &a.format) || !read_u8(d, at + 1, &a.attr) ||
        !read_u16(d, at + 2, &a.value))
      return elf.error(a.offset, s.name + ": attribute header truncated");
    at += 4;
    if (a.format == kFmtSval) {
      if (!in_bounds(d.size(), at, a.value))
        return elf.error(a.offset, s.name + ": attribute of " + std::to_string(a.value) +
                                       " bytes runs past the end of the section");
      a.data = d.substr(at, a.value);
      at += a.value;
    } else if (a.format != kFmtNval && a.format != kFmtBval && a.format != kFmtHval) {
      return elf.error(a.offset, s.name + ": unknown attribute format " + std::to_string(a.format));
    }
    out.push_back(a);
  }
  return out;
}

/// The sm number from e_flags: the cubin ELF of OS/ABI 0x41 (CUDA 11-12
/// nvcc) holds it in bits 8-15, that of OS/ABI 0x33 (ptxas of Triton 3.x
/// builds) in bits 0-7.
std::string cuda_target(const Elf& elf) {
  uint32_t sm = 0;
  if (elf.os_abi() == 0x41)
    sm = (elf.flags() >> 8) & 0xff;
  else if (elf.os_abi() == 0x33)
    sm = elf.flags() & 0xff;
  return sm ? "sm_" + std::to_string(sm) : "";
}

}  // namespace

Expected<KernelResources> read_cubin(const Elf& elf, std::string_view kernel) {
  KernelResources r;
  r.vendor = Vendor::kNvidia;
  r.target = cuda_target(elf);
  const std::string k(kernel);
  const Section* text = elf.find(".text." + k);
  if (!text)
    return make_error(ErrorCode::kNotFound, "no section .text." + k + " (kernel not in this cubin)",
                      SourceLocation{elf.path(), 0, 0});
  // The kernel's symbol: the global .nv.info names kernels by symbol index.
  KSNAP_ASSIGN_OR_RETURN(std::vector<Symbol> syms, elf.symbols());
  int64_t sym = -1;
  for (size_t i = 0; i < syms.size(); ++i)
    if (syms[i].name == k && syms[i].shndx == text->index) sym = static_cast<int64_t>(i);

  if (const Section* info = elf.find(".nv.info")) {
    KSNAP_ASSIGN_OR_RETURN(auto attrs, attributes(elf, *info));
    for (const Attribute& a : attrs) {
      const char* name = a.attr == kAttrRegcount       ? "regs"
                         : a.attr == kAttrFrameSize    ? "local_bytes"
                         : a.attr == kAttrMinStackSize ? "stack_min_bytes"
                         : a.attr == kAttrMaxStackSize ? "stack_max_bytes"
                                                       : nullptr;
      if (!name || a.format != kFmtSval) continue;
      uint32_t of = 0, value = 0;
      if (a.data.size() != 8 || !read_u32(a.data, 0, &of) || !read_u32(a.data, 4, &value))
        return elf.error(a.offset,
                         ".nv.info: " + std::string(name) + " is not a (symbol, value) pair");
      if (static_cast<int64_t>(of) == sym) r.figures[name] = value;
    }
  }
  if (const Section* info = elf.find(".nv.info." + k)) {
    KSNAP_ASSIGN_OR_RETURN(auto attrs, attributes(elf, *info));
    for (const Attribute& a : attrs) {
      if (a.attr == kAttrMaxRegCount && a.format == kFmtHval) r.figures["max_reg_count"] = a.value;
      if (a.attr == kAttrCrsStackSize && a.format == kFmtSval) {
        uint32_t v = 0;
        if (!read_u32(a.data, 0, &v))
          return elf.error(a.offset, info->name + ": CRS stack size truncated");
        r.figures["crs_stack_bytes"] = v;
      }
      if ((a.attr == kAttrMaxThreads || a.attr == kAttrReqntid) && a.format == kFmtSval) {
        std::array<uint32_t, 3> xyz{};
        for (size_t i = 0; i < 3; ++i)
          if (!read_u32(a.data, 4 * i, &xyz[i]))
            return elf.error(a.offset, info->name + ": thread-count attribute truncated");
        // Each dimension is a u32, so the product can pass int64's range: a
        // hostile cubin gets an error, not an overflow.
        int64_t threads = 0;
        if (__builtin_mul_overflow(int64_t{xyz[0]}, int64_t{xyz[1]}, &threads) ||
            __builtin_mul_overflow(threads, int64_t{xyz[2]}, &threads) ||
            !figure_in_range(threads))
          return elf.error(a.offset, info->name + ": thread count " + std::to_string(xyz[0]) +
                                         "x" + std::to_string(xyz[1]) + "x" +
                                         std::to_string(xyz[2]) + " is out of range");
        r.figures[a.attr == kAttrMaxThreads ? "max_threads" : "reqntid"] = threads;
      }
    }
  }
  // Older cubins also keep the register count in the high byte of the code
  // section's sh_info; it stands in when EIATTR_REGCOUNT is missing.
  if (!r.figures.count("regs") && (text->info >> 24) != 0) r.figures["regs"] = text->info >> 24;
  const Section* shared = elf.find(".nv.shared." + k);
  r.figures["shared_static_bytes"] = shared ? static_cast<int64_t>(shared->size) : 0;

  if (auto it = r.figures.find("regs"); it != r.figures.end()) r.n_regs = it->second;
  if (auto it = r.figures.find("local_bytes"); it != r.figures.end()) r.n_spills = it->second / 4;
  return r;
}

}  // namespace ksnap::binary
