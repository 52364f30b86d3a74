// Rendering of ReplayResult as a text table and as JSON.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <utility>

#include "ksnap/support/json.h"
#include "ksnap/tune/replay.h"

namespace ksnap::tune {

namespace {

std::string fmt(const char* f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

std::string decisions_text(const ReplayWorkloadResult& w) {
  std::string out;
  for (size_t d = 1; d < 8; ++d) {
    if (!w.decisions[d]) continue;
    if (!out.empty()) out += " ";
    out += std::string(decision_name(static_cast<Decision>(d))) + "=" + std::to_string(w.decisions[d]);
  }
  return out;
}

}  // namespace

std::string replay_to_text(const ReplayResult& r) {
  const auto& c = r.config;
  std::string out;
  out += "replay of " + r.source + (r.device.empty() ? "" : " (" + r.device + ")") + ": " +
         std::to_string(c.trials) + " trials per workload, seed " + std::to_string(c.seed) +
         ", mode " + replay_mode_name(c.mode) + ", lag " + std::to_string(c.lag) + ", estimator " +
         estimator_name(c.race.estimator) + ", tie tolerance " + fmt("%.3g", c.race.tie_tolerance) +
         "\n";
  out += "hit = choice within " + fmt("%.3g%%", 100 * c.tolerance) +
         " of the best variant's true median; exhaustive n = samples per variant that exhaustive "
         "timing needs for a " + fmt("%.3g%%", 100 * c.confidence) + " hit rate\n\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-18s %5s %8s %9s %6s %9s %10s %7s %7s  %s\n", "workload", "best",
                "hit", "launches", "p99", "regret", "exh n@conf", "exh", "ratio", "decisions");
  out += line;
  for (size_t i = 0; i < r.workloads.size(); ++i) {
    const auto& w = r.workloads[i];
    size_t k = w.true_median.size();
    std::snprintf(line, sizeof line, "%-18s %5s %7.1f%% %9.1f %6zu %7.0fus %10s %7zu %6.1f%%  %s\n",
                  w.label.c_str(), (std::string("v") + std::to_string(w.best_variant)).c_str(), 100 * w.hit_rate,
                  w.mean_launches, w.p99_launches, w.mean_regret_us,
                  w.exhaustive_n ? std::to_string(w.exhaustive_n).c_str() : "never",
                  k * r.exhaustive_n, 100 * r.launch_ratio[i], decisions_text(w).c_str());
    out += line;
  }
  out += "\nexhaustive timing at the same confidence on every workload: " +
         std::to_string(r.exhaustive_n) + " samples per variant" +
         (r.exhaustive_reached ? "" : " (NOT reached on some workload within the grid)") + "\n";
  bool any_ref = false;
  for (const auto& w : r.workloads)
    if (w.reference_choice || w.reference_tuning_s) any_ref = true;
  if (any_ref) {
    out += "reference in the file (e.g. triton.autotune):";
    for (const auto& w : r.workloads) {
      out += " " + w.label + "=";
      out += w.reference_choice ? std::string("v") + std::to_string(*w.reference_choice) +
                                      (w.reference_hit ? "(hit)" : "(miss)")
                                : "?";
      if (w.reference_tuning_s) out += fmt("/%.2fs", *w.reference_tuning_s);
    }
    out += "\n";
  }
  out += std::string("verdict: ") + (r.meets() ? "PASS" : "FAIL") + " (every workload hit rate >= " +
         fmt("%.3g%%", 100 * c.confidence) + " and launches <= 25% of exhaustive)\n";
  return out;
}

std::string replay_to_json(const ReplayResult& r) {
  using nlohmann::json;
  const auto& c = r.config;
  json j;
  j["source"] = r.source;
  j["device"] = r.device;
  j["variants"] = r.variant_names;
  j["config"] = {{"trials", c.trials},
                 {"seed", c.seed},
                 {"mode", replay_mode_name(c.mode)},
                 {"lag", c.lag},
                 {"tolerance", c.tolerance},
                 {"confidence", c.confidence},
                 {"estimator", estimator_name(c.race.estimator)},
                 {"tie_tolerance", c.race.tie_tolerance},
                 {"z_eliminate", c.race.z_eliminate},
                 {"z_tie", c.race.z_tie},
                 {"min_samples", c.race.min_samples},
                 {"max_launches", c.race.max_launches}};
  json ws = json::array();
  for (size_t i = 0; i < r.workloads.size(); ++i) {
    const auto& w = r.workloads[i];
    json d = json::object();
    for (size_t k = 1; k < 8; ++k)
      if (w.decisions[k]) d[decision_name(static_cast<Decision>(k))] = w.decisions[k];
    json ex = json::array();
    for (const auto& p : w.exhaustive) ex.push_back({{"n", p.n}, {"hit_rate", p.hit_rate}});
    json o = {{"workload", w.label},
              {"best_variant", w.best_variant},
              {"true_median_us", w.true_median},
              {"online",
               {{"hit_rate", w.hit_rate},
                {"mean_launches", w.mean_launches},
                {"p99_launches", w.p99_launches},
                {"max_launches", w.max_launches},
                {"mean_explore_us", w.mean_explore_us},
                {"mean_regret_us", w.mean_regret_us},
                {"decisions", d},
                {"picks", w.picks}}},
              {"exhaustive", {{"n_for_confidence", w.exhaustive_n}, {"curve", ex}}},
              {"launch_ratio", r.launch_ratio[i]}};
    if (w.reference_choice)
      o["reference"] = {{"choice", *w.reference_choice}, {"hit", w.reference_hit}};
    if (w.reference_tuning_s) o["reference"]["tuning_s"] = *w.reference_tuning_s;
    ws.push_back(std::move(o));
  }
  j["workloads"] = std::move(ws);
  j["exhaustive_n"] = r.exhaustive_n;
  j["exhaustive_reached"] = r.exhaustive_reached;
  j["meets_bar"] = r.meets();
  return ksnap::json::dump(std::move(j), 2) + "\n";
}

}  // namespace ksnap::tune
