// Rendering of GroupReport as text and JSON.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <utility>

#include "ksnap/support/json.h"
#include "ksnap/tune/group.h"

namespace ksnap::tune {

std::string GroupReport::to_text() const {
  std::string out = "group " + group + " (" + group_hash + "), policy " + policy + ", cache " +
                    cache + "\n";
  char line[512];
  for (const auto& w : workloads) {
    std::snprintf(line, sizeof line,
                  "  %s -> %s [%s] %zu launches explored (%.0f us, regret %.0f us)%s\n",
                  w.workload.c_str(), w.choice_name.c_str(), decision_name(w.decision),
                  w.explore_launches, w.explore_us, w.regret_us,
                  w.tuning_wall_s > 0 ? (", tuned in " + std::to_string(w.tuning_wall_s) + " s").c_str()
                                      : "");
    out += line;
    out += "    reason: " + w.reason + "\n";
    for (const auto& v : w.variants) {
      if (!v.excluded.empty()) {
        out += "    " + v.name + " excluded: " + v.excluded + "\n";
        continue;
      }
      if (v.n == 0 && v.median_us == 0) continue;
      std::snprintf(line, sizeof line, "    %-28s n=%-4zu median %9.2f us  95%% CI [%.2f, %.2f]%s\n",
                    v.name.c_str(), v.n, v.median_us, v.ci_low_us, v.ci_high_us,
                    v.alive ? "" : (" eliminated by #" + std::to_string(v.eliminated_by)).c_str());
      out += line;
    }
  }
  return out;
}

std::string GroupReport::to_json() const {
  using nlohmann::json;
  json ws = json::array();
  for (const auto& w : workloads) {
    json vs = json::array();
    for (const auto& v : w.variants)
      vs.push_back({{"name", v.name},
                    {"n", v.n},
                    {"median_us", v.median_us},
                    {"ci95_us", {v.ci_low_us, v.ci_high_us}},
                    {"alive", v.alive},
                    {"eliminated_by", v.eliminated_by},
                    {"excluded", v.excluded.empty() ? json() : json(v.excluded)}});
    ws.push_back({{"workload", w.workload},
                  {"decision", decision_name(w.decision)},
                  {"choice", w.choice},
                  {"choice_name", w.choice_name},
                  {"reason", w.reason},
                  {"explore_launches", w.explore_launches},
                  {"explore_us", w.explore_us},
                  {"regret_us", w.regret_us},
                  {"tuning_wall_s", w.tuning_wall_s},
                  {"variants", vs}});
  }
  json j = {{"group", group}, {"group_hash", group_hash}, {"policy", policy}, {"cache", cache},
            {"workloads", ws}};
  return ksnap::json::dump(std::move(j), 2) + "\n";
}

}  // namespace ksnap::tune
