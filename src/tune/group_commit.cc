// Committing a workload's choice: it is published to dispatch, written to
// the persistent cache, offered to the agreement hook (which may replace it
// by a decision made elsewhere), and announced as a CommitEvent to the
// callback and as one JSON line to the commit log.
//
// Worked example: the race picks variant 2 of 4 for workload [M=4096],
// runner-up 0 at 0.6% margin, after 24 launches; with a commit log the line
//   {"group":"mm","workload":<its label>,"choice":"BM=128","choice_index":2,
//    "decision":...,"runner_up":"BM=64","margin":...,"launches":24,...}
// is appended (one write(2) of the whole line, O_APPEND, so that processes
// sharing the file never interleave lines).

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "ksnap/tune/group.h"
#include "tune/group_state.h"

namespace ksnap::tune {

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
}  // namespace ksnap::tune
