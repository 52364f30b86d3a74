#include "ksnap/store/resolve.h"

#include "ksnap/store/git.h"
#include "ksnap/store/store.h"

namespace ksnap::store {

namespace {

Expected<std::string> lookup(Store& s, const std::string& arg, const std::string& repo) {
  if (looks_like_sha(arg)) {
    auto sha = s.resolve_prefix(arg);
    // Found, or ambiguous: both are answers. Only "not recorded" asks git.
    if (sha || sha.status().code() != ErrorCode::kNotFound) return sha;
  }
  if (!repo.empty() && git::is_repository(repo)) {
    auto g = git::rev_parse(repo, arg);
    if (g) {
      KSNAP_ASSIGN_OR_RETURN(std::optional<CommitInfo> c, s.find(*g));
      if (c) return *g;
      return make_error(ErrorCode::kNotFound,
                        "'" + arg + "' is commit " + g->substr(0, 12) + ", which is not recorded",
                        {s.path(), 0, 0});
    }
  }
  return make_error(ErrorCode::kNotFound,
                    "'" + arg + "' is neither a build folder nor a commit recorded in the store",
                    {s.path(), 0, 0});
}

}  // namespace

Expected<std::string> resolve_commit(const std::string& arg, const std::string& store_path,
                                     const std::string& repo) {
  auto s = Store::open_read_only(store_path);
  if (!s)
    // Name the folder first: a mistyped build folder is the usual cause,
    // the missing store only the reason it could not be a commit either.
    return make_error(s.status().code(),
                      "no such build folder, and no history store to look it up in as a "
                      "commit (" +
                          s.status().to_string() + ")",
                      {arg, 0, 0});
  return lookup(*s, arg, repo);
}

Expected<build::Build> resolve_build(const std::string& arg, const std::string& store_path,
                                     const std::string& repo) {
  if (is_directory(arg) || is_regular_file(arg)) return build::load_build(arg);
  KSNAP_ASSIGN_OR_RETURN(std::string sha, resolve_commit(arg, store_path, repo));
  KSNAP_ASSIGN_OR_RETURN(Store s, Store::open_read_only(store_path));
  return s.load(sha);
}

}  // namespace ksnap::store
