// Where a kernel is defined: the part of a variant's identity beside kernel,
// signature, constexprs and options (docs/capture-format.md, "Variant
// identity").
//
// Worked example. Two tutorial scripts both define `matmul_kernel` and run
// as `__main__`:
//   qualname "__main__.matmul_kernel", source_file "/ci/a/tutorials/03-matmul.py"
//     source()            = "/ci/a/tutorials/03-matmul.py"     (kFile)
//     source_components() = {ci, a, tutorials, 03-matmul}
//     source_tail(v, 1)   = "03-matmul.py"
//   qualname "suite_kernels.matmul_kernel" (an imported module)
//     source()            = "suite_kernels.matmul_kernel"     (kModule)
//     source_components() = {suite_kernels}
// The same script captured from /ci/b/tutorials/03-matmul.py shares 2
// trailing components with the first; the diff pairs kernels of one name
// by the longest such suffix (diff/pairing.h).
#include <algorithm>
#include <map>
#include <set>

#include "ksnap/build/build.h"

namespace ksnap::build {

namespace {

constexpr std::string_view kMainPrefix = "__main__.";

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string_view::npos) end = s.size();
    if (end > start) out.emplace_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string join_tail(const std::vector<std::string>& parts, size_t n, char sep) {
  std::string out;
  for (size_t i = parts.size() - std::min(n, parts.size()); i < parts.size(); ++i) {
    if (!out.empty()) out += sep;
    out += parts[i];
  }
  return out;
}

/// The module part of a module-kind qualname: `pkg.mod.k` -> {pkg, mod}.
std::vector<std::string> module_parts(const Variant& v) {
  std::vector<std::string> parts = split(v.qualname, '.');
  if (parts.size() > 1 && parts.back() == v.kernel) parts.pop_back();
  return parts;
}

}  // namespace

SourceKind Variant::source_kind() const {
  const bool main = qualname.compare(0, kMainPrefix.size(), kMainPrefix) == 0;
  if (!qualname.empty() && !main) return SourceKind::kModule;
  if (!source_file.empty()) return SourceKind::kFile;
  return qualname.empty() ? SourceKind::kUnknown : SourceKind::kModule;
}

std::string Variant::source() const {
  switch (source_kind()) {
    case SourceKind::kModule: return qualname;
    case SourceKind::kFile: return source_file;
    case SourceKind::kUnknown: break;
  }
  return "";
}

bool Variant::unstable(const std::string& stage) const {
  return std::binary_search(unstable_stages.begin(), unstable_stages.end(), stage);
}

std::vector<std::string> source_components(const Variant& v) {
  switch (v.source_kind()) {
    case SourceKind::kModule: return module_parts(v);
    case SourceKind::kFile: {
      std::vector<std::string> parts = split(v.source_file, '/');
      if (!parts.empty() && parts.back().size() > 3 &&
          parts.back().compare(parts.back().size() - 3, 3, ".py") == 0)
        parts.back().resize(parts.back().size() - 3);
      return parts;
    }
    case SourceKind::kUnknown: break;
  }
  return {};
}

size_t common_source_suffix(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[a.size() - 1 - n] == b[b.size() - 1 - n]) ++n;
  return n;
}

std::string source_tail(const Variant& v, size_t n) {
  switch (v.source_kind()) {
    case SourceKind::kModule: return join_tail(module_parts(v), n, '.');
    case SourceKind::kFile: return join_tail(split(v.source_file, '/'), n, '/');
    case SourceKind::kUnknown: break;
  }
  return "";
}

std::map<std::pair<std::string, std::string>, std::string> kernel_labels(
    const std::vector<KernelSource>& kernels) {
  std::map<std::string, std::map<std::string, const Variant*>> sources;  // kernel -> source -> one
  for (const KernelSource& k : kernels) sources[k.kernel].emplace(k.source, k.variant);
  std::map<std::pair<std::string, std::string>, std::string> label;
  for (const auto& [kernel, srcs] : sources) {
    if (srcs.size() < 2) continue;
    auto tail = [](const std::string& src, const Variant* v, size_t n) -> std::string {
      if (src.empty()) return "source unknown";
      std::string t = v ? source_tail(*v, n) : "";
      return t.empty() ? src : t;
    };
    // Grow the tail until every source reads differently; the whole source
    // at worst (when no tail tells two apart, they are spelled in full).
    std::map<std::string, std::string> shown;
    for (size_t n = 1; n <= 64; ++n) {
      shown.clear();
      std::set<std::string> seen;
      bool distinct = true;
      for (const auto& [src, v] : srcs) distinct &= seen.insert(shown[src] = tail(src, v, n)).second;
      if (distinct) break;
      if (n == 64)
        for (const auto& [src, v] : srcs) shown[src] = src.empty() ? "source unknown" : src;
    }
    for (const auto& [src, v] : srcs) label[{kernel, src}] = kernel + " (" + shown[src] + ")";
  }
  return label;
}

}  // namespace ksnap::build
