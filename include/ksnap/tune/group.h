// ksnap tune: autotune groups.
//
// A group is the set of compiled variants of one kernel with one argument
// layout. The program calls it like one kernel; the group decides, per
// workload key, which variant runs:
//
//   auto backend = std::make_shared<CudaBackend>(...);   // or CpuBackend
//   GroupOptions opt;  opt.name = "matmul";  opt.bucketing = Bucketing::pow2();
//   auto group = Group::create(backend, opt);            // Expected<unique_ptr<Group>>
//   (*group)->dispatch({M, N, K}, ArgPack().ptr(a).ptr(b).ptr(c).i32(M)..., stream);
//
// With GroupOptions::verify, a variant may win a workload only if its output
// on the tuning input matches the default variant's (verify.h).
//
// dispatch() after a decision is a lock-free lookup (an open-addressing table
// of atomics) and one backend launch. Before a decision, under the online
// policy, it explores: the race (race.h) picks the next variant, the backend
// launches it between two timing marks, and the results of earlier timed
// launches are polled without waiting; the commit publishes the choice and
// writes it to the tuning cache. Under the ahead-of-time and at-load
// policies, tune() races on synthetic arguments (args.h) and dispatch() only
// runs decisions (or the default variant for workloads never tuned).
//
// While a stream is captured into a CUDA graph, dispatch() never times: it
// launches the committed choice, else the current leader, else the default.
// Forcing a variant and disabling tuning work through the API and through
// KSNAP_TUNE_* (controls.h). report() gives per-variant n, median and
// confidence interval and the reason for every decision.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ksnap/support/status.h"
#include "ksnap/tune/args.h"
#include "ksnap/tune/backend.h"
#include "ksnap/tune/cache.h"
#include "ksnap/tune/controls.h"
#include "ksnap/tune/race.h"
#include "ksnap/tune/verify.h"
#include "ksnap/tune/workload.h"

namespace ksnap::tune {

/// What one commit decided: the commit callback's argument and, as one JSON
/// line, what KSNAP_TUNE_LOG records, so that every choice is visible.
struct CommitEvent {
  std::string group;
  std::string workload;      ///< The workload key as text ("64x64").
  size_t choice = 0;
  std::string choice_name;
  Decision decision = Decision::kExploring;
  std::string reason;
  /// The next-fastest variant with samples, and how much slower it is:
  /// runner_up_median / choice_median - 1 (0 when there is none).
  std::optional<size_t> runner_up;
  std::string runner_up_name;
  double margin = 0;
  size_t launches = 0;       ///< Timed launches this workload's race spent.
  /// Variants excluded by verification for this workload (their names).
  std::vector<std::string> excluded;
  /// {"group": .., "workload": .., "choice": .., "decision": .., "runner_up": ..,
  /// "margin": .., "launches": .., "excluded": [..], "reason": ..} on one line,
  /// no newline.
  std::string to_json() const;
};

struct GroupOptions {
  std::string name = "group";
  Policy policy = Policy::kOnline;
  RaceConfig race;
  Bucketing bucketing = Bucketing::exact();
  /// Needed by tune() on synthetic data (ahead-of-time, at-load).
  ArgLayout layout;
  /// At-load policy: tuned by create().
  std::vector<Workload> load_workloads;
  /// Tuning cache file; "" = none. KSNAP_TUNE_CACHE overrides.
  std::string cache_path;
  /// Runs when there is no decision and no exploring (disabled, capture, untuned).
  size_t default_variant = 0;
  /// Timed launches whose results are still unread, per workload.
  size_t max_in_flight = 32;
  /// Workload keys held in the lock-free table (more go to a locked overflow map).
  size_t table_capacity = 1024;
  /// Ahead-of-time tuning stops after this much wall time per workload (0: none).
  double tune_time_budget_s = 0.09;
  /// Online: once the timed exploration launches of a workload add up to
  /// this many milliseconds, the leader is committed ("budget"); 0 = none.
  double explore_budget_ms = 0;
  /// Online: at most this share of a workload's calls explore (are timed);
  /// the others run the current leader (or the default) untimed. 1 = every
  /// call until the decision; 0.25 = one call in four.
  double max_explore_share = 1.0;
  /// Verified variants (verify.h): before a workload's race, every variant's
  /// output on the tuning input is compared with the default variant's, and
  /// a mismatching one is excluded for that workload. Needs `layout`, with an
  /// element type for every output and in-out buffer.
  VerifyOptions verify;
  /// Read KSNAP_TUNE_* (controls.h).
  bool read_env = true;
  /// Called after every commit, under the workload's lock (keep it short; it
  /// must not dispatch on this group).
  std::function<void(const CommitEvent&)> on_commit;
  /// Agreement hook: called with this process's proposal before a race's
  /// decision is published; return a variant index to commit that instead
  /// (e.g. rank 0 broadcasts its choice and every rank adopts it), or
  /// nullopt to keep the proposal. The commit is then "adopted".
  std::function<std::optional<size_t>(const CommitEvent& proposal)> agree;
  /// With a cache file: a decision another process stored first for this
  /// workload and device is adopted instead of this race's (checked and
  /// written under the file's lock), so processes sharing the file agree.
  bool adopt_shared_decisions = true;
  /// Appends each commit to this file as one JSON line (CommitEvent::to_json),
  /// in one O_APPEND write, so processes may share it; "" = none.
  /// KSNAP_TUNE_LOG overrides (with read_env).
  std::string commit_log_path;
};

struct VariantReport {
  std::string name;
  size_t n = 0;  ///< kept samples
  double median_us = 0;
  double ci_low_us = 0, ci_high_us = 0;  ///< 95%: median ± 1.96 se
  bool alive = true;
  int eliminated_by = -1;
  /// Why verification excluded it for this workload ("" when it was not).
  std::string excluded;
};

struct WorkloadReport {
  std::string workload;
  Decision decision = Decision::kExploring;
  size_t choice = 0;
  std::string choice_name;
  std::string reason;  ///< human-readable
  size_t explore_launches = 0;
  double explore_us = 0;
  /// Exploration time beyond what the chosen variant's median would have cost.
  double regret_us = 0;
  double tuning_wall_s = 0;  ///< ahead-of-time/at-load tuning wall time
  std::vector<VariantReport> variants;
};

struct GroupReport {
  std::string group;
  std::string group_hash;
  std::string policy;
  std::string cache;  ///< path and load status
  std::vector<WorkloadReport> workloads;
  std::string to_text() const;
  std::string to_json() const;
};

class Group {
 public:
  /// Creates a group over `backend`'s variants. Errors: kInvalidArgument
  /// (no variants, bad default, malformed KSNAP_TUNE_*); a corrupt cache file
  /// is not an error (see report().cache). At-load workloads are tuned here.
  static Expected<std::unique_ptr<Group>> create(std::shared_ptr<Backend> backend,
                                                 GroupOptions options);
  ~Group();
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;

  /// Runs the chosen variant for `w`. Thread-safe.
  Status dispatch(const Workload& w, const ArgPack& args, Stream stream = nullptr);

  /// Ahead-of-time tuning of `w` on synthetic arguments from the layout.
  Status tune(const Workload& w, Stream stream = nullptr);
  /// Ahead-of-time tuning on the caller's arguments; in-out and output
  /// buffers (by the layout's roles) are restored afterwards.
  Status tune(const Workload& w, const ArgPack& args, Stream stream = nullptr);

  /// Runs variant `v` everywhere (nullopt: back to tuning decisions).
  Status force(std::optional<size_t> v);
  /// Stops (false) or resumes (true) exploration.
  void set_tuning_enabled(bool on) { tuning_enabled_.store(on, std::memory_order_relaxed); }

  /// The committed variant for `w`, if any.
  std::optional<size_t> decision(const Workload& w) const;
  GroupReport report() const;

  const std::string& name() const { return options_.name; }
  uint64_t group_hash() const { return group_hash_; }
  size_t variant_count() const { return names_.size(); }
  Backend& backend() { return *backend_; }

 private:
  struct State;
  struct InFlight {
    size_t variant;
    Ticket ticket;
  };

  Group(std::shared_ptr<Backend> backend, GroupOptions options);
  Status init();
  State* find(uint64_t key) const;
  State* find_or_create(uint64_t key, const Workload& w);
  void commit(State& st, size_t choice, Decision why, const std::string& reason);
  CommitEvent event_of(const State& st, size_t choice, Decision why, const std::string& reason) const;
  /// The commit callback and the commit log line of one commit.
  void announce(const CommitEvent& e);
  void drain(State& st);
  Status explore(State& st, const Workload& w, const ArgPack& args, Stream s);
  Status run_tuning(State& st, const Workload& w, const ArgPack& args, Stream s);
  /// Synthetic arguments for `w` from the layout; buffers go to `bufs`.
  Status make_synthetic(const Workload& w, ArgPack& args, std::vector<DeviceBuffer>& bufs);
  /// Runs every variant once on `args` and excludes those whose outputs
  /// differ from the default's (verify.h). Under st.mu.
  Status verify_variants(State& st, const Workload& w, const ArgPack& args, Stream s);
  Expected<size_t> variant_index(const std::string& spelled) const;
  WorkloadReport report_of(const State& st) const;

  std::shared_ptr<Backend> backend_;
  GroupOptions options_;
  EnvControls env_;
  std::vector<std::string> names_;
  std::vector<uint64_t> hashes_;
  uint64_t group_hash_ = 0;
  DeviceFingerprint device_;
  std::unique_ptr<TuningCache> cache_;
  std::string cache_status_;
  std::atomic<int> forced_{-1};
  std::atomic<bool> tuning_enabled_{true};
  std::atomic<bool> log_error_{false};  // the commit log's first error was said

  // Lock-free table: slot i holds a State* whose key hashes near i.
  std::unique_ptr<std::atomic<State*>[]> table_;
  size_t table_mask_ = 0;
  mutable std::mutex create_mu_;
  std::unordered_map<uint64_t, State*> overflow_;  // under create_mu_
  std::atomic<bool> has_overflow_{false};
  std::vector<std::unique_ptr<State>> states_;     // owns all states, under create_mu_
};

}  // namespace ksnap::tune
