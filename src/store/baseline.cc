#include "ksnap/store/baseline.h"

#include <cstdio>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "ksnap/store/git.h"

namespace ksnap::store {

namespace {

/// The commit graph known from git (when asked) and from the store's parents.
struct Graph {
  std::unordered_map<std::string, git::Commit> git;  // sha -> commit, from git log
  std::unordered_map<std::string, CommitInfo> recorded;

  std::vector<std::string> parents(const std::string& sha) const {
    if (auto it = git.find(sha); it != git.end()) return it->second.parents;
    if (auto it = recorded.find(sha); it != recorded.end()) return it->second.parents;
    return {};
  }
  std::optional<int64_t> date(const std::string& sha) const {
    if (auto it = recorded.find(sha); it != recorded.end() && it->second.date)
      return it->second.date;
    if (auto it = git.find(sha); it != git.end()) return it->second.date;
    return std::nullopt;
  }
};

std::unordered_set<std::string> ancestors(const Graph& g, const std::string& from, size_t limit) {
  std::unordered_set<std::string> seen{from};
  std::deque<std::string> q{from};
  while (!q.empty() && seen.size() < limit) {
    std::string c = q.front();
    q.pop_front();
    for (const std::string& p : g.parents(c))
      if (seen.insert(p).second) q.push_back(p);
  }
  return seen;
}

std::string short_sha(const std::string& s) { return s.substr(0, 12); }

}  // namespace

std::string Baseline::describe() const {
  std::string out = "baseline for " + short_sha(for_sha) + ": " + short_sha(baseline.sha);
  if (exact()) {
    if (from_merge_base)
      out += ", the merge-base with " + base_ref + " (recorded)";
    else if (baseline.sha != for_sha)
      out += ", recorded";
    else
      out += " itself (recorded)";
    return out;
  }
  out += ", the nearest recorded ancestor of ";
  out += from_merge_base ? "merge-base " + short_sha(start_sha) : short_sha(start_sha);
  out += ", " + std::to_string(commits_behind) + (commits_behind == 1 ? " commit" : " commits");
  if (days_behind) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", *days_behind);
    out += std::string(" and ") + buf + " days";
  }
  out += " behind";
  return out;
}

Expected<Baseline> find_baseline(Store& store, const BaselineQuery& q) {
  if (q.for_rev.empty()) return make_error(ErrorCode::kInvalidArgument, "baseline needs --for SHA");
  Baseline r;
  r.base_ref = q.base_ref;
  Graph g;
  KSNAP_ASSIGN_OR_RETURN(std::vector<CommitInfo> all, store.commits());
  for (CommitInfo& c : all) g.recorded.emplace(c.sha, std::move(c));

  const bool git_ok = !q.repo.empty() && git::is_repository(q.repo);
  if (git_ok) {
    auto sha = git::rev_parse(q.repo, q.for_rev);
    if (sha) r.for_sha = *sha;
  }
  if (r.for_sha.empty()) {
    auto sha = store.resolve_prefix(q.for_rev);
    if (!sha) {
      if (sha.status().code() == ErrorCode::kNotFound || !looks_like_sha(q.for_rev))
        return make_error(ErrorCode::kNotFound,
                          "'" + q.for_rev + "' is neither a commit git knows" +
                              (git_ok ? "" : " (no git repository at '" + q.repo + "')") +
                              " nor a recorded commit",
                          {store.path(), 0, 0});
      return sha.status();
    }
    r.for_sha = *sha;
  }
  r.start_sha = r.for_sha;
  if (!q.base_ref.empty()) {
    if (!git_ok)
      return make_error(ErrorCode::kUnavailable,
                        "--base-ref needs a git repository (none at '" + q.repo + "')");
    KSNAP_ASSIGN_OR_RETURN(r.start_sha, git::merge_base(q.repo, r.for_sha, q.base_ref));
    r.from_merge_base = true;
  }
  if (git_ok) {
    auto h = git::history(q.repo, r.start_sha, q.max_walk);
    if (h) {
      r.used_git = true;
      for (git::Commit& c : *h) g.git.emplace(c.sha, std::move(c));
    }
  }

  // Breadth first from start: parents in git order, so first parents win ties.
  std::unordered_map<std::string, int64_t> dist{{r.start_sha, 0}};
  std::deque<std::string> queue{r.start_sha};
  std::string found;
  while (!queue.empty() && dist.size() <= q.max_walk) {
    std::string c = queue.front();
    queue.pop_front();
    if (g.recorded.count(c) && !(q.exclude_self && c == r.start_sha)) {
      found = c;
      break;
    }
    for (const std::string& p : g.parents(c))
      if (dist.emplace(p, dist[c] + 1).second) queue.push_back(p);
  }
  if (found.empty())
    return make_error(ErrorCode::kNotFound,
                      "no recorded ancestor of " + short_sha(r.start_sha) + " (searched " +
                          std::to_string(dist.size()) + " commits" +
                          (r.used_git ? "" : ", parents known only from the store") +
                          "); record a commit of main first",
                      {store.path(), 0, 0});
  r.baseline = g.recorded.at(found);
  r.hops = dist.at(found);
  if (r.hops > 0) {
    auto start_anc = ancestors(g, r.start_sha, q.max_walk);
    auto base_anc = ancestors(g, found, q.max_walk);
    for (const std::string& c : start_anc) r.commits_behind += base_anc.count(c) ? 0 : 1;
  }
  auto d0 = g.date(r.start_sha);
  auto d1 = g.date(found);
  if (d0 && d1 && *d0 > 0 && *d1 > 0) r.days_behind = static_cast<double>(*d0 - *d1) / 86400.0;
  return r;
}

}  // namespace ksnap::store
