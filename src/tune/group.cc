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

namespace ksnap::tune {

struct Group::State {
  State(uint64_t k, std::string l, size_t n, const RaceConfig& cfg)
      : key(k), label(std::move(l)), race(n, cfg), excluded(n) {}
  const uint64_t key;
  const std::string label;
  std::atomic<int> committed{-1};  // published choice, -1 while none
  std::mutex mu;                   // guards everything below
  Race race;
  std::deque<InFlight> pending;
  Decision decision = Decision::kExploring;
  std::string reason;
  double tuning_wall_s = 0;
  std::vector<double> cached_medians;
  uint64_t calls = 0, explored = 0;  // online: calls while undecided, timed launches
  bool verified = false;               // verification ran (GroupOptions::verify)
  std::vector<std::string> excluded;   // per variant: why verification excluded it, or ""
};

namespace {

double wall_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

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

std::string CommitEvent::to_json() const {
  nlohmann::json j = {{"group", group},
                      {"workload", workload},
                      {"choice", choice_name},
                      {"choice_index", choice},
                      {"decision", decision_name(decision)},
                      {"runner_up", runner_up ? nlohmann::json(runner_up_name) : nlohmann::json()},
                      {"margin", margin},
                      {"launches", launches},
                      {"excluded", excluded},
                      {"reason", reason}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

CommitEvent Group::event_of(const State& st, size_t choice, Decision why,
                            const std::string& reason) const {
  CommitEvent e;
  e.group = options_.name;
  e.workload = st.label;
  e.choice = choice;
  e.choice_name = names_[choice];
  e.decision = why;
  e.reason = reason;
  e.launches = st.race.launches();
  for (size_t v = 0; v < names_.size(); ++v)
    if (!st.excluded[v].empty()) e.excluded.push_back(names_[v]);
  const double chosen = st.race.estimate(choice).value;
  for (size_t v = 0; v < names_.size(); ++v) {
    if (v == choice || st.race.estimate(v).n == 0) continue;
    double m = st.race.estimate(v).value;
    if (!e.runner_up || m < st.race.estimate(*e.runner_up).value) e.runner_up = v;
  }
  if (e.runner_up) {
    e.runner_up_name = names_[*e.runner_up];
    if (chosen > 0) e.margin = st.race.estimate(*e.runner_up).value / chosen - 1;
  }
  return e;
}

void Group::announce(const CommitEvent& e) {
  if (options_.on_commit) options_.on_commit(e);
  if (options_.commit_log_path.empty()) return;
  std::string line = e.to_json() + "\n";
  int fd = ::open(options_.commit_log_path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  bool ok = fd >= 0 && ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  if (fd >= 0) ::close(fd);
  if (!ok && !log_error_.exchange(true))
    std::fprintf(stderr, "ksnap tune: cannot append to the commit log %s: %s\n",
                 options_.commit_log_path.c_str(), std::strerror(errno));
}

void Group::commit(State& st, size_t choice, Decision why, const std::string& reason) {
  std::string why_text = reason;
  // Agreement, before anything is published: the hook (e.g. rank 0 decides
  // and the others adopt), then the shared cache file (the first decision
  // stored for this workload and device wins, across processes).
  if (options_.agree) {
    std::optional<size_t> v = options_.agree(event_of(st, choice, why, reason));
    if (v && *v < names_.size() && !st.excluded[*v].empty()) {
      std::fprintf(stderr,
                   "ksnap tune: %s: the agreement hook chose %s, whose output differs from the "
                   "default's here: ignored\n",
                   options_.name.c_str(), names_[*v].c_str());
    } else if (v && *v < names_.size() && *v != choice) {
      why_text = "adopted: the agreement hook chose " + names_[*v] + " (this race: " + reason + ")";
      choice = *v;
      why = Decision::kAdopted;
    } else if (v && *v >= names_.size()) {
      std::fprintf(stderr, "ksnap tune: %s: the agreement hook chose variant %zu of %zu: ignored\n",
                   options_.name.c_str(), *v, names_.size());
    }
  }
  if (cache_) {
    CacheEntry e;
    e.group_hash = group_hash_;
    e.group_name = options_.name;
    e.workload = st.label;
    e.choice = choice;
    e.choice_name = names_[choice];
    e.choice_hash = hashes_[choice];
    e.decision = decision_name(why);
    for (size_t v = 0; v < names_.size(); ++v) e.median_us.push_back(st.race.estimate(v).value);
    e.device = device_;
    auto hash_now = [this](size_t v) { return v < hashes_.size() ? hashes_[v] : uint64_t{0}; };
    Expected<CacheEntry> held = options_.adopt_shared_decisions
                                    ? cache_->store_or_adopt(e, hash_now)
                                    : Expected<CacheEntry>(e);
    Status s = options_.adopt_shared_decisions ? held.status() : cache_->store(e);
    if (!s.is_ok()) {
      std::fprintf(stderr, "ksnap tune: cannot write cache: %s\n", s.to_string().c_str());
    } else if (held->choice != choice && held->choice < names_.size() &&
               !st.excluded[held->choice].empty()) {
      why_text += " (not adopted: " + cache_->path() + " holds " + held->choice_name +
                  ", whose output differs from the default's here)";
    } else if (held->choice != choice && held->choice < names_.size()) {
      why_text = "adopted: " + cache_->path() + " already held " + held->choice_name +
                 " for this workload (decided '" + held->decision + "' elsewhere; this race chose " +
                 names_[choice] + ")";
      choice = held->choice;
      why = Decision::kAdopted;
    }
  }
  st.decision = why;
  st.reason = why_text;
  for (auto& p : st.pending) backend_->release(p.ticket);
  st.pending.clear();
  st.committed.store(static_cast<int>(choice), std::memory_order_release);
  if (options_.on_commit || !options_.commit_log_path.empty())
    announce(event_of(st, choice, why, why_text));
}

namespace {

std::string race_reason_of(const Race& r, const std::vector<std::string>& names,
                           const std::string& why, const std::string& alive);

std::string race_reason(const Race& r, const std::vector<std::string>& names) {
  std::string why = decision_name(r.decision());
  std::string alive, excluded;
  for (size_t v = 0; v < r.size(); ++v) {
    if (r.variant(v).alive) alive += (alive.empty() ? "" : ", ") + names[v];
    if (r.variant(v).excluded) excluded += (excluded.empty() ? "" : ", ") + names[v];
  }
  if (!excluded.empty()) excluded = "; excluded, output differs from the default's: {" + excluded + "}";
  if (r.decision() == Decision::kSeparated && r.launches() == 0 && !excluded.empty())
    return why + ": " + names[r.choice()] + " is the only variant whose output matches" + excluded;
  return race_reason_of(r, names, why, alive) + excluded;
}

std::string race_reason_of(const Race& r, const std::vector<std::string>& names,
                           const std::string& why, const std::string& alive) {
  char tol[32];
  std::snprintf(tol, sizeof tol, "%g%%", 100 * r.config().tie_tolerance);
  switch (r.decision()) {
    case Decision::kTied:
      return why + ": survivors {" + alive + "} within " + tol +
             " of the leader; first declared wins";
    case Decision::kLeader:
      return why + ": " + names[r.choice()] + " within " + tol + " of every survivor {" + alive +
             "}";
    case Decision::kSeparated:
      return why + ": " + names[r.choice()] + " confidently faster than every other variant";
    case Decision::kBudget:
      return why + ": exploration budget spent after " + std::to_string(r.launches()) +
             " launches; lowest median among {" + alive + "}";
    default:
      return why;
  }
}

}  // namespace

void Group::drain(State& st) {
  while (!st.pending.empty() && !st.race.committed()) {
    InFlight& f = st.pending.front();
    Poll p = backend_->poll(f.ticket);
    if (p.state == PollState::kPending) break;  // one stream: later ones finish later
    if (p.state == PollState::kDone) st.race.record(f.variant, p.time_us);
    st.pending.pop_front();
  }
  if (st.race.committed() && st.committed.load(std::memory_order_relaxed) < 0)
    commit(st, st.race.choice(), st.race.decision(), race_reason(st.race, names_));
  // The time budget of online exploration: the leader so far wins.
  const double budget_us = options_.explore_budget_ms * 1000;
  if (budget_us > 0 && st.committed.load(std::memory_order_relaxed) < 0 && st.race.launches() &&
      st.race.explored_time_us() >= budget_us) {
    char spent[64];
    std::snprintf(spent, sizeof spent, "%.3g ms", st.race.explored_time_us() / 1000);
    commit(st, st.race.leader(), Decision::kBudget,
           "budget: " + std::string(spent) + " of timed exploration spent (explore_budget_ms) after " +
               std::to_string(st.race.launches()) + " launches; the leader wins");
  }
}

Status Group::explore(State& st, const Workload& w, const ArgPack& args, Stream s) {
  std::unique_lock<std::mutex> lock(st.mu);
  int c = st.committed.load(std::memory_order_acquire);
  if (c >= 0) {
    lock.unlock();
    return backend_->launch(static_cast<size_t>(c), w, args, s);
  }
  bool online =
      options_.policy == Policy::kOnline && tuning_enabled_.load(std::memory_order_relaxed);
  if (!online) {
    lock.unlock();
    return backend_->launch(options_.default_variant, w, args, s);
  }
  if (options_.verify.enabled && !st.verified) {
    // Verification needs a synchronize: never inside a graph capture (the
    // default runs until a call outside one verifies the variants).
    if (backend_->capturing(s)) {
      lock.unlock();
      return backend_->launch(options_.default_variant, w, args, s);
    }
    ArgPack synthetic;
    std::vector<DeviceBuffer> bufs;
    Status vs = make_synthetic(w, synthetic, bufs);
    if (vs.is_ok()) vs = backend_->synchronize(s);
    if (vs.is_ok()) vs = verify_variants(st, w, synthetic, s);
    for (auto& b : bufs) backend_->free(b);
    KSNAP_RETURN_IF_ERROR(vs);
  }
  drain(st);
  c = st.committed.load(std::memory_order_acquire);
  if (c >= 0) {
    lock.unlock();
    return backend_->launch(static_cast<size_t>(c), w, args, s);
  }
  size_t fallback = st.race.launches() ? st.race.leader() : options_.default_variant;
  ++st.calls;
  // The exploring share: a timed launch only while explored/calls stays within it.
  const bool over_share = options_.max_explore_share < 1 &&
                          static_cast<double>(st.explored + 1) >
                              options_.max_explore_share * static_cast<double>(st.calls);
  if (over_share || backend_->capturing(s) || st.pending.size() >= options_.max_in_flight) {
    lock.unlock();  // never time inside a graph capture
    return backend_->launch(fallback, w, args, s);
  }
  size_t v = st.race.next();
  KSNAP_ASSIGN_OR_RETURN(Ticket t, backend_->launch_timed(v, w, args, s));
  st.pending.push_back({v, t});
  ++st.explored;
  return Status::ok();
}

Status Group::tune(const Workload& w, Stream stream) {
  if (options_.layout.empty())
    return make_error(ErrorCode::kInvalidArgument,
                      "group '" + options_.name + "': tune() on synthetic data needs an ArgLayout");
  ArgPack args;
  std::vector<DeviceBuffer> bufs;
  Status st = make_synthetic(w, args, bufs);
  if (st.is_ok()) st = backend_->synchronize(stream);
  if (st.is_ok()) {
    State* s = find_or_create(options_.bucketing.key(w), w);
    st = run_tuning(*s, w, args, stream);
  }
  for (auto& b : bufs) backend_->free(b);
  return st;
}

Status Group::make_synthetic(const Workload& w, ArgPack& args, std::vector<DeviceBuffer>& bufs) {
  const auto& specs = options_.layout.args();
  Status st;
  for (size_t i = 0; i < specs.size() && st.is_ok(); ++i) {
    const ArgSpec& a = specs[i];
    int64_t v = a.size_or_value ? a.size_or_value(w) : 0;
    switch (a.type) {
      case ArgType::kPointer: {
        auto b = backend_->alloc(static_cast<size_t>(std::max<int64_t>(v, 1)));
        if (!b) {
          st = b.status();
          break;
        }
        bufs.push_back(*b);
        st = backend_->fill(bufs.back(), a.fill, 0x5eed + i);
        args.ptr(reinterpret_cast<void*>(b->address));
        break;
      }
      case ArgType::kI32:
        args.i32(static_cast<int32_t>(v));
        break;
      case ArgType::kI64:
        args.i64(v);
        break;
      case ArgType::kF32:
        args.f32(static_cast<float>(a.size_or_value ? v : a.fvalue));
        break;
      case ArgType::kF64:
        args.f64(a.size_or_value ? static_cast<double>(v) : a.fvalue);
        break;
    }
  }
  return st;
}

Status Group::verify_variants(State& st, const Workload& w, const ArgPack& args, Stream s) {
  struct Out {
    size_t arg;
    DeviceBuffer user;      // the argument's buffer
    DeviceBuffer initial;   // its contents before any variant ran
    std::vector<unsigned char> expected;
  };
  const auto& specs = options_.layout.args();
  std::vector<Out> outs;
  Status status;
  for (size_t i = 0; i < specs.size() && i < args.size() && status.is_ok(); ++i) {
    const ArgSpec& a = specs[i];
    if (a.type != ArgType::kPointer || a.role == Role::kInput) continue;
    int64_t bytes = a.size_or_value ? a.size_or_value(w) : 0;
    Out o{i, {reinterpret_cast<uint64_t>(args.pointer<void>(i)), static_cast<size_t>(std::max<int64_t>(bytes, 0))}, {}, {}};
    auto copy = backend_->alloc(o.user.bytes);
    if (!copy) {
      status = copy.status();
      break;
    }
    o.initial = *copy;
    status = backend_->copy(o.initial, o.user);
    outs.push_back(std::move(o));
  }
  // The default's outputs are the reference; every other variant starts from
  // the same initial contents and must match them.
  const size_t ref = options_.default_variant;
  std::vector<unsigned char> got;
  std::vector<std::string> why(names_.size());
  for (size_t k = 0; k < names_.size() && status.is_ok(); ++k) {
    const size_t v = k == 0 ? ref : (k <= ref ? k - 1 : k);
    if (k > 0)
      for (auto& o : outs) status = status.is_ok() ? backend_->copy(o.user, o.initial) : status;
    if (!status.is_ok()) break;
    Status launched = backend_->launch(v, w, args, s);
    if (!launched.is_ok()) {
      if (v == ref) status = launched;  // no reference: verification cannot run
      else why[v] = "launch failed: " + launched.to_string();
      continue;
    }
    for (auto& o : outs) {
      std::vector<unsigned char>& into = v == ref ? o.expected : got;
      into.resize(o.user.bytes);
      status = backend_->read(o.user, into.data(), s);
      if (!status.is_ok()) break;
      if (v == ref) continue;
      const ArgSpec& a = specs[o.arg];
      Tolerance tol = options_.verify.tolerance_for(a.element);
      if (auto m = compare_outputs(a.element, o.expected.data(), got.data(), got.size(), tol)) {
        why[v] = "output '" + a.name + "' " + m->to_string(a.element, tol);
        break;
      }
    }
  }
  for (auto& o : outs) {
    Status r = backend_->copy(o.user, o.initial);
    if (status.is_ok()) status = r;
    backend_->free(o.initial);
  }
  KSNAP_RETURN_IF_ERROR(status);
  st.verified = true;
  for (size_t v = 0; v < names_.size(); ++v) {
    if (why[v].empty()) continue;
    st.excluded[v] = why[v];
    st.race.exclude(v);
    std::fprintf(stderr, "ksnap tune: %s, workload %s: %s excluded, %s\n", options_.name.c_str(),
                 st.label.c_str(), names_[v].c_str(), why[v].c_str());
  }
  if (st.race.committed() && st.committed.load(std::memory_order_relaxed) < 0)
    commit(st, st.race.choice(), st.race.decision(), race_reason(st.race, names_));
  return Status::ok();
}

Status Group::tune(const Workload& w, const ArgPack& args, Stream stream) {
  const auto& specs = options_.layout.args();
  std::vector<std::pair<DeviceBuffer, DeviceBuffer>> saved;  // (user, copy)
  Status st;
  for (size_t i = 0; i < specs.size() && i < args.size() && st.is_ok(); ++i) {
    const ArgSpec& a = specs[i];
    if (a.type != ArgType::kPointer || a.role == Role::kInput) continue;
    DeviceBuffer user{reinterpret_cast<uint64_t>(args.pointer<void>(i)),
                      static_cast<size_t>(a.size_or_value ? a.size_or_value(w) : 0)};
    auto copy = backend_->alloc(user.bytes);
    if (!copy) {
      st = copy.status();
      break;
    }
    st = backend_->copy(*copy, user);
    saved.push_back({user, *copy});
  }
  if (st.is_ok()) {
    State* s = find_or_create(options_.bucketing.key(w), w);
    st = run_tuning(*s, w, args, stream);
  }
  for (auto& [user, copy] : saved) {
    Status r = backend_->copy(user, copy);
    if (st.is_ok()) st = r;
    backend_->free(copy);
  }
  if (st.is_ok()) st = backend_->synchronize(stream);
  return st;
}

Status Group::run_tuning(State& st, const Workload& w, const ArgPack& args, Stream s) {
  std::lock_guard<std::mutex> lock(st.mu);
  if (st.committed.load(std::memory_order_acquire) >= 0) return Status::ok();  // cached/single
  if (!tuning_enabled_.load(std::memory_order_relaxed)) return Status::ok();
  if (backend_->capturing(s))
    return make_error(ErrorCode::kInvalidArgument, "tune() inside a graph capture: not timed");
  double t0 = wall_s();
  const size_t n = names_.size();
  if (options_.verify.enabled && !st.verified) {
    KSNAP_RETURN_IF_ERROR(verify_variants(st, w, args, s));
    if (st.committed.load(std::memory_order_acquire) >= 0) return Status::ok();
  }
  Race& race = st.race;
  for (size_t v = 0; v < n; ++v)  // warm-up
    if (race.variant(v).alive) KSNAP_RETURN_IF_ERROR(backend_->launch(v, w, args, s));
  KSNAP_RETURN_IF_ERROR(backend_->synchronize(s));
  std::vector<InFlight> round;
  while (!race.committed()) {
    round.clear();
    size_t alive = race.alive_count();
    for (size_t k = 0; k < alive; ++k) {
      size_t v = race.next();
      KSNAP_ASSIGN_OR_RETURN(Ticket t, backend_->launch_timed(v, w, args, s));
      round.push_back({v, t});
    }
    Status err;
    for (auto& f : round) {
      auto us = backend_->wait(f.ticket);
      if (!us) {
        err = us.status();
        continue;
      }
      race.record(f.variant, *us);
    }
    KSNAP_RETURN_IF_ERROR(err);
    if (!race.committed() && options_.tune_time_budget_s > 0 &&
        wall_s() - t0 >= options_.tune_time_budget_s) {
      st.tuning_wall_s = wall_s() - t0;
      commit(st, race.leader(), Decision::kBudget,
             "budget: tuning time budget spent after " + std::to_string(race.launches()) +
                 " launches; lowest median wins");
      return Status::ok();
    }
  }
  st.tuning_wall_s = wall_s() - t0;
  commit(st, race.choice(), race.decision(), race_reason(race, names_));
  return Status::ok();
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
