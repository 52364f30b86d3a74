// `ksnap diff --affected`: see affected.h.
#include "affected.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "ksnap/support/json.h"

namespace ksnap::cli {

Affected affected_points(const diff::DiffResult& r) {
  Affected a;
  a.variants = r.variants.size();
  std::map<std::pair<std::string, std::string>, AffectedPoint> by_point;
  for (const diff::VariantDiff& v : r.variants) {
    std::vector<std::string> stages;
    for (const diff::StageDiff& s : v.stages)
      if (s.status != diff::ChangeStatus::kUnchanged) stages.push_back(s.stage);
    bool changed = !stages.empty() || v.pairing == diff::Pairing::kAdded ||
                   v.pairing == diff::Pairing::kRemoved;
    if (!changed) continue;
    ++a.changed_variants;
    const std::string id = v.head_id.empty() ? v.key.id() : v.head_id;
    if (v.benchmark_points.empty()) {
      a.unattributed.push_back(id);
      continue;
    }
    for (const std::string& p : v.benchmark_points) {
      AffectedPoint& ap = by_point[{v.benchmark_script, p}];
      ap.script = v.benchmark_script;
      ap.point = p;
      ap.variants.push_back(id);
      for (const std::string& s : stages)
        if (std::find(ap.stages.begin(), ap.stages.end(), s) == ap.stages.end())
          ap.stages.push_back(s);
    }
  }
  for (auto& [key, ap] : by_point) a.points.push_back(std::move(ap));
  std::sort(a.unattributed.begin(), a.unattributed.end());
  return a;
}

std::string render_affected_text(const Affected& a) {
  std::string out = "# " + std::to_string(a.changed_variants) + " of " +
                    std::to_string(a.variants) + " variants changed; " +
                    std::to_string(a.points.size()) + " benchmark points affected\n";
  for (const AffectedPoint& p : a.points)
    out += (p.script.empty() ? "-" : p.script) + "\t" + p.point + "\n";
  for (const std::string& id : a.unattributed) out += "# no benchmark point recorded: " + id + "\n";
  return out;
}

namespace {

/// A recorded point is JSON text; a bare string the capture kept stays a string.
nlohmann::json point_json(const std::string& p) { return json::parse_or_string(p); }

}  // namespace

std::string render_affected_json(const Affected& a) {
  nlohmann::json points = nlohmann::json::array();
  for (const AffectedPoint& p : a.points)
    points.push_back({{"script", p.script.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.script)},
                      {"point", point_json(p.point)},
                      {"variants", p.variants},
                      {"stages", p.stages}});
  nlohmann::json root = {{"schema", "ksnap-affected"},
                         {"schema_version", 1},
                         {"variants", a.variants},
                         {"changed_variants", a.changed_variants},
                         {"points", points},
                         {"unattributed", a.unattributed}};
  return ksnap::json::dump(std::move(root), 1) + "\n";  // bytes as \xNN, never throws
}

}  // namespace ksnap::cli
