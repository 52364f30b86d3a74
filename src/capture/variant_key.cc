// Variant identity: where a kernel is defined, how two variants match, and
// the labels that tell apart kernels of one name.
//
// Worked example. `matmul_kernel` from `/ci/a/tutorials/03-matmul.py`
// (qualname `__main__.matmul_kernel`) and from module `suite_kernels`:
//   source()            "/ci/a/tutorials/03-matmul.py" (kFile) | "suite_kernels.matmul_kernel" (kModule)
//   source_components() {ci, a, tutorials, 03-matmul}          | {suite_kernels}
//   source_tail(k, 1)   "03-matmul.py"                          | "suite_kernels"
//   kernel_labels       "matmul_kernel (03-matmul.py)"          | "matmul_kernel (suite_kernels)"
// The same script captured from /ci/b/tutorials/03-matmul.py shares 2
// trailing components with the first; the diff pairs kernels of one name
// by the longest such suffix (diff/pairing.h).
#include "ksnap/capture/variant_key.h"

#include <algorithm>
#include <set>
#include <string_view>

namespace ksnap::capture {

namespace {

constexpr std::string_view kMainPrefix = "__main__.";
constexpr char kSep = '\x1f';

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
std::vector<std::string> module_parts(const VariantKey& k) {
  std::vector<std::string> parts = split(k.qualname, '.');
  if (parts.size() > 1 && parts.back() == k.kernel) parts.pop_back();
  return parts;
}

/// Path components with `.py` cut from the last: `/ci/a.py` -> {ci, a}.
std::vector<std::string> file_parts(const std::string& path) {
  std::vector<std::string> parts = split(path, '/');
  if (!parts.empty() && parts.back().size() > 3 &&
      parts.back().compare(parts.back().size() - 3, 3, ".py") == 0)
    parts.back().resize(parts.back().size() - 3);
  return parts;
}

}  // namespace

SourceKind VariantKey::source_kind() const {
  const bool main = qualname.compare(0, kMainPrefix.size(), kMainPrefix) == 0;
  if (!qualname.empty() && !main) return SourceKind::kModule;
  if (!source_file.empty()) return SourceKind::kFile;
  return qualname.empty() ? SourceKind::kUnknown : SourceKind::kModule;
}

std::string VariantKey::source() const {
  switch (source_kind()) {
    case SourceKind::kModule: return qualname;
    case SourceKind::kFile: return source_file;
    case SourceKind::kUnknown: break;
  }
  return "";
}

std::string json_object_text(const std::map<std::string, std::string>& kv) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : kv) {
    if (!first) out += ", ";
    first = false;
    out += '"';
    for (char c : k) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += "\": ";
    out += v;
  }
  return out + "}";
}

std::string VariantKey::constexprs_text() const { return json_object_text(constexprs); }
std::string VariantKey::options_text() const { return json_object_text(options); }
std::string VariantKey::id() const {
  return kernel + "|" + constexprs_text() + "|" + options_text();
}

std::string VariantKey::label() const { return specialization_label(constexprs, options); }

std::string specialization_label(const std::map<std::string, std::string>& constexprs,
                                 const std::map<std::string, std::string>& options) {
  auto items = [](const std::map<std::string, std::string>& m) {
    std::string out;
    for (const auto& [k, v] : m) out += (out.empty() ? "" : ", ") + k + "=" + v;
    return out;
  };
  std::string out;
  if (!constexprs.empty()) out = "{" + items(constexprs) + "}";
  if (!options.empty()) out += (out.empty() ? "[" : " [") + items(options) + "]";
  return out;
}

std::string signature_of_key(const std::string& jit_key) {
  size_t close = jit_key.find("]{");
  return close == std::string::npos ? jit_key : jit_key.substr(0, close + 1);
}

bool same_kernel(const VariantKey& a, const VariantKey& b) {
  return a.kernel == b.kernel && a.source() == b.source();
}

bool same_variant(const VariantKey& a, const VariantKey& b) {
  return same_kernel(a, b) && a.signature == b.signature && a.constexprs == b.constexprs &&
         a.options == b.options;
}

bool same_leftover(const VariantKey& a, const VariantKey& b) {
  return same_kernel(a, b) && a.constexprs == b.constexprs;
}

std::string kernel_text(const VariantKey& k) { return k.kernel + kSep + k.source(); }
std::string variant_text(const VariantKey& k) {
  return k.signature + kSep + k.constexprs_text() + kSep + k.options_text();
}
std::string leftover_text(const VariantKey& k) { return k.constexprs_text(); }

std::vector<std::string> source_components(const VariantKey& k) {
  switch (k.source_kind()) {
    case SourceKind::kModule: return module_parts(k);
    case SourceKind::kFile: return file_parts(k.source_file);
    case SourceKind::kUnknown: break;
  }
  return {};
}

size_t common_source_suffix(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[a.size() - 1 - n] == b[b.size() - 1 - n]) ++n;
  return n;
}

bool compatible_sources(const VariantKey& a, const VariantKey& b) {
  if (a.source() == b.source()) return true;
  std::vector<std::string> x = source_components(a), y = source_components(b);
  return x.empty() || y.empty() || common_source_suffix(x, y) > 0;
}

std::string source_tail(const VariantKey& k, size_t n) {
  switch (k.source_kind()) {
    case SourceKind::kModule: return join_tail(module_parts(k), n, '.');
    case SourceKind::kFile: return join_tail(split(k.source_file, '/'), n, '/');
    case SourceKind::kUnknown: break;
  }
  return "";
}

bool source_has_tail(const VariantKey& k, const std::string& tail) {
  if (tail.empty() || tail == k.source()) return true;
  std::vector<std::string> want;
  switch (k.source_kind()) {
    case SourceKind::kModule: want = split(tail, '.'); break;
    case SourceKind::kFile: want = file_parts(tail); break;
    case SourceKind::kUnknown: return false;
  }
  std::vector<std::string> have = source_components(k);
  return !want.empty() && common_source_suffix(want, have) == want.size();
}

std::map<std::pair<std::string, std::string>, std::string> kernel_source_tails(
    const std::vector<KernelSource>& kernels) {
  std::map<std::string, std::map<std::string, const VariantKey*>> sources;  // kernel -> source -> one
  for (const KernelSource& k : kernels) sources[k.kernel].emplace(k.source, k.variant);
  std::map<std::pair<std::string, std::string>, std::string> out;
  for (const auto& [kernel, srcs] : sources) {
    if (srcs.size() < 2) continue;
    auto tail = [](const std::string& src, const VariantKey* v, size_t n) -> std::string {
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
    for (const auto& [src, v] : srcs) out[{kernel, src}] = shown[src];
  }
  return out;
}

std::map<std::pair<std::string, std::string>, std::string> kernel_labels(
    const std::vector<KernelSource>& kernels) {
  auto labels = kernel_source_tails(kernels);
  for (auto& [ks, tail] : labels) tail = ks.first + " (" + tail + ")";
  return labels;
}

}  // namespace ksnap::capture
