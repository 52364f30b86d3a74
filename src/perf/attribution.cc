#include "ksnap/perf/attribution.h"

#include <algorithm>
#include <set>

#include "ksnap/support/json.h"
#include "perf/json_param.h"

namespace ksnap::perf {
namespace {

/// Lower-case alphanumeric tokens of `s`.
std::vector<std::string> tokens(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (alnum) {
      cur.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
    } else if (!cur.empty()) {
      out.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::vector<std::string> kernel_tokens(std::string_view kernel) {
  std::vector<std::string> t = tokens(kernel);
  t.erase(std::remove(t.begin(), t.end(), "kernel"), t.end());
  return t;
}

/// Value of `key` in sorted `params`, or nullptr.
const std::string* param(const ParamList& params, const std::string& key) {
  auto it = std::lower_bound(params.begin(), params.end(), key,
                             [](const auto& p, const std::string& k) { return p.first < k; });
  return (it != params.end() && it->first == key) ? &it->second : nullptr;
}

std::string lower_text(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool same_value(const std::string& a, const std::string& b) {
  return a == b || lower_text(a) == lower_text(b);
}

std::string_view strip_dot_slash(std::string_view s) {
  while (s.size() > 2 && s.substr(0, 2) == "./") s.remove_prefix(2);
  return s;
}

PointIr combined_ir(std::span<const VariantInfo> variants, const std::vector<size_t>& chosen) {
  if (chosen.empty()) return PointIr::kUnknown;
  for (size_t i : chosen) {
    if (variants[i].ir_status != IrStatus::kUnchanged) return PointIr::kChanged;
  }
  return PointIr::kUnchanged;
}

}  // namespace

const char* ir_status_name(IrStatus s) {
  switch (s) {
    case IrStatus::kUnchanged:
      return "unchanged";
    case IrStatus::kChanged:
      return "changed";
    case IrStatus::kAdded:
      return "added";
    case IrStatus::kRemoved:
      return "removed";
  }
  return "?";
}

const char* match_rule_name(MatchRule r) {
  switch (r) {
    case MatchRule::kPointLabel:
      return "point-label";
    case MatchRule::kScriptAndKernel:
      return "script+kernel";
    case MatchRule::kUnattributed:
      return "unattributed";
  }
  return "?";
}

const char* point_ir_name(PointIr s) {
  switch (s) {
    case PointIr::kChanged:
      return "changed";
    case PointIr::kUnchanged:
      return "unchanged";
    case PointIr::kUnknown:
      return "unknown";
  }
  return "?";
}

bool same_script(std::string_view a, std::string_view b) {
  a = strip_dot_slash(a);
  b = strip_dot_slash(b);
  if (a.empty() || b.empty()) return false;
  if (a == b) return true;
  auto ends_with_component = [](std::string_view longer, std::string_view shorter) {
    return longer.size() > shorter.size() &&
           longer.substr(longer.size() - shorter.size()) == shorter &&
           longer[longer.size() - shorter.size() - 1] == '/';
  };
  return ends_with_component(a, b) || ends_with_component(b, a);
}

Attributor::Attributor(std::span<const VariantInfo> variants) : variants_(variants) {
  prepared_.reserve(variants.size());
  for (const VariantInfo& v : variants) {
    Prepared p;
    for (const std::string& label : v.bench_points) {
      if (!label.empty() && label.front() == '{') {
        auto doc = json::parse(label, "benchmark point");
        if (doc && doc->is_object()) {
          std::vector<std::pair<std::string, std::string>> raw;
          for (auto it = doc->begin(); it != doc->end(); ++it)
            raw.emplace_back(it.key(), json_param_text(it.value()));
          if (auto params = canonical_params(std::move(raw))) {
            p.labels.push_back(Label{false, "", std::move(*params)});
            continue;
          }
        }
      } else if (auto parsed = parse_point_label(label)) {
        p.labels.push_back(Label{true, std::move(parsed->first), std::move(parsed->second)});
        continue;
      }
      p.raw_labels.push_back(label);
    }
    auto ce = canonical_params({v.key.constexprs.begin(), v.key.constexprs.end()});
    if (ce) p.constexprs = std::move(*ce);
    p.kernel_tokens = kernel_tokens(v.key.kernel);
    prepared_.push_back(std::move(p));
  }
}

Attribution Attributor::attribute(const BenchPointId& raw_point) const {
  // Points from the readers are canonical already; others may not be.
  BenchPointId point = raw_point;
  if (auto canon = canonical_params(point.params)) point.params = std::move(*canon);
  Attribution a;
  // Rule 1: recorded point labels.
  const std::string label = format_point_label(point);
  for (size_t i = 0; i < variants_.size(); ++i) {
    const Prepared& p = prepared_[i];
    bool hit = std::find(p.raw_labels.begin(), p.raw_labels.end(), label) != p.raw_labels.end();
    for (size_t k = 0; !hit && k < p.labels.size(); ++k) hit = label_matches(p.labels[k], point);
    if (hit) a.variants.push_back(i);
  }
  if (!a.variants.empty()) {
    a.rule = MatchRule::kPointLabel;
    a.ir = combined_ir(variants_, a.variants);
    return a;
  }
  // Rule 2: same script, matching kernel.
  if (point.script.empty()) {
    a.note = "the results do not name the benchmark script";
    return a;
  }
  std::vector<size_t> same;
  std::set<std::string> kernels;
  for (size_t i = 0; i < variants_.size(); ++i) {
    if (same_script(variants_[i].bench_script, point.script)) {
      same.push_back(i);
      kernels.insert(variants_[i].key.kernel);
    }
  }
  if (same.empty()) {
    a.note = "no captured variant was launched by " + point.script;
    return a;
  }
  const std::vector<std::string> name_tokens = tokens(point.name);
  std::vector<size_t> by_kernel;
  for (size_t i : same) {
    const VariantInfo& v = variants_[i];
    bool hit;
    if (!point.kernel.empty()) {
      hit = v.key.kernel == point.kernel;
    } else {
      const auto& kt = prepared_[i].kernel_tokens;
      hit = !kt.empty() && std::all_of(kt.begin(), kt.end(), [&](const std::string& t) {
        return std::find(name_tokens.begin(), name_tokens.end(), t) != name_tokens.end();
      });
    }
    if (hit) by_kernel.push_back(i);
  }
  if (by_kernel.empty() && point.kernel.empty() && kernels.size() == 1) by_kernel = same;
  if (by_kernel.empty()) {
    a.note = "no kernel launched by " + point.script + " matches benchmark '" + point.name + "'";
    return a;
  }
  // Constexprs named by the point's params must agree.
  for (size_t i : by_kernel) {
    bool agree = true;
    for (const auto& [k, v] : prepared_[i].constexprs) {
      const std::string* pv = param(point.params, k);
      if (pv && *pv != v) agree = false;
    }
    if (agree) a.variants.push_back(i);
  }
  if (a.variants.empty()) {
    a.note = "no captured variant has the constexpr values of this point";
    return a;
  }
  a.rule = MatchRule::kScriptAndKernel;
  a.ir = combined_ir(variants_, a.variants);
  return a;
}

bool Attributor::label_matches(const Label& label, const BenchPointId& point) {
  if (label.has_name) {
    // ksnap labels: same benchmark, and every labelled param present and equal.
    if (label.name != point.name) return false;
    return std::all_of(label.params.begin(), label.params.end(), [&](const auto& kv) {
      const std::string* have = param(point.params, kv.first);
      return have && same_value(*have, kv.second);
    });
  }
  // Plugin labels (no name): shared keys must agree; keys the point lacks
  // are ignored, except that one of them has to name the point's line.
  size_t shared = 0;
  std::vector<const std::string*> extra;
  for (const auto& [k, v] : label.params) {
    const std::string* have = param(point.params, k);
    if (!have) {
      extra.push_back(&v);
      continue;
    }
    if (!same_value(*have, v)) return false;
    ++shared;
  }
  if (shared == 0) return false;
  const std::string* line = param(point.params, "line");
  if (line && !param(label.params, "line")) {
    return std::any_of(extra.begin(), extra.end(),
                       [&](const std::string* v) { return same_value(*v, *line); });
  }
  return true;
}

std::vector<Attribution> attribute_points(std::span<const BenchPointId> points,
                                          std::span<const VariantInfo> variants) {
  Attributor at(variants);
  std::vector<Attribution> out;
  out.reserve(points.size());
  for (const BenchPointId& p : points) out.push_back(at.attribute(p));
  return out;
}

}  // namespace ksnap::perf
