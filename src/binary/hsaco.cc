// AMD hsaco resources: the code object metadata note (code object v3-v5),
// an ELF note owned by "AMDGPU" of type NT_AMDGPU_METADATA (32) whose
// descriptor is one MessagePack map; `amdhsa.kernels` lists a map per kernel
// with the keys read here (LLVM AMDGPUUsage, "Code Object V3 Metadata").
#include "ksnap/binary/msgpack.h"
#include "ksnap/binary/resources.h"

namespace ksnap::binary {
namespace {

constexpr uint32_t kNoteAmdgpuMetadata = 32;

/// "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-" -> "gfx942".
std::string amd_target(const std::string& triple) {
  size_t at = triple.rfind('-');
  std::string t = at == std::string::npos ? triple : triple.substr(at + 1);
  return t.substr(0, t.find(':'));
}

}  // namespace

Expected<KernelResources> read_hsaco(const Elf& elf, std::string_view kernel) {
  KernelResources r;
  r.vendor = Vendor::kAmd;
  for (const Section& s : elf.sections()) {
    if (s.type != kSectionNote) continue;
    KSNAP_ASSIGN_OR_RETURN(std::vector<Note> notes, elf.notes(s));
    for (const Note& n : notes) {
      if (n.name != "AMDGPU" || n.type != kNoteAmdgpuMetadata) continue;
      auto doc = msgpack::parse(n.desc);
      if (!doc)
        return make_error(ErrorCode::kParseError,
                          "AMDGPU metadata note in " + s.name + ": " + doc.status().message(),
                          SourceLocation{elf.path(), 0, 0});
      std::string triple;
      if (doc->string_at("amdhsa.target", &triple)) r.target = amd_target(triple);
      const msgpack::Value* kernels = doc->find("amdhsa.kernels");
      if (!kernels || kernels->kind != msgpack::Value::Kind::kArray) continue;
      for (const msgpack::Value& k : kernels->items) {
        std::string name;
        if (!k.string_at(".name", &name) || name != kernel) continue;
        static const std::pair<const char*, const char*> kKeys[] = {
            {".vgpr_count", "vgprs"},
            {".sgpr_count", "sgprs"},
            {".agpr_count", "agprs"},
            {".vgpr_spill_count", "vgpr_spills"},
            {".sgpr_spill_count", "sgpr_spills"},
            {".group_segment_fixed_size", "lds_bytes"},
            {".private_segment_fixed_size", "scratch_bytes"},
            {".wavefront_size", "wavefront_size"},
            {".max_flat_workgroup_size", "max_flat_workgroup_size"}};
        for (const auto& [key, figure] : kKeys) {
          int64_t v = 0;
          if (!k.integer_at(key, &v)) continue;
          if (!figure_in_range(v))
            return make_error(ErrorCode::kParseError,
                              "AMDGPU metadata of kernel " + name + ": " +
                                  figure_range_message(key, v),
                              SourceLocation{elf.path(), 0, 0});
          r.figures[figure] = v;
        }
        if (auto it = r.figures.find("vgprs"); it != r.figures.end()) r.n_regs = it->second;
        if (auto it = r.figures.find("scratch_bytes"); it != r.figures.end())
          r.n_spills = it->second / 4;
        return r;
      }
    }
  }
  return make_error(ErrorCode::kNotFound,
                    "no AMDGPU metadata for kernel " + std::string(kernel) + " in this hsaco",
                    SourceLocation{elf.path(), 0, 0});
}

Expected<KernelResources> read_kernel_resources(std::string_view bytes, std::string_view kernel,
                                                const std::string& path) {
  KSNAP_ASSIGN_OR_RETURN(Elf elf, Elf::parse(bytes, path));
  if (elf.machine() == kMachineCuda) return read_cubin(elf, kernel);
  if (elf.machine() == kMachineAmdgpu) return read_hsaco(elf, kernel);
  return make_error(ErrorCode::kUnsupported,
                    "ELF machine " + std::to_string(elf.machine()) +
                        " is neither a cubin (190) nor an hsaco (224)",
                    SourceLocation{path, 0, 0});
}

}  // namespace ksnap::binary
