#include "ksnap/tune/race.h"

#include <cmath>
#include <cstdint>

namespace ksnap::tune {

const char* decision_name(Decision d) {
  switch (d) {
    case Decision::kExploring: return "exploring";
    case Decision::kSeparated: return "separated";
    case Decision::kTied: return "tied";
    case Decision::kLeader: return "leader";
    case Decision::kBudget: return "budget";
    case Decision::kSingle: return "single";
    case Decision::kForced: return "forced";
    case Decision::kCached: return "cached";
    case Decision::kDisabled: return "disabled";
    case Decision::kAdopted: return "adopted";
  }
  return "?";
}

Race::Race(size_t n_variants, RaceConfig config)
    : config_(config), stats_(n_variants == 0 ? 1 : n_variants) {
  if (config_.paired) pairs_.resize(stats_.size() * stats_.size());
  if (stats_.size() == 1) commit(0, Decision::kSingle);
}

size_t Race::budget_launches() const {
  return config_.max_launches ? config_.max_launches : 32 * stats_.size();
}

size_t Race::alive_count() const {
  size_t n = 0;
  for (const auto& s : stats_) n += s.alive;
  return n;
}

size_t Race::next() {
  if (round_pos_ >= round_.size()) {
    // A new round: the survivors, rotated by the round number.
    round_.clear();
    std::vector<size_t> alive;
    for (size_t i = 0; i < stats_.size(); ++i)
      if (stats_[i].alive) alive.push_back(i);
    for (size_t k = 0; k < alive.size(); ++k) round_.push_back(alive[(k + round_no_) % alive.size()]);
    round_pos_ = 0;
    ++round_no_;
  }
  size_t v = round_[round_pos_++];
  ++stats_[v].launches;
  ++launches_;
  return v;
}

void Race::record(size_t variant, double time_us) {
  if (committed() || variant >= stats_.size()) return;
  RaceVariantStats& s = stats_[variant];
  ++s.recorded;
  explored_time_us_ += time_us;
  if (s.recorded > config_.warmup) {
    s.samples.add(time_us);
    s.in_order.push_back(time_us);
    if (config_.paired) add_pairs(variant);
  }
  evaluate();
}

bool Race::exclude(size_t variant) {
  if (committed() || variant >= stats_.size() || !stats_[variant].alive || alive_count() < 2)
    return false;
  RaceVariantStats& s = stats_[variant];
  s.alive = false;
  s.excluded = true;
  s.eliminated_at = launches_;
  // The round in progress may still list it: start a new round.
  round_pos_ = round_.size();
  if (alive_count() == 1)
    for (size_t i = 0; i < stats_.size(); ++i)
      if (stats_[i].alive) commit(i, Decision::kSeparated);
  return true;
}

void Race::add_pairs(size_t v) {
  const size_t n = stats_.size();
  size_t k = stats_[v].in_order.size() - 1;
  double xv = stats_[v].in_order[k];
  for (size_t u = 0; u < n; ++u) {
    if (u == v || !stats_[u].alive || stats_[u].in_order.size() <= k) continue;
    double xu = stats_[u].in_order[k];
    size_t a = std::min(u, v), b = std::max(u, v);
    double r = a == v ? std::log(xv / xu) : std::log(xu / xv);
    pairs_[a * n + b].add(r);
  }
}

Estimate Race::compare(size_t a, size_t b) const {
  if (config_.paired) {
    size_t n = stats_.size();
    Estimate e = pairs_[std::min(a, b) * n + std::max(a, b)].estimate(config_.estimator);
    if (a > b) e.value = -e.value;
    return e;
  }
  Estimate ea = estimate(a), eb = estimate(b);
  Estimate e;
  e.n = std::min(ea.n, eb.n);
  if (ea.value <= 0 || eb.value <= 0) {
    e.std_error = 1;
    return e;
  }
  e.value = std::log(ea.value / eb.value);
  e.std_error = std::hypot(ea.std_error / ea.value, eb.std_error / eb.value);
  return e;
}

size_t Race::leader() const {
  size_t best = stats_.size();
  double best_v = 0;
  for (size_t i = 0; i < stats_.size(); ++i) {
    if (!stats_[i].alive || stats_[i].samples.empty()) continue;
    double v = estimate(i).value;
    if (best == stats_.size() || v < best_v) {
      best = i;
      best_v = v;
    }
  }
  return best == stats_.size() ? 0 : best;
}

size_t Race::choice() const { return committed() ? choice_ : leader(); }

void Race::commit(size_t choice, Decision why) {
  choice_ = choice;
  decision_ = why;
}

// Growth of the checkpoint schedule (see evaluate()).
static constexpr double kCheckGrowth = 1.25;

void Race::evaluate() {
  // The launch budget counts the samples of the variants still racing (sunk
  // launches on eliminated variants do not shrink it), hard-capped at twice.
  size_t racing = 0;
  for (const auto& s : stats_)
    if (s.alive) racing += s.recorded;
  double racing_budget = static_cast<double>(budget_launches()) *
                         (alive_count() == 2 && stats_.size() > 2 ? config_.duel_budget_factor : 1.0);
  bool over_budget = static_cast<double>(racing) >= racing_budget ||
                     launches_ >= 4 * budget_launches() ||
                     (config_.max_time_us > 0 && explored_time_us_ >= config_.max_time_us);
  size_t need = std::max<size_t>(config_.min_samples, 2);
  bool ready = true;
  for (const auto& s : stats_)
    if (s.alive && s.samples.size() < need) ready = false;
  if (ready) {
    // Test only when the smallest survivor sample count reaches the next
    // checkpoint (geometric, x1.25): few looks keep repeated testing honest.
    size_t m = SIZE_MAX;
    for (const auto& s : stats_)
      if (s.alive) m = std::min(m, s.samples.size());
    if (m < next_check_) ready = false;
    else next_check_ = std::max(m + 1, static_cast<size_t>(static_cast<double>(m) * kCheckGrowth));
  }
  if (!ready) {
    if (over_budget) commit(leader(), Decision::kBudget);
    return;
  }
  const size_t n = stats_.size();
  size_t lead = leader();
  for (size_t i = 0; i < n; ++i) {
    if (!stats_[i].alive || i == lead) continue;
    Estimate r = compare(i, lead);
    if (r.n >= need && r.value - config_.z_eliminate * r.std_error > 0) {
      stats_[i].alive = false;
      stats_[i].eliminated_by = static_cast<int>(lead);
      stats_[i].eliminated_at = launches_;
    }
  }
  if (alive_count() == 1) return commit(lead, Decision::kSeparated);
  const double log_tol = std::log1p(config_.tie_tolerance);
  const size_t tie_need = std::max(need, config_.tie_min_samples);
  // Within the tolerance, confidently: a's time <= (1+tol) * b's time.
  auto within = [&](size_t a, size_t b) {
    Estimate r = compare(a, b);
    return r.n >= tie_need && r.value + config_.z_tie * r.std_error < log_tol;
  };
  // Tied: every survivor is within the tolerance of the leader; declaration
  // order picks among them, so equal variants always resolve the same way.
  bool all_within = true;
  for (size_t s = 0; s < n && all_within; ++s)
    if (stats_[s].alive && s != lead) all_within = within(s, lead);
  if (all_within) {
    for (size_t c = 0; c < n; ++c)
      if (stats_[c].alive) return commit(c, Decision::kTied);
  }
  // Leader: the leader is within the tolerance of every survivor, and each
  // of them trails it by more than half the tolerance, by a standard error
  // (no near-equal rival whose order a tie should decide).
  const double log_half_tol = std::log1p(config_.tie_tolerance / 2);
  bool leader_ok = true;
  for (size_t s = 0; s < n && leader_ok; ++s) {
    if (!stats_[s].alive || s == lead) continue;
    Estimate r = compare(s, lead);
    leader_ok = within(lead, s) && r.value - r.std_error > log_half_tol;
  }
  if (leader_ok) return commit(lead, Decision::kLeader);
  if (over_budget) commit(lead, Decision::kBudget);
}

}  // namespace ksnap::tune
