#include "render/common.h"

#include <algorithm>
#include <set>

#include "ksnap/render/render.h"

namespace ksnap::render {

bool parse_format(const std::string& s, Format* out) {
  if (s == "terminal" || s == "text") *out = Format::kTerminal;
  else if (s == "markdown" || s == "md") *out = Format::kMarkdown;
  else if (s == "json") *out = Format::kJson;
  else if (s == "html") *out = Format::kHtml;
  else if (s == "stat") *out = Format::kStat;
  else return false;
  return true;
}

std::string variant_label(const diff::VariantDiff& v) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, val] : v.constexprs) {
    if (!first) out += ", ";
    first = false;
    out += k + "=" + val;
  }
  out += "}";
  if (!v.options.empty()) {
    out += " [";
    first = true;
    for (const auto& [k, val] : v.options) {
      if (!first) out += ", ";
      first = false;
      out += k + "=" + val;
    }
    out += "]";
  }
  return out;
}

std::string signed_text(int64_t v) { return v > 0 ? "+" + std::to_string(v) : std::to_string(v); }

std::string op_delta_text(const std::map<std::string, int64_t>& d, size_t max) {
  std::vector<std::pair<std::string, int64_t>> v(d.begin(), d.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return std::llabs(a.second) > std::llabs(b.second);
  });
  std::string out;
  for (size_t i = 0; i < v.size() && i < max; ++i) {
    if (i) out += ", ";
    out += signed_text(v[i].second) + " " + v[i].first;
  }
  if (v.size() > max) out += ", … " + std::to_string(v.size() - max) + " more";
  return out;
}

std::string resource_text(const std::map<std::string, diff::FigurePair>& r) {
  std::string out;
  for (const auto& [k, p] : r) {
    if (p.first == p.second) continue;
    if (!out.empty()) out += ", ";
    auto fmt = [](int64_t x) { return x < 0 ? std::string("–") : std::to_string(x); };
    out += k + " " + fmt(p.first) + " → " + fmt(p.second);
    if (p.first >= 0 && p.second >= 0) out += " (" + signed_text(p.second - p.first) + ")";
  }
  return out;
}

std::string py_lines_text(const std::vector<int32_t>& a) {
  std::set<int32_t> s(a.begin(), a.end());
  std::string out;
  size_t n = 0;
  for (int32_t x : s) {
    if (n == 12) {
      out += ", …";
      break;
    }
    if (n++) out += ", ";
    out += std::to_string(x);
  }
  return out;
}

void stage_py_lines(const diff::StageDiff& s, std::vector<int32_t>* base,
                    std::vector<int32_t>* head) {
  for (const auto& h : s.hunks) {
    base->insert(base->end(), h.py_lines_base.begin(), h.py_lines_base.end());
    head->insert(head->end(), h.py_lines_head.begin(), h.py_lines_head.end());
  }
}

Totals totals(const diff::DiffResult& r) {
  Totals t;
  std::set<std::string> kernels;
  for (const auto& v : r.variants) {
    ++t.variants;
    if (v.pairing == diff::Pairing::kAdded) ++t.added;
    if (v.pairing == diff::Pairing::kRemoved) ++t.removed;
    if (v.changed()) {
      ++t.changed_variants;
      kernels.insert(v.kernel);
    }
    for (const auto& s : v.stages) {
      ++t.stages;
      t.changed_stages += s.status != diff::ChangeStatus::kUnchanged;
    }
  }
  t.kernels_changed = kernels.size();
  return t;
}

}  // namespace ksnap::render
