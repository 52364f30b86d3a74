// ksnap record / baseline / log / store {verify, gc, info, ls, forget}: the
// history store (docs/history-store.md).
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "commands.h"
#include "ksnap/build/build.h"
#include "ksnap/build/unstable.h"
#include "ksnap/store/baseline.h"
#include "ksnap/store/date.h"
#include "ksnap/store/git.h"
#include "ksnap/history/log.h"
#include "ksnap/store/maintenance.h"
#include "ksnap/store/resolve.h"
#include "ksnap/store/store.h"
#include "ksnap/support/json.h"
#include "ksnap/support/text.h"

namespace ksnap::cli {

namespace {

std::string human_bytes(int64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 3) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

/// Commit ids are stored as git prints them: lowercase hex.
bool is_lower_sha(const std::string& s) {
  return store::looks_like_sha(s) && s.find_first_of("ABCDEF") == std::string::npos;
}

struct StoreFlags {
  std::string store = store::default_store_path();
  std::string repo = ".";
  void add(CLI::App* c, bool with_repo = true) {
    c->add_option("--store", store,
                  "History store file (default $KSNAP_STORE or .ksnap/history.db)");
    if (with_repo)
      c->add_option("--repo", repo, "Git work tree to ask about commits (default: .; '' = none)");
  }
};

// ---------------------------------------------------------------- record

struct RecordArgs {
  StoreFlags sf;
  std::string capture, commit, date, subject;
  std::vector<std::string> parents;
  int level = store::kDefaultLevel;
  bool replace = false, quiet = false;
};

int run_record(const RecordArgs& a) {
  store::RecordOptions o;
  o.level = a.level;
  o.replace = a.replace;
  o.parents = a.parents;
  o.subject = a.subject;
  // Ask git for the full id, parents, date and subject of the commit, where it knows it.
  const bool git_ok = !a.sf.repo.empty() && store::git::is_repository(a.sf.repo);
  if (git_ok) {
    auto sha = store::git::rev_parse(a.sf.repo, a.commit);
    if (sha) {
      o.sha = *sha;
      auto c = store::git::show(a.sf.repo, *sha);
      if (!c) return report_error(c.status());
      if (o.parents.empty()) o.parents = c->parents;
      o.date = c->date;
      if (o.subject.empty()) o.subject = c->subject;
    }
  }
  if (o.sha.empty()) {
    if (!is_lower_sha(a.commit))
      return report_error(
          make_error(ErrorCode::kInvalidArgument,
                     "--commit '" + a.commit +
                         "' is not a commit id (lowercase hex) and git does not know it"));
    o.sha = a.commit;
  }
  for (const std::string& p : o.parents)
    if (!is_lower_sha(p))
      return report_error(make_error(ErrorCode::kInvalidArgument,
                                     "--parent '" + p + "' is not a commit id (lowercase hex)"));
  if (!a.date.empty()) {
    auto d = store::parse_date(a.date);
    if (!d) return report_error(d.status());
    o.date = *d;
  }
  auto b = build::load_build(a.capture);
  if (!b) return report_error(b.status());
  auto s = store::Store::open(a.sf.store, /*create=*/true);
  if (!s) return report_error(s.status());
  Progress progress("recording variants", !a.quiet);
  o.progress = [&progress](size_t done, size_t total) { progress.update(done, total); };
  auto st = s->record(*b, o);
  progress.finish();
  if (!st) return report_error(st.status());
  for (const std::string& w : st->warnings)
    std::cerr << "ksnap: warning: " << escape_control(w) << "\n";
  if (a.quiet) return kExitOk;
  auto stats = s->stats();
  std::cout << (st->already_recorded ? "already recorded "
                : st->replaced       ? "re-recorded "
                                     : "recorded ")
            << o.sha.substr(0, 12) << ": " << st->variants << " variants, " << st->stages
            << " stages; " << st->new_blobs << " new blobs (" << human_bytes(st->new_blob_bytes)
            << " compressed from " << human_bytes(st->new_raw_bytes) << "), " << st->reused_blobs
            << " unchanged";
  if (stats) std::cout << "; store " << human_bytes(stats->db_bytes);
  if (st->unstable)
    std::cout << "; " << st->unstable << " unstable variant-stages (" << st->new_unstable
              << " new)";
  std::cout << "\n";
  return kExitOk;
}

// ---------------------------------------------------------------- baseline

struct BaselineArgs {
  StoreFlags sf;
  std::string for_rev, base_ref, format = "text";
  bool exclude_self = false;
};

int run_baseline(const BaselineArgs& a) {
  auto s = store::Store::open_read_only(a.sf.store);
  if (!s) return report_error(s.status());
  store::BaselineQuery q;
  q.for_rev = a.for_rev;
  q.base_ref = a.base_ref;
  q.repo = a.sf.repo;
  q.exclude_self = a.exclude_self;
  auto r = store::find_baseline(*s, q);
  if (!r) return report_error(r.status());
  if (a.format == "sha") {
    std::cout << r->baseline.sha << "\n";
  } else if (a.format == "json") {
    nlohmann::json j;
    j["for"] = r->for_sha;
    j["start"] = r->start_sha;
    j["from_merge_base"] = r->from_merge_base;
    j["base_ref"] = r->base_ref;
    j["baseline"] = r->baseline.sha;
    j["baseline_date"] = r->baseline.date;
    j["baseline_subject"] = r->baseline.subject;
    j["exact"] = r->exact();
    j["hops"] = r->hops;
    j["commits_behind"] = r->commits_behind;
    j["days_behind"] = r->days_behind ? nlohmann::json(*r->days_behind) : nlohmann::json(nullptr);
    j["used_git"] = r->used_git;
    j["description"] = r->describe();
    std::cout << json::dump(std::move(j), 2) << "\n";
  } else {
    std::cout << r->describe() << "\n";
  }
  return kExitOk;
}

// ---------------------------------------------------------------- log

struct LogArgs {
  StoreFlags sf;
  std::string kernel, stage, from, format = "text";
  size_t max_count = 0;
  bool no_summary = false;
};

int run_log(const LogArgs& a) {
  auto s = store::Store::open_read_only(a.sf.store);
  if (!s) return report_error(s.status());
  history::LogQuery q;
  q.kernel = a.kernel;
  q.stage = a.stage;
  q.from = a.from;
  q.repo = a.sf.repo;
  q.max_count = a.max_count;
  q.summaries = !a.no_summary;
  Progress progress("walking recorded commits", true);
  q.progress = [&progress](size_t done, size_t total) { progress.update(done, total); };
  auto log = history::kernel_log(*s, q);
  progress.finish();
  if (!log) return report_error(log.status());
  if (a.format == "json") {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : *log) {
      nlohmann::json je;
      je["commit"] = e.commit.sha;
      je["parent"] = e.parent;
      je["date"] = e.commit.date;
      je["subject"] = e.commit.subject;
      for (const auto& k : e.kernels) {
        nlohmann::json jk;
        jk["kernel"] = k.kernel;
        jk["variants"] = k.changed;
        jk["unstable_variants"] = k.unstable;  // every differing stage known unstable
        jk["variants_total"] = k.variants_total;
        jk["added"] = k.added;
        jk["removed"] = k.removed;
        for (const auto& st : k.stages)
          jk["stages"].push_back({{"stage", st.stage},
                                  {"variants", st.variants},
                                  {"lines_added", st.lines_added},
                                  {"lines_removed", st.lines_removed},
                                  {"unstable", st.unstable}});
        je["kernels"].push_back(jk);
      }
      out.push_back(je);
    }
    std::cout << json::dump(std::move(out), 2) << "\n";
    return kExitOk;
  }
  for (const auto& e : *log)
    for (const auto& k : e.kernels) std::cout << history::format_log_line(e, k) << "\n";
  return kExitOk;
}

// ---------------------------------------------------------------- store *

int run_verify(const StoreFlags& sf) {
  auto s = store::Store::open_read_only(sf.store);
  if (!s) return report_error(s.status());
  auto r = store::verify(*s);
  if (!r) return report_error(r.status());
  for (const std::string& p : r->problems) std::cout << "problem: " << p << "\n";
  for (const std::string& id : r->renormalized)
    std::cout << "note: blob " << id
              << " normalizes to another id now (the normalizer changed since it was recorded)\n";
  std::cout << (r->ok() ? "ok: " : "CORRUPT: ") << r->commits << " commits, " << r->trees
            << " trees, " << r->variants << " variant records, " << r->blobs << " blobs ("
            << human_bytes(r->raw_bytes) << " of IR) checked; " << r->problems.size()
            << " problems\n";
  if (!r->ok())
    return report_error(make_error(ErrorCode::kCorrupt,
                                   std::to_string(r->problems.size()) + " problems found",
                                   {sf.store, 0, 0}));
  return kExitOk;
}

int run_gc(const StoreFlags& sf, bool vacuum) {
  auto s = store::Store::open(sf.store);
  if (!s) return report_error(s.status());
  auto g = store::gc(*s, vacuum);
  if (!g) return report_error(g.status());
  std::cout << "gc: dropped " << g->trees << " trees, " << g->variants << " variant records, "
            << g->blobs << " blobs (" << human_bytes(g->blob_bytes) << "); file "
            << human_bytes(g->file_bytes_before) << " -> " << human_bytes(g->file_bytes_after)
            << "\n";
  return kExitOk;
}

int run_info(const StoreFlags& sf) {
  auto s = store::Store::open_read_only(sf.store);
  if (!s) return report_error(s.status());
  auto st = s->stats();
  if (!st) return report_error(st.status());
  std::cout << sf.store << ": " << st->commits << " commits, " << st->trees << " trees, "
            << st->variants << " variant records, " << st->blobs << " blobs ("
            << human_bytes(st->raw_bytes) << " of IR stored in " << human_bytes(st->stored_bytes)
            << "); database " << human_bytes(st->db_bytes) << ", on disk with WAL "
            << human_bytes(st->file_bytes) << "\n";
  return kExitOk;
}

int run_ls(const StoreFlags& sf) {
  auto s = store::Store::open_read_only(sf.store);
  if (!s) return report_error(s.status());
  auto all = s->commits();
  if (!all) return report_error(all.status());
  for (auto it = all->rbegin(); it != all->rend(); ++it) {
    // Build names and subjects come from the recorded capture and commit:
    // controls and bidi characters are shown escaped, never sent raw.
    std::cout << escape_control(it->sha.substr(0, 12)) << " " << store::format_date(it->date) << " "
              << escape_control(it->build_name);
    if (!it->parents.empty())
      std::cout << " parent " << escape_control(it->parents[0].substr(0, 12));
    if (!it->subject.empty()) std::cout << "  " << escape_control(it->subject);
    std::cout << "\n";
  }
  return kExitOk;
}

int run_unstable(const StoreFlags& sf, const std::string& format) {
  auto s = store::Store::open_read_only(sf.store);
  if (!s) return report_error(s.status());
  auto facts = s->unstable();
  if (!facts) return report_error(facts.status());
  if (format == "json") {
    // One unstable.json (usable with `ksnap diff --unstable-from`), plus where each came from.
    build::UnstableReport all;
    nlohmann::json first = nlohmann::json::array();
    for (const auto& f : *facts) {
      all.variants.push_back(f.variant);
      first.push_back({{"first_commit", f.first_commit}, {"recorded_at", f.recorded_at}});
    }
    auto parsed = json::parse(build::unstable_json(all), "unstable report");
    if (!parsed) return report_error(parsed.status());
    nlohmann::json j = std::move(*parsed);
    for (size_t i = 0; i < first.size(); ++i) j["variants"][i]["history"] = first[i];
    std::cout << json::dump(std::move(j), 1) << "\n";
    return kExitOk;
  }
  for (const auto& f : *facts) {
    const build::Variant& v = f.variant.variant;
    std::cout << escape_control(f.first_commit.substr(0, 12)) << " "
              << store::format_date(f.recorded_at) << " " << escape_control(v.kernel);
    if (!v.source().empty()) std::cout << " (" << escape_control(v.source()) << ")";
    std::cout << " " << escape_control(v.constexprs_text()) << " "
              << escape_control(v.options_text()) << ": "
              << escape_control(f.variant.stages[0].stage) << "\n";
  }
  std::cout << facts->size() << " unstable variant-stages known\n";
  return kExitOk;
}

int run_forget(const StoreFlags& sf, const std::vector<std::string>& revs) {
  auto s = store::Store::open(sf.store);
  if (!s) return report_error(s.status());
  for (const std::string& rev : revs) {
    auto sha = store::resolve_commit(rev, sf.store, sf.repo);
    if (!sha) return report_error(sha.status());
    Status st = s->forget(*sha);
    if (!st.is_ok()) return report_error(st);
    std::cout << "forgot " << sha->substr(0, 12) << " (run `ksnap store gc` to free its blobs)\n";
  }
  return kExitOk;
}

}  // namespace

void register_store_commands(CLI::App& app, Context& ctx) {
  auto ra = std::make_shared<RecordArgs>();
  CLI::App* r = app.add_subcommand("record", "Record a capture as the IR of a commit");
  r->add_option("capture", ra->capture, "Capture folder (or Triton cache folder)")->required();
  r->add_option("--commit", ra->commit, "Commit id (or a revision git resolves)")->required();
  r->add_option("--parent", ra->parents, "Parent commit id (repeatable; default: from git)")
      ->allow_extra_args(false);
  r->add_option("--date", ra->date, "Commit date: Unix seconds or ISO 8601 (default: from git)");
  r->add_option("--subject", ra->subject, "Commit subject (default: from git)");
  r->add_option("--level", ra->level, "zstd level for new blobs (default 12)")
      ->check(CLI::Range(1, 22));
  r->add_flag("--replace", ra->replace, "Overwrite an earlier record of this commit");
  r->add_flag("--quiet,-q", ra->quiet, "Print nothing on success");
  ra->sf.add(r);
  r->callback([ra, &ctx] { ctx.exit_code = run_record(*ra); });

  auto ba = std::make_shared<BaselineArgs>();
  CLI::App* b = app.add_subcommand("baseline", "Find the recorded baseline of a commit or PR");
  b->add_option("--for", ba->for_rev, "The PR head (commit id or revision)")->required();
  b->add_option("--base-ref", ba->base_ref,
                "Start from the merge-base with this ref (origin/main)");
  b->add_flag("--ancestor-only", ba->exclude_self,
              "Skip the start commit itself (compare a main commit with its predecessor)");
  b->add_option("--format,-f", ba->format, "text (default), json, sha")
      ->check(CLI::IsMember({"text", "json", "sha"}));
  ba->sf.add(b);
  b->callback([ba, &ctx] { ctx.exit_code = run_baseline(*ba); });

  auto la = std::make_shared<LogArgs>();
  CLI::App* l = app.add_subcommand("log", "List the recorded commits where a kernel's IR changed");
  l->add_option("kernel", la->kernel, "Kernel name (default: every kernel)");
  l->add_option("--stage", la->stage, "Only this stage (ttir, ttgir, llir, ptx, ...)");
  l->add_option("--from", la->from, "Walk back from this commit (default: the last recorded)");
  l->add_option("--max-count,-n", la->max_count, "Show at most N commits");
  l->add_option("--format,-f", la->format, "text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  l->add_flag("--no-summary", la->no_summary, "Do not run the diff engine for lines +/-");
  la->sf.add(l);
  l->callback([la, &ctx] { ctx.exit_code = run_log(*la); });

  CLI::App* st = app.add_subcommand("store", "Maintain the history store");
  st->require_subcommand(1);
  auto sf = std::make_shared<StoreFlags>();
  CLI::App* v = st->add_subcommand("verify", "Check every blob, record, tree and commit");
  sf->add(v, false);
  v->callback([sf, &ctx] { ctx.exit_code = run_verify(*sf); });
  auto vacuum = std::make_shared<bool>(false);
  CLI::App* g = st->add_subcommand("gc", "Drop blobs and records no commit reaches");
  g->add_flag("--vacuum", *vacuum, "Also rewrite the file to return the space");
  sf->add(g, false);
  g->callback([sf, vacuum, &ctx] { ctx.exit_code = run_gc(*sf, *vacuum); });
  CLI::App* i = st->add_subcommand("info", "Counts and sizes");
  sf->add(i, false);
  i->callback([sf, &ctx] { ctx.exit_code = run_info(*sf); });
  CLI::App* ls = st->add_subcommand("ls", "List recorded commits, newest first");
  sf->add(ls, false);
  ls->callback([sf, &ctx] { ctx.exit_code = run_ls(*sf); });
  auto uformat = std::make_shared<std::string>("text");
  CLI::App* un = st->add_subcommand(
      "unstable", "List the variant-stages known to compile nondeterministically");
  un->add_option("--format,-f", *uformat, "text (default) or json (an unstable.json)")
      ->check(CLI::IsMember({"text", "json"}));
  sf->add(un, false);
  un->callback([sf, uformat, &ctx] { ctx.exit_code = run_unstable(*sf, *uformat); });
  auto revs = std::make_shared<std::vector<std::string>>();
  CLI::App* f = st->add_subcommand("forget", "Drop the records of commits (then run gc)");
  f->add_option("commits", *revs, "Commit ids")->required();
  sf->add(f);
  f->callback([sf, revs, &ctx] { ctx.exit_code = run_forget(*sf, *revs); });
}

}  // namespace ksnap::cli
