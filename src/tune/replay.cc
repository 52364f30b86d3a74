#include "ksnap/tune/replay.h"

#include <algorithm>
#include <deque>
#include <random>

namespace ksnap::tune {

const char* replay_mode_name(ReplayMode m) { return m == ReplayMode::kIid ? "iid" : "paired"; }

Expected<ReplayMode> parse_replay_mode(std::string_view text) {
  if (text == "iid") return ReplayMode::kIid;
  if (text == "paired") return ReplayMode::kPaired;
  return make_error(ErrorCode::kInvalidArgument,
                    "unknown replay mode '" + std::string(text) + "' (iid | paired)");
}

namespace {

uint64_t mix(uint64_t x) {  // splitmix64 finalizer
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Draws recorded samples for one trial.
class Sampler {
 public:
  Sampler(const RecordedWorkload& w, ReplayMode mode, uint64_t seed)
      : w_(w), mode_(mode), rng_(seed), count_(w.samples.size(), 0) {}

  /// The next sample of `variant` (its k-th launch uses round k in paired mode).
  double draw(size_t variant) {
    const auto& xs = w_.samples[variant];
    if (mode_ == ReplayMode::kIid) return xs[below(xs.size())];
    size_t k = count_[variant]++;
    while (rounds_.size() <= k) rounds_.push_back(rng_());
    return xs[reduce(rounds_[k], xs.size())];
  }

 private:
  static size_t reduce(uint64_t r, size_t n) {
    return static_cast<size_t>((static_cast<unsigned __int128>(r) * n) >> 64);
  }
  size_t below(size_t n) { return reduce(rng_(), n); }

  const RecordedWorkload& w_;
  ReplayMode mode_;
  std::mt19937_64 rng_;
  std::vector<size_t> count_;
  std::vector<uint64_t> rounds_;
};

size_t best_of(const std::vector<double>& v) {
  return static_cast<size_t>(std::min_element(v.begin(), v.end()) - v.begin());
}

void run_online(const RecordedWorkload& w, const ReplayConfig& cfg, uint64_t wseed,
                ReplayWorkloadResult& out) {
  const size_t k = w.samples.size();
  const double best = w.true_median[out.best_variant];
  std::vector<size_t> launches;
  launches.reserve(cfg.trials);
  double sum_launch = 0, sum_time = 0, sum_regret = 0;
  size_t hits = 0;
  out.picks.assign(k, 0);
  struct InFlight {
    size_t variant;
    double value;
    size_t ready_at;
  };
  for (size_t t = 0; t < cfg.trials; ++t) {
    Sampler sampler(w, cfg.mode, mix(wseed ^ mix(t)));
    Race race(k, cfg.race);
    std::deque<InFlight> pending;
    size_t issued = 0;
    double time = 0;
    constexpr size_t kHardCap = 1u << 20;  // a policy bug must not hang the replay
    while (!race.committed() && issued < kHardCap) {
      size_t v = race.next();
      double x = sampler.draw(v);
      ++issued;
      time += x;
      pending.push_back({v, x, issued + cfg.lag});
      while (!pending.empty() && pending.front().ready_at <= issued && !race.committed()) {
        race.record(pending.front().variant, pending.front().value);
        pending.pop_front();
      }
    }
    size_t pick = race.choice();
    ++out.picks[pick];
    ++out.decisions[static_cast<size_t>(race.decision())];
    hits += w.true_median[pick] <= (1 + cfg.tolerance) * best;
    launches.push_back(issued);
    sum_launch += static_cast<double>(issued);
    sum_time += time;
    sum_regret += time - best * static_cast<double>(issued);
  }
  double n = static_cast<double>(cfg.trials);
  out.hit_rate = static_cast<double>(hits) / n;
  out.mean_launches = sum_launch / n;
  out.mean_explore_us = sum_time / n;
  out.mean_regret_us = sum_regret / n;
  std::sort(launches.begin(), launches.end());
  out.p99_launches = launches[std::min(launches.size() - 1, launches.size() * 99 / 100)];
  out.max_launches = launches.back();
}

double exhaustive_hit_rate(const RecordedWorkload& w, const ReplayConfig& cfg, uint64_t wseed,
                           size_t n) {
  const size_t k = w.samples.size();
  const double best = w.true_median[best_of(w.true_median)];
  size_t hits = 0;
  std::vector<double> med(k);
  std::vector<std::vector<double>> per(k, std::vector<double>(n));
  for (size_t t = 0; t < cfg.trials; ++t) {
    Sampler sampler(w, cfg.mode, mix(~wseed ^ mix(t * 7919 + n)));
    for (size_t r = 0; r < n; ++r)
      for (size_t v = 0; v < k; ++v) per[v][r] = sampler.draw(v);
    for (size_t v = 0; v < k; ++v) med[v] = median(per[v]);
    size_t pick = best_of(med);
    hits += w.true_median[pick] <= (1 + cfg.tolerance) * best;
  }
  return static_cast<double>(hits) / static_cast<double>(cfg.trials);
}

}  // namespace

bool ReplayResult::meets(double max_ratio) const {
  if (!exhaustive_reached) return false;
  for (size_t i = 0; i < workloads.size(); ++i) {
    if (workloads[i].hit_rate < config.confidence) return false;
    if (launch_ratio[i] > max_ratio) return false;
  }
  return !workloads.empty();
}

Expected<ReplayResult> replay(const RecordedSamples& samples, const ReplayConfig& config) {
  if (config.trials == 0)
    return make_error(ErrorCode::kInvalidArgument, "replay needs at least one trial");
  if (!(config.tolerance >= 0) || !(config.confidence > 0 && config.confidence <= 1))
    return make_error(ErrorCode::kInvalidArgument, "tolerance must be >= 0, confidence in (0,1]");
  ReplayResult r;
  r.config = config;
  r.source = samples.source;
  r.device = samples.device;
  r.variant_names = samples.variant_names;
  static constexpr size_t kGrid[] = {1,  2,  3,  4,  5,   6,   8,   10,  12,  16,  20,  24, 32,
                                     40, 48, 64, 80, 96, 128, 160, 192, 256, 320, 400, 512};
  for (size_t wi = 0; wi < samples.workloads.size(); ++wi) {
    const RecordedWorkload& w = samples.workloads[wi];
    ReplayWorkloadResult out;
    out.label = w.label;
    out.true_median = w.true_median;
    out.best_variant = best_of(w.true_median);
    uint64_t wseed = mix(config.seed * 1000003 + wi);
    run_online(w, config, wseed, out);
    for (size_t n : kGrid) {
      double h = exhaustive_hit_rate(w, config, wseed, n);
      out.exhaustive.push_back({n, h});
      if (h >= config.confidence) {
        out.exhaustive_n = n;
        break;
      }
    }
    if (out.exhaustive_n == 0) r.exhaustive_reached = false;
    r.exhaustive_n = std::max(r.exhaustive_n, out.exhaustive_n);
    out.reference_tuning_s = w.reference_tuning_s;
    out.reference_choice = w.reference_choice;
    if (w.reference_choice)
      out.reference_hit =
          w.true_median[*w.reference_choice] <= (1 + config.tolerance) * w.true_median[out.best_variant];
    r.workloads.push_back(std::move(out));
  }
  for (const auto& w : r.workloads) {
    double denom = static_cast<double>(w.true_median.size() * std::max<size_t>(r.exhaustive_n, 1));
    r.launch_ratio.push_back(w.mean_launches / denom);
  }
  return r;
}

}  // namespace ksnap::tune
