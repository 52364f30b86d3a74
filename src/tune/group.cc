// An autotune group's front: creation and initialization (the persistent
// cache is read, forced choices applied), the lock-free workload table and
// dispatch. Racing variants is group_tuning.cc; committing and announcing a
// choice is group_commit.cc; a workload's state is group_state.h.

#include "ksnap/tune/group.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <nlohmann/json.hpp>

#include "ksnap/support/hash.h"
#include "tune/group_state.h"

namespace ksnap::tune {

namespace {

uint64_t slot_of(uint64_t key) { return key * 0x9E3779B97F4A7C15ULL >> 17; }

}  // namespace

Group::Group(std::shared_ptr<Backend> backend, GroupOptions options)
    : backend_(std::move(backend)), options_(std::move(options)) {}

Group::~Group() {
  if (env_.report_path && !env_.report_path->empty()) {
    std::string text = report().to_text();
    if (*env_.report_path == "stderr") {
      std::fputs(text.c_str(), stderr);
    } else if (FILE* f = std::fopen(env_.report_path->c_str(), "a")) {
      std::fputs(text.c_str(), f);
      std::fclose(f);
    }
  }
  for (auto& st : states_)
    for (auto& p : st->pending) backend_->release(p.ticket);
}

Expected<std::unique_ptr<Group>> Group::create(std::shared_ptr<Backend> backend,
                                               GroupOptions options) {
  if (!backend || backend->variant_count() == 0)
    return make_error(ErrorCode::kInvalidArgument, "group '" + options.name + "' has no variants");
  std::unique_ptr<Group> g(new Group(std::move(backend), std::move(options)));
  KSNAP_RETURN_IF_ERROR(g->init());
  return g;
}

Status Group::init() {
  const size_t n = backend_->variant_count();
  if (options_.default_variant >= n)
    return make_error(ErrorCode::kInvalidArgument, "default variant " +
                                                       std::to_string(options_.default_variant) +
                                                       " out of range (" + std::to_string(n) + ")");
  if (!(options_.max_explore_share > 0 && options_.max_explore_share <= 1))
    return make_error(ErrorCode::kInvalidArgument,
                      "max_explore_share must be in (0, 1], not " + std::to_string(options_.max_explore_share));
  if (!(options_.explore_budget_ms >= 0))
    return make_error(ErrorCode::kInvalidArgument, "explore_budget_ms must be >= 0");
  if (options_.verify.enabled) {
    const std::string who = "group '" + options_.name + "': verify ";
    if (options_.layout.empty())
      return make_error(ErrorCode::kInvalidArgument,
                        who + "needs an ArgLayout (which buffers are outputs, their sizes and element types)");
    bool any_output = false;
    for (const ArgSpec& a : options_.layout.args()) {
      if (a.type != ArgType::kPointer || a.role == Role::kInput) continue;
      any_output = true;
      if (a.element == ElementType::kUnspecified)
        return make_error(ErrorCode::kInvalidArgument,
                          who + "cannot compare buffer '" + a.name +
                              "': give its element type (ArgLayout::buffer's last argument)");
    }
    if (!any_output)
      return make_error(ErrorCode::kInvalidArgument,
                        who + "needs at least one output or in-out buffer in the layout");
    for (const auto& [t, tol] : options_.verify.tolerance)
      if (!(tol.atol >= 0 && tol.rtol >= 0))
        return make_error(ErrorCode::kInvalidArgument,
                          who + "tolerance for " + element_name(t) + " must be >= 0");
  }
  if (options_.read_env) {
    KSNAP_ASSIGN_OR_RETURN(env_, read_env_controls());
    if (env_.policy) options_.policy = *env_.policy;
    if (env_.tie_tolerance) options_.race.tie_tolerance = *env_.tie_tolerance;
    if (env_.budget_per_variant) options_.race.max_launches = *env_.budget_per_variant * n;
    if (env_.estimator) options_.race.estimator = *env_.estimator;
    if (env_.cache_path) options_.cache_path = *env_.cache_path;
    if (env_.commit_log_path) options_.commit_log_path = *env_.commit_log_path;
    if (env_.disable) tuning_enabled_ = false;
  }
  Hasher h;
  h.update_u64(n);
  for (size_t v = 0; v < n; ++v) {
    names_.push_back(backend_->variant_name(v));
    hashes_.push_back(backend_->variant_hash(v));
    h.update_u64(hashes_.back());
  }
  group_hash_ = h.digest();
  device_ = backend_->device();
  size_t slots = 16;
  while (slots < 2 * options_.table_capacity) slots <<= 1;
  table_ = std::make_unique<std::atomic<State*>[]>(slots);
  for (size_t i = 0; i < slots; ++i) table_[i].store(nullptr, std::memory_order_relaxed);
  table_mask_ = slots - 1;
  if (!options_.cache_path.empty()) {
    cache_ = std::make_unique<TuningCache>(options_.cache_path);
    Status s = cache_->load();
    // Malformed entries leave the others usable; any other error, nothing.
    std::string count = ": " + std::to_string(cache_->entries().size()) + " entries";
    cache_status_ =
        options_.cache_path + (s.is_ok()                 ? count
                               : cache_->malformed() > 0 ? count + ", " + s.to_string()
                                                         : ": ignored, " + s.to_string());
    if (!s.is_ok()) std::fprintf(stderr, "ksnap tune: %s\n", cache_status_.c_str());
  } else {
    cache_status_ = "none";
  }
  std::string f = env_.force_for(options_.name);
  if (!f.empty()) {
    KSNAP_ASSIGN_OR_RETURN(size_t v, variant_index(f));
    forced_ = static_cast<int>(v);
  }
  if (options_.policy == Policy::kAtLoad)
    for (const Workload& w : options_.load_workloads) KSNAP_RETURN_IF_ERROR(tune(w));
  return Status::ok();
}

Expected<size_t> Group::variant_index(const std::string& spelled) const {
  for (size_t v = 0; v < names_.size(); ++v)
    if (names_[v] == spelled) return v;
  char* end = nullptr;
  unsigned long i = std::strtoul(spelled.c_str(), &end, 10);
  if (!spelled.empty() && end && *end == '\0' && i < names_.size()) return static_cast<size_t>(i);
  return make_error(ErrorCode::kInvalidArgument,
                    "group '" + options_.name + "' has no variant '" + spelled + "'");
}

Status Group::force(std::optional<size_t> v) {
  if (v && *v >= names_.size())
    return make_error(ErrorCode::kInvalidArgument, "no variant " + std::to_string(*v));
  forced_.store(v ? static_cast<int>(*v) : -1, std::memory_order_release);
  return Status::ok();
}

Group::State* Group::find(uint64_t key) const {
  size_t i = slot_of(key);
  for (size_t probe = 0; probe <= table_mask_; ++probe) {
    State* s = table_[(i + probe) & table_mask_].load(std::memory_order_acquire);
    if (!s) break;  // the table never had this key
    if (s->key == key) return s;
  }
  if (!has_overflow_.load(std::memory_order_acquire)) return nullptr;
  std::lock_guard<std::mutex> lock(create_mu_);
  auto it = overflow_.find(key);
  return it == overflow_.end() ? nullptr : it->second;
}

Group::State* Group::find_or_create(uint64_t key, const Workload& w) {
  if (State* s = find(key)) return s;
  std::lock_guard<std::mutex> lock(create_mu_);
  // Re-check under the lock (another thread may have created it).
  size_t i = slot_of(key);
  size_t free_slot = SIZE_MAX;
  for (size_t probe = 0; probe <= table_mask_; ++probe) {
    size_t at = (i + probe) & table_mask_;
    State* s = table_[at].load(std::memory_order_acquire);
    if (!s) {
      free_slot = at;
      break;
    }
    if (s->key == key) return s;
  }
  if (auto it = overflow_.find(key); it != overflow_.end()) return it->second;
  auto st = std::make_unique<State>(key, options_.bucketing.label(w), names_.size(), options_.race);
  State* raw = st.get();
  if (raw->race.committed()) {  // a group of one
    raw->decision = Decision::kSingle;
    raw->reason = "single: the group has one variant";
    raw->committed.store(0, std::memory_order_relaxed);
  } else if (cache_) {
    CacheLookup hit = cache_->lookup(group_hash_, raw->label, device_,
                                     [&](size_t v) { return v < hashes_.size() ? hashes_[v] : 0; });
    if (hit.entry && hit.entry->choice < names_.size()) {
      raw->decision = Decision::kCached;
      raw->reason = "cached: " + cache_->path() + " (decided '" + hit.entry->decision + "')";
      raw->cached_medians = hit.entry->median_us;
      raw->committed.store(static_cast<int>(hit.entry->choice), std::memory_order_relaxed);
    } else if (hit.why_not != "no entry") {
      raw->reason = "cache entry not used, " + hit.why_not;
    }
  }
  states_.push_back(std::move(st));
  if (states_.size() <= options_.table_capacity && free_slot != SIZE_MAX)
    table_[free_slot].store(raw, std::memory_order_release);
  else {
    overflow_[key] = raw;
    has_overflow_.store(true, std::memory_order_release);
  }
  return raw;
}

Status Group::dispatch(const Workload& w, const ArgPack& args, Stream stream) {
  int f = forced_.load(std::memory_order_relaxed);
  if (f >= 0) return backend_->launch(static_cast<size_t>(f), w, args, stream);
  uint64_t key = options_.bucketing.key(w);
  State* st = find(key);
  if (st) {
    int c = st->committed.load(std::memory_order_acquire);
    if (c >= 0) return backend_->launch(static_cast<size_t>(c), w, args, stream);
  } else {
    st = find_or_create(key, w);
  }
  return explore(*st, w, args, stream);
}

std::optional<size_t> Group::decision(const Workload& w) const {
  State* st = find(options_.bucketing.key(w));
  if (!st) return std::nullopt;
  int c = st->committed.load(std::memory_order_acquire);
  if (c < 0) return std::nullopt;
  return static_cast<size_t>(c);
}

WorkloadReport Group::report_of(const State& cst) const {
  State& st = const_cast<State&>(cst);
  std::lock_guard<std::mutex> lock(st.mu);
  WorkloadReport r;
  r.workload = st.label;
  int c = st.committed.load(std::memory_order_acquire);
  r.decision = c >= 0 ? st.decision : Decision::kExploring;
  r.choice = c >= 0 ? static_cast<size_t>(c) : st.race.leader();
  r.choice_name = names_[r.choice];
  r.reason = c >= 0 ? st.reason : "exploring" + (st.reason.empty() ? "" : " (" + st.reason + ")");
  r.explore_launches = st.race.launches();
  r.explore_us = st.race.explored_time_us();
  r.tuning_wall_s = st.tuning_wall_s;
  for (size_t v = 0; v < names_.size(); ++v) {
    const RaceVariantStats& vs = st.race.variant(v);
    Estimate e = st.race.estimate(v);
    VariantReport vr;
    vr.name = names_[v];
    vr.n = e.n;
    vr.median_us = e.n ? e.value : (v < st.cached_medians.size() ? st.cached_medians[v] : 0);
    vr.ci_low_us = e.value - 1.96 * e.std_error;
    vr.ci_high_us = e.value + 1.96 * e.std_error;
    vr.alive = vs.alive;
    vr.eliminated_by = vs.eliminated_by;
    vr.excluded = st.excluded[v];
    r.variants.push_back(vr);
  }
  Estimate chosen = st.race.estimate(r.choice);
  if (chosen.n) r.regret_us = r.explore_us - chosen.value * static_cast<double>(r.explore_launches);
  return r;
}

GroupReport Group::report() const {
  GroupReport out;
  out.group = options_.name;
  out.group_hash = hex64(group_hash_);
  out.policy = policy_name(options_.policy);
  out.cache = cache_status_;
  std::vector<State*> all;
  {
    std::lock_guard<std::mutex> lock(create_mu_);
    for (const auto& s : states_) all.push_back(s.get());
  }
  for (State* s : all) out.workloads.push_back(report_of(*s));
  return out;
}

}  // namespace ksnap::tune