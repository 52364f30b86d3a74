// ksnap tune replay / ksnap tune cache / ksnap tune groups.
#include <algorithm>
#include <cstdio>
#include <memory>

#include "commands.h"
#include "ksnap/support/file.h"
#include "ksnap/support/hash.h"
#include "ksnap/support/text.h"
#include "ksnap/tune/cache.h"
#include "ksnap/tune/capture.h"
#include "ksnap/tune/replay.h"

namespace ksnap::cli {

namespace {

struct ReplayArgs {
  std::string samples;
  std::string format = "text";
  std::string mode = "iid";
  std::string estimator = "median";
  size_t trials = 1000;
  uint64_t seed = 1;
  size_t lag = 2;
  double tolerance = 0.01;
  double confidence = 0.99;
  double tie_tolerance = 0.01;
  size_t budget = 0;
  bool paired_race = false;
  bool exit_code = false;
};

int run_replay(const ReplayArgs& a) {
  auto samples = tune::load_samples(a.samples);
  if (!samples) return report_error(samples.status());
  tune::ReplayConfig cfg;
  cfg.trials = a.trials;
  cfg.seed = a.seed;
  cfg.lag = a.lag;
  cfg.tolerance = a.tolerance;
  cfg.confidence = a.confidence;
  auto mode = tune::parse_replay_mode(a.mode);
  if (!mode) return report_error(mode.status());
  cfg.mode = *mode;
  auto est = tune::parse_estimator(a.estimator);
  if (!est) return report_error(est.status());
  cfg.race.estimator = *est;
  cfg.race.tie_tolerance = a.tie_tolerance;
  cfg.race.paired = a.paired_race;
  if (a.budget) cfg.race.max_launches = a.budget * samples->variant_names.size();
  auto r = tune::replay(*samples, cfg);
  if (!r) return report_error(r.status());
  std::string out = a.format == "json" ? tune::replay_to_json(*r) : tune::replay_to_text(*r);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return a.exit_code && !r->meets() ? kExitDifferences : kExitOk;
}

int run_cache(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return report_error(text.status());
  auto entries = tune::parse_cache(text->view(), path);
  if (!entries) return report_error(entries.status());
  // Names come from the file: shown with control characters escaped.
  auto shown = [](const std::string& s) { return escape_control(s, /*keep_tab=*/false); };
  for (const auto& e : *entries)
    std::printf("%s %-10s %-24s -> #%zu %s [%s] on %s %s driver %d\n", hex64(e.group_hash).c_str(),
                shown(e.group_name).c_str(), shown(e.workload).c_str(), e.choice,
                shown(e.choice_name).c_str(), shown(e.decision).c_str(),
                shown(e.device.name).c_str(), shown(e.device.uuid).c_str(),
                e.device.driver_version);
  std::printf("%zu entries\n", entries->size());
  return kExitOk;
}

/// One line per kernel of the capture (one autotune group each): the
/// selector that picks it, its variants and where it is defined.
int run_groups(const std::string& dir) {
  auto kernels = tune::list_capture_kernels(dir);
  if (!kernels) return report_error(kernels.status());
  auto shown = [](const std::string& s) { return escape_control(s, /*keep_tab=*/false); };
  size_t width = 0;
  for (const auto& k : *kernels) width = std::max(width, shown(k.selector).size());
  for (const auto& k : *kernels) {
    const char* kind = k.source_kind == capture::SourceKind::kModule ? "module"
                       : k.source_kind == capture::SourceKind::kFile ? "file"
                                                                      : "source unknown";
    std::printf("%-*s %4zu %-8s %s%s%s\n", static_cast<int>(width), shown(k.selector).c_str(),
                k.variants, k.variants == 1 ? "variant" : "variants", kind,
                k.source.empty() ? "" : " ", shown(k.source).c_str());
  }
  std::printf("%zu %s\n", kernels->size(), kernels->size() == 1 ? "group" : "groups");
  return kExitOk;
}

}  // namespace

void register_tune_commands(CLI::App& app, Context& ctx) {
  CLI::App* t = app.add_subcommand("tune", "Autotune groups: list a capture's groups, replay recorded timings, inspect caches");
  t->require_subcommand(1);

  auto ra = std::make_shared<ReplayArgs>();
  CLI::App* r = t->add_subcommand(
      "replay", "Replay per-launch timings through the online race with a fake clock");
  r->add_option("samples", ra->samples, "Samples JSON (e.g. ../shared/data/h200-matmul-autotune-samples.json)")
      ->required();
  r->add_option("--format,-f", ra->format, "text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  r->add_option("--trials", ra->trials, "Seeded trials per workload (default 1000)")
      ->check(CLI::Range(size_t{1}, size_t{1000000}));
  r->add_option("--seed", ra->seed, "Base seed (default 1)");
  r->add_option("--mode", ra->mode, "iid (default): samples drawn independently; paired: one "
                                    "recorded round per race round")
      ->check(CLI::IsMember({"iid", "paired"}));
  r->add_option("--lag", ra->lag, "Launches before a timing reaches the race (default 2)");
  r->add_option("--tolerance", ra->tolerance, "A pick within this of the best median is a hit (0.01)");
  r->add_option("--confidence", ra->confidence, "Hit rate exhaustive timing must reach (0.99)");
  r->add_option("--estimator", ra->estimator, "median (default) or trimmed_mean")
      ->check(CLI::IsMember({"median", "trimmed_mean"}));
  r->add_option("--tie-tolerance", ra->tie_tolerance, "The race's tie tolerance (0.01)");
  r->add_option("--budget", ra->budget, "Launch budget per variant (default 32)");
  r->add_flag("--paired-race", ra->paired_race, "Race on per-round log ratios");
  r->add_flag("--exit-code", ra->exit_code, "Exit 1 when the bar (>=99% hits, <=25% launches) is missed");
  r->callback([ra, &ctx] { ctx.exit_code = run_replay(*ra); });

  auto path = std::make_shared<std::string>();
  CLI::App* c = t->add_subcommand("cache", "List the decisions in a tuning cache file");
  c->add_option("file", *path, "Cache file (KSNAP_TUNE_CACHE)")->required();
  c->callback([path, &ctx] { ctx.exit_code = run_cache(*path); });

  auto capture_dir = std::make_shared<std::string>();
  CLI::App* g = t->add_subcommand(
      "groups", "List a capture's kernels: one autotune group each, by name and source");
  g->add_option("capture", *capture_dir, "Capture folder (manifest.json)")->required();
  g->callback([capture_dir, &ctx] { ctx.exit_code = run_groups(*capture_dir); });
}

}  // namespace ksnap::cli
