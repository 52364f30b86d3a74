// Evaluates ksnap's per-point "did performance change?" decision on real
// H200 timing noise.
//
// Input: ../shared/data/h200-matmul-autotune-samples.json — 6 matmul shapes x
// 8 autotune configs, 400 individually timed launches each (us). For every
// (shape, config) point and every trial, base and head sample sets are drawn
// with replacement from the point's 400 samples:
//   null trials:  base and head from the same samples      -> false "changed" rate
//   shift trials: head values multiplied by 1.03 (3% slower) -> detection rate
// at the sample count Triton's do_bench would take for that point, and at
// fixed n = 10, 30, 100. Decisions are made by ksnap::perf::compare_results
// exactly as `ksnap diff --bench-base/--bench-head` makes them (Mann–Whitney,
// 1% practical threshold), without and with the correction over the 48
// points of a trial (Holm, Benjamini–Hochberg).
//
// do_bench's sample count: n_repeat = max(1, int(rep / estimate_ms)) with
// rep = 100 ms, where estimate_ms is the mean time of 5 iterations of
// (L2 flush: zeroing a 256 MiB buffer) + kernel. The flush was measured at
// 65 us on an H200 (cudaMemsetAsync of 256 MiB, mean of 200), and the
// kernel time is the file's do_bench_us. (Checked on the same H200:
// torch.matmul shapes give do_bench n within 7% of this formula.)
//
// Extra checks, no resampling: (a) first 200 vs last 200 samples of each
// point in time order; (b) real back-to-back do_bench runs
// (tests/perf/data/h200-dobench-runs.json), consecutive runs compared;
// (c) bootstrap CI coverage of the true ratio.
//
// Usage: noise_verdict_bench [--trials N] [--seed S] [--samples FILE] [--runs FILE]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ksnap/perf/bootstrap.h"
#include "ksnap/perf/compare.h"
#include "ksnap/perf/multiple_testing.h"
#include "ksnap/support/file.h"
#include "ksnap/support/json.h"

using namespace ksnap;
using namespace ksnap::perf;

namespace {

constexpr double kFlushUs = 65.0;    // measured, see the header comment
constexpr double kRepUs = 100000.0;  // do_bench rep = 100 ms
constexpr double kShift = 1.03;

struct Point {
  std::string label;
  size_t shape = 0;
  size_t config = 0;
  std::vector<double> samples;  // us, in time order
  double do_bench_us = 0;
  uint32_t do_bench_n = 0;
};

struct Data {
  std::vector<std::string> shapes;
  std::vector<Point> points;
};

bool fail(const Status& s) {
  std::fprintf(stderr, "noise_verdict_bench: %s\n", s.to_string().c_str());
  return false;
}

/// Numbers of the array at `n` into *out (a located error for anything else).
Status read_numbers(const json::Node& n, std::vector<double>* out) {
  KSNAP_RETURN_IF_ERROR(n.expect_array(json::Need::kRequired));
  out->resize(n.size());
  for (size_t i = 0; i < n.size(); ++i)
    KSNAP_RETURN_IF_ERROR(n[i].read(&(*out)[i], json::Need::kRequired));
  return Status::ok();
}

/// "512x512x512" from the shape array at `n`.
Status read_shape(const json::Node& n, std::string* name) {
  std::vector<double> dims;
  KSNAP_RETURN_IF_ERROR(read_numbers(n, &dims));
  for (double d : dims) {
    if (!name->empty()) name->push_back('x');
    name->append(std::to_string(static_cast<long>(d)));
  }
  return Status::ok();
}

bool load_samples(const std::string& path, Data& data) {
  auto buf = read_text_file(path);
  if (!buf) return fail(buf.status());
  auto doc = json::Document::parse(buf->view(), path);
  if (!doc) return fail(doc.status());
  json::Node shapes = doc->root()["shapes"];
  if (Status s = shapes.expect_array(json::Need::kRequired); !s) return fail(s);
  for (size_t i = 0; i < shapes.size(); ++i) {
    json::Node s = shapes[i], samples = s["samples_us"];
    std::string name;
    std::vector<double> do_bench;
    if (Status st = read_shape(s["shape"], &name); !st) return fail(st);
    if (Status st = read_numbers(s["do_bench_us"], &do_bench); !st) return fail(st);
    if (Status st = samples.expect_array(json::Need::kRequired); !st) return fail(st);
    if (samples.size() != do_bench.size())
      return fail(s.error("samples_us and do_bench_us differ in length"));
    data.shapes.push_back(name);
    for (size_t c = 0; c < samples.size(); ++c) {
      Point p;
      p.shape = data.shapes.size() - 1;
      p.config = c;
      p.label = "matmul[shape=" + name + ",config=" + std::to_string(c) + "]";
      if (Status st = read_numbers(samples[c], &p.samples); !st) return fail(st);
      p.do_bench_us = do_bench[c];
      p.do_bench_n =
          static_cast<uint32_t>(std::max(1.0, std::floor(kRepUs / (kFlushUs + p.do_bench_us))));
      data.points.push_back(std::move(p));
    }
  }
  return !data.points.empty();
}

BenchPoint make_point(const std::string& label, std::vector<double> samples) {
  BenchPoint p;
  p.id.name = label;
  p.samples = std::move(samples);
  p.unit = "us";
  return p;
}

std::vector<double> draw(const std::vector<double>& from, uint32_t n, double scale,
                         std::mt19937_64& rng) {
  std::vector<double> out(n);
  for (double& x : out) x = from[uniform_index(rng, from.size())] * scale;
  return out;
}

/// Counts over all decisions of one (n mode, correction).
struct Tally {
  uint64_t decisions = 0, changed = 0, slower = 0, faster = 0;
  uint64_t trials = 0, trials_with_change = 0;
  std::vector<uint64_t> per_shape_changed, per_shape_total, per_point_changed;
};

const Correction kCorrections[] = {Correction::kNone, Correction::kHolm,
                                   Correction::kBenjaminiHochberg};

/// Runs one trial's comparisons and adds its decisions to tallies[correction].
void record(const std::vector<PointComparison>& raw, const Data& data,
            const CompareOptions& base_opts, std::vector<Tally>& tallies) {
  std::vector<double> p;
  for (const PointComparison& c : raw) p.push_back(c.p_value);
  for (size_t k = 0; k < 3; ++k) {
    CompareOptions opts = base_opts;
    opts.correction = kCorrections[k];
    std::vector<double> adj = adjust_p_values(p, opts.correction);
    Tally& t = tallies[k];
    if (t.per_shape_total.empty()) {
      t.per_shape_changed.assign(data.shapes.size(), 0);
      t.per_shape_total.assign(data.shapes.size(), 0);
      t.per_point_changed.assign(data.points.size(), 0);
    }
    bool any = false;
    for (size_t i = 0; i < raw.size(); ++i) {
      PointComparison c = raw[i];
      c.p_adjusted = adj[i];
      decide_change(c, opts);
      const bool changed = c.change == PerfChange::kSlower || c.change == PerfChange::kFaster;
      ++t.decisions;
      t.changed += changed;
      t.slower += c.change == PerfChange::kSlower;
      t.faster += c.change == PerfChange::kFaster;
      t.per_shape_changed[data.points[i].shape] += changed;
      ++t.per_shape_total[data.points[i].shape];
      t.per_point_changed[i] += changed;
      any = any || changed;
    }
    ++t.trials;
    t.trials_with_change += any;
  }
}

double pct(uint64_t a, uint64_t b) {
  return b ? 100.0 * static_cast<double>(a) / static_cast<double>(b) : 0;
}

struct ModeResult {
  std::string name;
  std::vector<Tally> null_t = std::vector<Tally>(3), shift_t = std::vector<Tally>(3);
  std::vector<Tally> null_p_only = std::vector<Tally>(3);  // min_effect = 0
};

ModeResult run_mode(const Data& data, const std::string& name, uint32_t fixed_n, int trials,
                    uint64_t seed) {
  ModeResult r;
  r.name = name;
  CompareOptions opts;
  opts.correction = Correction::kNone;
  opts.bootstrap_resamples = 0;  // the decision uses the p-value and the estimate only
  CompareOptions p_only = opts;
  p_only.min_effect = 0;
  std::mt19937_64 rng(seed);
  for (int t = 0; t < trials; ++t) {
    for (int shifted = 0; shifted < 2; ++shifted) {
      BenchResults base, head;
      for (const Point& p : data.points) {
        const uint32_t n = fixed_n ? fixed_n : p.do_bench_n;
        (void)add_point(base, make_point(p.label, draw(p.samples, n, 1.0, rng)));
        (void)add_point(head, make_point(p.label, draw(p.samples, n, shifted ? kShift : 1.0, rng)));
      }
      std::vector<PointComparison> raw = compare_results(base, head, opts);
      if (shifted) {
        record(raw, data, opts, r.shift_t);
      } else {
        record(raw, data, opts, r.null_t);
        record(raw, data, p_only, r.null_p_only);
      }
    }
  }
  return r;
}

void print_summary(const std::vector<ModeResult>& modes) {
  std::printf("\n### False \"changed\" rate and 3%% detection rate (per point decisions)\n\n");
  std::printf(
      "| n per point | correction | false changed | trials with any false change | "
      "false changed, p only (no 1%% threshold) | 3%% shift detected | wrong direction |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const ModeResult& m : modes) {
    for (size_t k = 0; k < 3; ++k) {
      const Tally& n = m.null_t[k];
      const Tally& s = m.shift_t[k];
      const Tally& po = m.null_p_only[k];
      std::printf("| %s | %s | %.2f%% | %.1f%% | %.2f%% | %.2f%% | %.3f%% |\n", m.name.c_str(),
                  correction_name(kCorrections[k]), pct(n.changed, n.decisions),
                  pct(n.trials_with_change, n.trials), pct(po.changed, po.decisions),
                  pct(s.slower, s.decisions), pct(s.faster, s.decisions));
    }
  }
}

void print_per_shape(const std::vector<ModeResult>& modes, const Data& data, size_t k) {
  std::printf(
      "\n### Per shape, correction %s: false changed / 3%% detected (8 configs x trials)\n\n",
      correction_name(kCorrections[k]));
  std::printf("| shape |");
  for (const ModeResult& m : modes) std::printf(" n=%s |", m.name.c_str());
  std::printf("\n|---|");
  for (size_t i = 0; i < modes.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (size_t s = 0; s < data.shapes.size(); ++s) {
    std::printf("| %s |", data.shapes[s].c_str());
    for (const ModeResult& m : modes) {
      const Tally& n = m.null_t[k];
      const Tally& sh = m.shift_t[k];
      std::printf(" %.1f%% / %.1f%% |", pct(n.per_shape_changed[s], n.per_shape_total[s]),
                  pct(sh.per_shape_changed[s], sh.per_shape_total[s]));
    }
    std::printf("\n");
  }
  std::printf("| worst point |");
  for (const ModeResult& m : modes) {
    const Tally& n = m.null_t[k];
    const Tally& sh = m.shift_t[k];
    uint64_t worst_false = 0, worst_detect = UINT64_MAX;
    for (size_t i = 0; i < data.points.size(); ++i) {
      worst_false = std::max(worst_false, n.per_point_changed[i]);
      worst_detect = std::min(worst_detect, sh.per_point_changed[i]);
    }
    std::printf(" %.1f%% / %.1f%% |", pct(worst_false, n.trials), pct(worst_detect, sh.trials));
  }
  std::printf("\n");
}

/// (a) first half vs second half of each point's samples, in time order.
void time_order_check(const Data& data) {
  CompareOptions opts;
  opts.bootstrap_resamples = 0;
  for (int shifted = 0; shifted < 2; ++shifted) {
    BenchResults base, head;
    for (const Point& p : data.points) {
      const size_t h = p.samples.size() / 2;
      std::vector<double> a(p.samples.begin(), p.samples.begin() + h);
      std::vector<double> b(p.samples.begin() + h, p.samples.end());
      if (shifted)
        for (double& x : b) x *= kShift;
      (void)add_point(base, make_point(p.label, a));
      (void)add_point(head, make_point(p.label, b));
    }
    for (Correction c : kCorrections) {
      opts.correction = c;
      auto res = compare_results(base, head, opts);
      size_t changed = 0, slower = 0, p_sig = 0;
      for (const auto& r : res) {
        changed += r.change == PerfChange::kSlower || r.change == PerfChange::kFaster;
        slower += r.change == PerfChange::kSlower;
        p_sig += r.p_adjusted < opts.alpha;
      }
      std::printf("| %s | %s | %zu / %zu | %zu / %zu |\n", shifted ? "last half x1.03" : "none",
                  correction_name(c), shifted ? slower : changed, res.size(), p_sig, res.size());
    }
  }
}

/// (b) real back-to-back do_bench runs: run r vs run r+1 of each shape.
void real_runs_check(const std::string& path) {
  auto buf = read_text_file(path);
  if (!buf) {
    std::printf("(skipped: %s)\n", buf.status().to_string().c_str());
    return;
  }
  auto doc = json::Document::parse(buf->view(), path);
  if (!doc || !doc->root()["runs"].is_array()) {
    std::printf("(skipped: %s)\n", doc ? "no runs" : doc.status().to_string().c_str());
    return;
  }
  // runs[shape label][run index] = samples
  std::vector<std::pair<std::string, std::vector<std::vector<double>>>> by_shape;
  json::Node runs = doc->root()["runs"];
  for (size_t i = 0; i < runs.size(); ++i) {
    std::string name;
    std::vector<double> s;
    Status st = read_shape(runs[i]["shape"], &name);
    if (st) st = read_numbers(runs[i]["samples_us"], &s);
    if (!st) {
      std::printf("(skipped: %s)\n", st.to_string().c_str());
      return;
    }
    auto it = std::find_if(by_shape.begin(), by_shape.end(),
                           [&](const auto& e) { return e.first == name; });
    if (it == by_shape.end()) {
      by_shape.push_back({name, {}});
      it = by_shape.end() - 1;
    }
    it->second.push_back(std::move(s));
  }
  CompareOptions opts;
  opts.bootstrap_resamples = 0;
  opts.correction = Correction::kNone;
  std::printf(
      "| shape | runs | n per run | median drift between consecutive runs (max) | "
      "false changed | p < 0.05 alone | 3%% shift detected |\n|---|---|---|---|---|---|---|\n");
  size_t tot = 0, tot_changed = 0, tot_sig = 0, tot_det = 0;
  for (const auto& [name, runs] : by_shape) {
    size_t pairs = 0, changed = 0, sig = 0, det = 0;
    double max_drift = 0;
    size_t n_min = SIZE_MAX, n_max = 0;
    for (size_t r = 0; r + 1 < runs.size(); ++r) {
      n_min = std::min({n_min, runs[r].size(), runs[r + 1].size()});
      n_max = std::max({n_max, runs[r].size(), runs[r + 1].size()});
      BenchPoint a = make_point("matmul[shape=" + name + "]", runs[r]);
      BenchPoint b = make_point("matmul[shape=" + name + "]", runs[r + 1]);
      PointComparison c = test_point(&a, &b, opts);
      decide_change(c, opts);
      ++pairs;
      changed += c.change == PerfChange::kSlower || c.change == PerfChange::kFaster;
      sig += c.p_value < opts.alpha;
      max_drift = std::max(max_drift, std::fabs(c.ratio - 1));
      for (double& x : b.samples) x *= kShift;
      PointComparison d = test_point(&a, &b, opts);
      decide_change(d, opts);
      det += d.change == PerfChange::kSlower;
    }
    std::printf("| %s | %zu | %zu..%zu | %.2f%% | %zu / %zu | %zu / %zu | %zu / %zu |\n",
                name.c_str(), runs.size(), n_min, n_max, 100 * max_drift, changed, pairs, sig,
                pairs, det, pairs);
    tot += pairs;
    tot_changed += changed;
    tot_sig += sig;
    tot_det += det;
  }
  std::printf("| all | | | | %zu / %zu | %zu / %zu | %zu / %zu |\n", tot_changed, tot, tot_sig, tot,
              tot_det, tot);

  // 4 runs per side: every split of the 8 runs into two halves (35 per shape),
  // tested on per-run medians (ksnap's default with several runs per side)
  // and, for contrast, with all samples pooled into one Mann–Whitney test.
  std::printf("\n#### 4 runs per side, all 35 splits of the 8 runs per shape\n\n");
  std::printf("| test | false changed | 3%% shift detected |\n|---|---|---|\n");
  for (bool run_medians : {true, false}) {
    CompareOptions o = opts;
    o.test_run_medians = run_medians;
    size_t total = 0, false_changed = 0, detected = 0;
    for (const auto& [name, runs] : by_shape) {
      if (runs.size() != 8) continue;
      for (unsigned mask = 0; mask < 256; ++mask) {
        if (__builtin_popcount(mask) != 4 || !(mask & 1)) continue;  // each split once
        for (int shifted = 0; shifted < 2; ++shifted) {
          BenchResults base, head;
          for (size_t r = 0; r < 8; ++r) {
            std::vector<double> s = runs[r];
            const bool in_base = mask & (1u << r);
            if (!in_base && shifted)
              for (double& x : s) x *= kShift;
            (void)add_point(in_base ? base : head, make_point("matmul[shape=" + name + "]", s));
          }
          auto res = compare_results(base, head, o);
          const PerfChange ch = res[0].change;
          if (shifted) {
            detected += ch == PerfChange::kSlower;
          } else {
            ++total;
            false_changed += ch == PerfChange::kSlower || ch == PerfChange::kFaster;
          }
        }
      }
    }
    std::printf(
        "| %s | %zu / %zu (%.1f%%) | %zu / %zu (%.1f%%) |\n",
        run_medians ? "run medians, Welch log (default)" : "all samples pooled, Mann-Whitney",
        false_changed, total, pct(false_changed, total), detected, total, pct(detected, total));
  }
}

/// (c) how often the 95% bootstrap CI of the ratio of medians holds the true ratio.
void coverage_check(const Data& data, int trials, uint64_t seed) {
  std::printf("| n per point | true ratio | CI covers it | median CI width |\n|---|---|---|---|\n");
  for (uint32_t n : {10u, 30u, 100u}) {
    for (double shift : {1.0, kShift}) {
      std::mt19937_64 rng(seed + n);
      uint64_t covered = 0, total = 0;
      std::vector<double> widths;
      for (int t = 0; t < trials; ++t) {
        for (const Point& p : data.points) {
          // The true ratio of medians of the two populations is exactly `shift`.
          std::vector<double> a = draw(p.samples, n, 1.0, rng);
          std::vector<double> b = draw(p.samples, n, shift, rng);
          BootstrapOptions bo;
          bo.resamples = 1000;
          bo.seed = rng();
          RatioInterval ci = bootstrap_ratio_ci(a, b, bo);
          ++total;
          covered += ci.lo <= shift && shift <= ci.hi;
          widths.push_back(ci.hi - ci.lo);
        }
      }
      std::printf("| %u | %.2f | %.1f%% | %.2f%% |\n", n, shift, pct(covered, total),
                  100 * median(widths));
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  int trials = 1000;
  uint64_t seed = 20240601;
  std::string samples_path =
      std::string(KSNAP_SOURCE_DIR) + "/../shared/data/h200-matmul-autotune-samples.json";
  std::string runs_path = std::string(KSNAP_SOURCE_DIR) + "/tests/perf/data/h200-dobench-runs.json";
  for (int i = 1; i < argc; ++i) {
    auto next = [&](const char* flag) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", flag);
        std::exit(2);
      }
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--trials"))
      trials = std::max(1, std::atoi(next("--trials")));
    else if (!std::strcmp(argv[i], "--seed"))
      seed = std::strtoull(next("--seed"), nullptr, 10);
    else if (!std::strcmp(argv[i], "--samples"))
      samples_path = next("--samples");
    else if (!std::strcmp(argv[i], "--runs"))
      runs_path = next("--runs");
    else {
      std::fprintf(stderr, "usage: %s [--trials N] [--seed S] [--samples FILE] [--runs FILE]\n",
                   argv[0]);
      return 2;
    }
  }
  Data data;
  if (!load_samples(samples_path, data)) return 1;
  const auto t0 = std::chrono::steady_clock::now();
  std::printf(
      "## noise_verdict_bench: %zu points (%zu shapes x %zu configs), %d trials per mode, seed "
      "%llu\n",
      data.points.size(), data.shapes.size(), data.points.size() / data.shapes.size(), trials,
      static_cast<unsigned long long>(seed));
  std::printf(
      "Decision: Mann-Whitney two-sided, alpha 0.05, changed only if |ratio of medians - 1| >= "
      "1%%.\n");

  std::printf(
      "\n### do_bench sample count per point: int(100 ms / (65 us flush + do_bench_us))\n\n");
  std::printf("| shape | do_bench_us (configs) | n (configs) |\n|---|---|---|\n");
  for (size_t s = 0; s < data.shapes.size(); ++s) {
    double tmin = 1e18, tmax = 0;
    uint32_t nmin = UINT32_MAX, nmax = 0;
    for (const Point& p : data.points) {
      if (p.shape != s) continue;
      tmin = std::min(tmin, p.do_bench_us);
      tmax = std::max(tmax, p.do_bench_us);
      nmin = std::min(nmin, p.do_bench_n);
      nmax = std::max(nmax, p.do_bench_n);
    }
    std::printf("| %s | %.1f..%.1f | %u..%u |\n", data.shapes[s].c_str(), tmin, tmax, nmin, nmax);
  }

  std::vector<ModeResult> modes;
  modes.push_back(run_mode(data, "do_bench", 0, trials, seed));
  for (uint32_t n : {10u, 30u, 100u}) {
    modes.push_back(run_mode(data, std::to_string(n), n, trials, seed + n));
  }
  print_summary(modes);
  print_per_shape(modes, data, 0);
  print_per_shape(modes, data, 1);

  std::printf("\n### Time order, no resampling: first 200 vs last 200 samples of each point\n\n");
  std::printf("| head | correction | flagged changed | p_adj < 0.05 |\n|---|---|---|---|\n");
  time_order_check(data);

  std::printf(
      "\n### Real back-to-back do_bench runs on an H200 (torch.matmul fp16), run r vs r+1\n\n");
  real_runs_check(runs_path);

  const int cov_trials = std::max(1, trials / 10);
  std::printf(
      "\n### 95%% bootstrap CI of the ratio of medians: coverage (%d trials x %zu points, 1000 "
      "resamples)\n\n",
      cov_trials, data.points.size());
  coverage_check(data, cov_trials, seed);

  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("\n(total %.1f s)\n", secs);
  return 0;
}
