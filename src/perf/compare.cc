#include "ksnap/perf/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "ksnap/perf/bootstrap.h"
#include "ksnap/perf/mann_whitney.h"
#include "ksnap/perf/welch.h"
#include "ksnap/support/hash.h"

namespace ksnap::perf {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
/// Half-width of the central 60% of a standard normal (20th..80th percentile).
constexpr double kP20P80HalfWidth = 0.8416212335729143;

SampleSummary summarize(const std::vector<double>& s) {
  SampleSummary out;
  out.n = s.size();
  if (s.empty()) return out;
  double sum = 0;
  for (double x : s) sum += x;
  out.mean = sum / static_cast<double>(s.size());
  double ss = 0;
  for (double x : s) ss += (x - out.mean) * (x - out.mean);
  out.std = s.size() > 1 ? std::sqrt(ss / static_cast<double>(s.size() - 1)) : 0;
  return out;
}

bool all_positive(const std::vector<double>& s) {
  return std::all_of(s.begin(), s.end(), [](double x) { return x > 0; });
}

uint64_t count_of(const BenchPoint& p) { return p.summary ? p.summary->n : p.samples.size(); }

void insufficient(PointComparison& c, std::string why) {
  c.method = TestMethod::kNone;
  c.p_value = c.p_adjusted = kNaN;
  c.ci_lo = c.ci_hi = kNaN;
  c.note = std::move(why);
}

void apply_welch(PointComparison& c, const LogEstimate& b, const LogEstimate& h, TestMethod method,
                 const CompareOptions& opts) {
  WelchResult w = welch_log_test(b, h, opts.confidence);
  if (!w.valid) {
    insufficient(c, "fewer than 2 samples on a side, or a non-positive mean");
    return;
  }
  c.method = method;
  c.ratio = w.ratio;
  c.ci_lo = w.lo;
  c.ci_hi = w.hi;
  c.p_value = c.p_adjusted = w.p_value;
}

/// Single perf_report run with a p20..p80 spread on both sides.
void test_quantile_range(PointComparison& c, const BenchPoint& base, const BenchPoint& head,
                         const CompareOptions& opts) {
  auto estimate = [&](const BenchPoint& p) {
    LogEstimate e;
    e.mu = std::log(p.samples[0]);
    e.sigma = std::log(*p.spread_hi / *p.spread_lo) / (2 * kP20P80HalfWidth);
    e.n = opts.assumed_samples_per_point;
    e.efficiency = std::sqrt(std::numbers::pi / 2);
    return e;
  };
  if (!(base.samples[0] > 0 && head.samples[0] > 0 && *base.spread_lo > 0 && *head.spread_lo > 0)) {
    insufficient(c, "non-positive value or spread");
    return;
  }
  c.n_base = c.n_head = opts.assumed_samples_per_point;
  apply_welch(c, estimate(base), estimate(head), TestMethod::kQuantileRange, opts);
  c.note = "single perf_report run: spread from -min/-max, n assumed " +
           std::to_string(opts.assumed_samples_per_point);
}

/// Welch on the log of per-run medians: between-run variation included.
void test_run_medians(PointComparison& c, const BenchPoint& base, const BenchPoint& head,
                      const CompareOptions& opts) {
  auto estimate = [](const BenchPoint& p) {
    std::vector<double> logs;
    for (std::span<const double> run : runs_of(p)) logs.push_back(std::log(median(run)));
    LogEstimate e;
    e.n = static_cast<double>(logs.size());
    double sum = 0;
    for (double x : logs) sum += x;
    e.mu = sum / e.n;
    double ss = 0;
    for (double x : logs) ss += (x - e.mu) * (x - e.mu);
    e.sigma = logs.size() > 1 ? std::sqrt(ss / (e.n - 1)) : 0;
    return e;
  };
  if (!all_positive(base.samples) || !all_positive(head.samples)) {
    insufficient(c, "samples must be positive (a value rounded to 0?)");
    return;
  }
  const LogEstimate b = estimate(base), h = estimate(head);
  c.n_base = static_cast<uint64_t>(b.n);
  c.n_head = static_cast<uint64_t>(h.n);
  apply_welch(c, b, h, TestMethod::kRunMedians, opts);
  if (c.method == TestMethod::kRunMedians) {
    c.note = std::to_string(c.n_base) + " vs " + std::to_string(c.n_head) +
             " runs: per-run medians tested";
  }
}

void test_samples(PointComparison& c, const BenchPoint& base, const BenchPoint& head,
                  const CompareOptions& opts) {
  if (!all_positive(base.samples) || !all_positive(head.samples)) {
    insufficient(c, "samples must be positive (a value rounded to 0?)");
    return;
  }
  const double min_p = mann_whitney_min_p(base.samples.size(), head.samples.size());
  if (min_p >= opts.alpha) {
    c.ratio = ratio_of_medians(base.samples, head.samples);
    insufficient(c, std::to_string(base.samples.size()) + " vs " +
                        std::to_string(head.samples.size()) +
                        " samples cannot reach significance (smallest possible p = " +
                        std::to_string(min_p) + ")");
    return;
  }
  MannWhitneyResult mw = mann_whitney_u(base.samples, head.samples);
  BootstrapOptions bo;
  bo.resamples = opts.bootstrap_resamples;
  bo.confidence = opts.confidence;
  bo.seed = opts.seed ^ hash64(c.label);
  RatioInterval ci = bootstrap_ratio_ci(base.samples, head.samples, bo);
  c.method = TestMethod::kMannWhitney;
  c.ratio = ci.ratio;
  c.ci_lo = ci.lo;
  c.ci_hi = ci.hi;
  c.p_value = c.p_adjusted = mw.p_value;
}

}  // namespace

const char* perf_change_name(PerfChange c) {
  switch (c) {
    case PerfChange::kSlower:
      return "slower";
    case PerfChange::kFaster:
      return "faster";
    case PerfChange::kNoChange:
      return "no change";
    case PerfChange::kInsufficientData:
      return "insufficient data";
  }
  return "?";
}

const char* test_method_name(TestMethod m) {
  switch (m) {
    case TestMethod::kNone:
      return "none";
    case TestMethod::kMannWhitney:
      return "mann-whitney";
    case TestMethod::kWelchLog:
      return "welch-log";
    case TestMethod::kQuantileRange:
      return "quantile-range";
    case TestMethod::kRunMedians:
      return "run-medians";
  }
  return "?";
}

double slowdown(const PointComparison& c) {
  return c.direction == MetricDirection::kLowerIsBetter ? c.ratio : 1.0 / c.ratio;
}

PointComparison test_point(const BenchPoint* base, const BenchPoint* head,
                           const CompareOptions& opts) {
  PointComparison c;
  const BenchPoint* any = base ? base : head;
  c.id = any->id;
  c.label = format_point_label(c.id);
  c.unit = !any->unit.empty() ? any->unit : (base && head ? head->unit : "");
  c.direction = direction_for_unit(c.unit, opts.default_direction);
  c.ratio = kNaN;
  c.n_base = base ? count_of(*base) : 0;
  c.n_head = head ? count_of(*head) : 0;
  if (!base || !head) {
    insufficient(c, base ? "only in base results" : "only in head results");
    return c;
  }
  if (base->summary || head->summary) {
    SampleSummary sb = base->summary ? *base->summary : summarize(base->samples);
    SampleSummary sh = head->summary ? *head->summary : summarize(head->samples);
    apply_welch(c, log_estimate_from_summary(sb), log_estimate_from_summary(sh),
                TestMethod::kWelchLog, opts);
    return c;
  }
  const bool single_runs = base->from_perf_report && head->from_perf_report &&
                           base->samples.size() == 1 && head->samples.size() == 1;
  if (single_runs) {
    c.ratio = base->samples[0] != 0 ? head->samples[0] / base->samples[0] : kNaN;
    if (base->spread_lo && head->spread_lo && opts.assumed_samples_per_point >= 2) {
      test_quantile_range(c, *base, *head, opts);
    } else {
      insufficient(c, base->spread_lo && head->spread_lo
                          ? "one perf_report run per side: -min/-max give a spread but the "
                            "sample count is unknown (set assumed samples per point)"
                          : "one value per point and no spread: give repeated runs or "
                            "per-sample results");
    }
    return c;
  }
  // Several runs of samples on both sides (not perf_report's one value per run).
  auto multi_run = [](const BenchPoint& p) {
    return p.run_sizes.size() >= 2 && p.samples.size() > p.run_sizes.size();
  };
  if (opts.test_run_medians && multi_run(*base) && multi_run(*head)) {
    test_run_medians(c, *base, *head, opts);
    return c;
  }
  test_samples(c, *base, *head, opts);
  return c;
}

void decide_change(PointComparison& c, const CompareOptions& opts) {
  if (c.method == TestMethod::kNone || std::isnan(c.p_adjusted) || std::isnan(c.ratio)) {
    c.change = PerfChange::kInsufficientData;
    return;
  }
  const double s = slowdown(c);
  const bool significant = c.p_adjusted < opts.alpha;
  const bool material = std::fabs(s - 1.0) >= opts.min_effect;
  if (!significant || !material) {
    c.change = PerfChange::kNoChange;
  } else {
    c.change = s > 1 ? PerfChange::kSlower : PerfChange::kFaster;
  }
}

std::vector<PointComparison> compare_results(const BenchResults& base, const BenchResults& head,
                                             const CompareOptions& opts) {
  std::vector<PointComparison> out;
  for (const BenchPoint& b : base.points) {
    out.push_back(test_point(&b, head.find(format_point_label(b.id)), opts));
  }
  for (const BenchPoint& h : head.points) {
    if (!base.find(format_point_label(h.id))) out.push_back(test_point(nullptr, &h, opts));
  }
  std::vector<double> p;
  p.reserve(out.size());
  for (const PointComparison& c : out) p.push_back(c.p_value);
  std::vector<double> adj = adjust_p_values(p, opts.correction);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].p_adjusted = adj[i];
    decide_change(out[i], opts);
  }
  return out;
}

}  // namespace ksnap::perf
