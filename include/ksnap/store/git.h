// ksnap's few questions to git, asked by running the `git` program (no shell)
// in a repository folder. Used to fill a record's parents and date and to find
// a PR's merge-base and its nearest recorded ancestor.
//
//   KSNAP_ASSIGN_OR_RETURN(std::string sha, git::rev_parse(".", "HEAD"));
//   KSNAP_ASSIGN_OR_RETURN(std::vector<git::Commit> h, git::history(".", sha, 1000));
//   // h[0].sha == sha, h[0].parents == {first parent, ...}, h[0].date = committer time
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ksnap/support/status.h"

namespace ksnap::store::git {

struct Commit {
  std::string sha;
  std::vector<std::string> parents;  ///< First parent first.
  int64_t date = 0;                  ///< Committer date, Unix seconds.
  std::string subject;
};

/// Runs `git -C repo ARGS...`; returns stdout. Errors: kUnavailable when git
/// cannot be run, kNotFound (with git's message) when it exits non-zero.
Expected<std::string> run(const std::string& repo, const std::vector<std::string>& args);

/// True when `repo` is inside a git work tree and git runs.
bool is_repository(const std::string& repo);

/// Full id of `rev` (a sha prefix, branch, tag, HEAD~2, ...).
Expected<std::string> rev_parse(const std::string& repo, const std::string& rev);

/// One commit's parents, date and subject.
Expected<Commit> show(const std::string& repo, const std::string& sha);

/// `git merge-base a b`.
Expected<std::string> merge_base(const std::string& repo, const std::string& a,
                                 const std::string& b);

/// `start` and its ancestors, newest first, at most `max_count` (0 = all);
/// with `first_parent`, only the first-parent chain. In a shallow clone the
/// history simply ends early.
Expected<std::vector<Commit>> history(const std::string& repo, const std::string& start,
                                      size_t max_count, bool first_parent = false);

/// Parses `git log --format=%H%x09%ct%x09%P%x09%s` output (exposed for tests).
/// Errors: kParseError naming the 1-based line.
Expected<std::vector<Commit>> parse_log(const std::string& text);

}  // namespace ksnap::store::git
