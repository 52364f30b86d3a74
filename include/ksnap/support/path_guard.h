// ksnap support: confining paths named by untrusted files to one folder.
//
// A capture comes from a pull request. A path its manifest names (a stage
// file, a cache folder, `<kernel>.json` found from a kernel name) must not
// lead out of the capture folder: not by being absolute, not by `..`, not
// through a symbolic link that points outside. Links that stay inside are
// followed.
//
// Worked example (capture /ci/pr; cache/H/k.ttir a file; cache/H/x a link to /etc/passwd):
//   PathGuard g("/ci/pr");
//   g.resolve("cache/H/k.ttir", PathGuard::kFile)  -> "/ci/pr/cache/H/k.ttir"
//   g.resolve("../../etc/passwd", PathGuard::kFile) -> kInvalidArgument "... leaves /ci/pr"
//   g.resolve("/etc/passwd", PathGuard::kFile)      -> kInvalidArgument "absolute path ..."
//   g.resolve("cache/H/x", PathGuard::kFile)        -> kInvalidArgument "... symbolic link ..."
//   g.resolve("cache/H/none", PathGuard::kFile)     -> kNotFound
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ksnap/support/status.h"

namespace ksnap {

/// True when `name` is one plain path component: not empty, not "." or
/// "..", no '/' and no NUL (a Triton cache folder name, a kernel name).
bool is_plain_name(std::string_view name);

class PathGuard {
 public:
  enum Kind : uint8_t { kFile, kDirectory };

  /// Guards paths relative to `root` (which may itself be reached through links).
  explicit PathGuard(std::string root);

  /// `root + "/" + rel` (with `.`, `..` and repeated slashes resolved
  /// lexically) when `rel` names an existing regular file (kFile) or folder
  /// (kDirectory) inside root, symbolic links followed and checked.
  /// Errors (messages name `rel`): kInvalidArgument for an empty or absolute
  /// path, a NUL byte, `..` above root, a link leading out of root, or the
  /// wrong kind of file; kNotFound when nothing is there. Not thread-safe
  /// (it remembers the folders it has checked).
  ///
  /// Cost: a second path resolved in the same folder as the one before it
  /// lists that folder once (readdir); names then answered from the listing
  /// need no system call when the listing says "regular file" or "absent"
  /// (a loader probing `<kernel>.<stage>` for every known stage). Links,
  /// folders and entries of unknown type are checked as before.
  Expected<std::string> resolve(std::string_view rel, Kind kind);

  const std::string& root() const { return root_; }

 private:
  Status outside(std::string_view rel, const std::string& why) const;
  Status check_kind(std::string_view rel, mode_t mode, Kind kind) const;

  std::string root_;
  std::string real_root_;                 ///< realpath(root), "" when it does not resolve
  std::unordered_set<std::string> dirs_;  ///< prefixes known to be real folders (not links)
  /// The last folder a resolved path's last component was in; once a second
  /// path asks about it, its entries (name, dirent d_type), sorted by name.
  std::string last_parent_;
  bool listed_ = false;
  std::vector<std::pair<std::string, unsigned char>> listing_;
  std::unordered_set<std::string> too_big_;  ///< folders with too many entries to list
  /// The d_type of `name` in folder `parent` (a checked real folder) from
  /// the listing: DT_UNKNOWN when there is no listing to answer from, 0xFF
  /// when the name is absent.
  unsigned char listed_type(const std::string& parent, std::string_view name);
};

}  // namespace ksnap
