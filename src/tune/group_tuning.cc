// Racing a workload's variants: online (each call times one launch until
// the race decides, drain() collects finished timings), at initialization
// on the caller's arguments or on synthetic data (make_synthetic), with the
// optional verification that excludes a variant whose output differs from
// the default variant's. race_reason() states why the race decided, for the
// report and the commit event.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "ksnap/tune/group.h"
#include "tune/group_state.h"

namespace ksnap::tune {

namespace {

double wall_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

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

}  // namespace ksnap::tune
