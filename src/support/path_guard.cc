#include "ksnap/support/path_guard.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ksnap/support/text.h"

namespace ksnap {

namespace {

/// realpath(3) of `p`, or "" (errno set).
std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

bool inside(const std::string& real, const std::string& real_root) {
  if (real_root.empty()) return false;
  if (real == real_root) return true;
  if (real_root == "/") return true;
  return real.size() > real_root.size() && real.compare(0, real_root.size(), real_root) == 0 &&
         real[real_root.size()] == '/';
}

std::string shown(std::string_view rel) {
  std::string out(1, '"');
  out += escape_control(rel);
  out += '"';
  return out;
}

}  // namespace

bool is_plain_name(std::string_view name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find_first_of(std::string_view("/\0", 2)) == std::string_view::npos;
}

PathGuard::PathGuard(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  real_root_ = real_path(root_);
}

Status PathGuard::outside(std::string_view rel, const std::string& why) const {
  return make_error(ErrorCode::kInvalidArgument, "path " + shown(rel) + " " + why);
}

Status PathGuard::check_kind(std::string_view rel, mode_t mode, Kind kind) const {
  if (kind == kFile && !S_ISREG(mode))
    return outside(rel, S_ISDIR(mode) ? "is a folder, expected a file" : "is not a regular file");
  if (kind == kDirectory && !S_ISDIR(mode)) return outside(rel, "is not a folder");
  return Status::ok();
}

namespace {
constexpr unsigned char kAbsent = 0xFF;
/// A folder with more entries is never listed (its lookups stay lstat):
/// the Triton cache's top folder, and no hostile layout makes listings
/// cost more than this per pair of lookups.
constexpr size_t kMaxListed = 1024;
}  // namespace

unsigned char PathGuard::listed_type(const std::string& parent, std::string_view name) {
  if (parent != last_parent_) {
    last_parent_ = parent;
    listed_ = false;
    listing_.clear();
    return DT_UNKNOWN;  // the first path asked about here: one lstat is cheaper than a listing
  }
  if (!listed_) {
    listed_ = true;
    if (too_big_.count(parent)) return DT_UNKNOWN;
    DIR* d = ::opendir(parent.c_str());
    if (!d) return DT_UNKNOWN;
    while (const dirent* e = ::readdir(d)) {
      if (listing_.size() == kMaxListed) {
        too_big_.insert(parent);
        listing_.clear();
        break;
      }
      listing_.emplace_back(e->d_name, e->d_type);
    }
    ::closedir(d);
    std::sort(listing_.begin(), listing_.end());
  }
  if (listing_.empty()) return DT_UNKNOWN;  // too big, or unreadable (then lstat says why)
  auto it = std::lower_bound(
      listing_.begin(), listing_.end(), name,
      [](const std::pair<std::string, unsigned char>& e, std::string_view n) { return e.first < n; });
  if (it == listing_.end() || it->first != name) return kAbsent;
  return it->second;
}

Expected<std::string> PathGuard::resolve(std::string_view rel, Kind kind) {
  if (rel.empty()) return outside(rel, "is empty");
  if (rel.find('\0') != std::string_view::npos) return outside(rel, "holds a NUL byte");
  if (rel.front() == '/') return outside(rel, "is absolute; paths must be relative to " + root_);
  // Lexically: ".." may not climb above the root.
  std::vector<std::string_view> parts;
  for (size_t i = 0; i <= rel.size();) {
    size_t slash = rel.find('/', i);
    if (slash == std::string_view::npos) slash = rel.size();
    std::string_view c = rel.substr(i, slash - i);
    i = slash + 1;
    if (c.empty() || c == ".") continue;
    if (c == "..") {
      if (parts.empty()) return outside(rel, "leaves " + root_ + " (\"..\")");
      parts.pop_back();
      continue;
    }
    parts.push_back(c);
  }
  if (parts.empty()) return outside(rel, "names the folder itself");
  // The path returned is this lexical form: the kernel must not resolve a
  // ".." after a link differently from what was checked.
  // Exact size: a build holds one such path per stage file of every variant
  // (grown by appending, a 98-byte path kept a 120-byte buffer).
  size_t length = root_.size();
  for (std::string_view c : parts) length += 1 + c.size();
  std::string joined;
  joined.reserve(length);
  joined += root_;
  for (std::string_view c : parts) (joined += '/') += c;
  // Component by component: a symbolic link sends the rest through realpath.
  std::string prefix = root_;
  for (size_t k = 0; k < parts.size(); ++k) {
    prefix += '/';
    prefix += parts[k];
    const bool last = k + 1 == parts.size();
    if (!last && dirs_.count(prefix)) continue;
    if (last && !real_root_.empty()) {
      // The folder holding the last component was checked above (a real
      // folder inside the root): its listing can answer for plain entries.
      const unsigned char t =
          listed_type(prefix.substr(0, prefix.size() - parts[k].size() - 1), parts[k]);
      if (t == kAbsent) return make_error(ErrorCode::kNotFound, "path " + shown(rel) + " does not exist");
      if ((t == DT_REG && kind == kFile) || (t == DT_DIR && kind == kDirectory)) return joined;
    }
    struct stat st;
    if (::lstat(prefix.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR)
        return make_error(ErrorCode::kNotFound, "path " + shown(rel) + " does not exist");
      return make_error(ErrorCode::kIoError, "path " + shown(rel) + ": " + std::strerror(errno));
    }
    if (S_ISLNK(st.st_mode)) {
      std::string rest = prefix;
      for (size_t r = k + 1; r < parts.size(); ++r) (rest += '/') += parts[r];
      std::string real = real_path(rest);
      if (real.empty()) {
        // A dangling link, or one whose target is missing: say where it points only if inside.
        return make_error(ErrorCode::kNotFound,
                          "path " + shown(rel) + " is a symbolic link to nothing");
      }
      if (!inside(real, real_root_))
        return outside(rel, "goes through a symbolic link that leads out of " + root_);
      if (::stat(real.c_str(), &st) != 0)
        return make_error(ErrorCode::kNotFound, "path " + shown(rel) + " does not exist");
      KSNAP_RETURN_IF_ERROR(check_kind(rel, st.st_mode, kind));
      return joined;
    }
    if (last) {
      KSNAP_RETURN_IF_ERROR(check_kind(rel, st.st_mode, kind));
    } else {
      if (!S_ISDIR(st.st_mode))
        return make_error(ErrorCode::kNotFound, "path " + shown(rel) + " does not exist");
      dirs_.insert(prefix);
    }
  }
  if (real_root_.empty())
    return make_error(ErrorCode::kNotFound, "folder " + root_ + " does not exist");
  return joined;
}

}  // namespace ksnap
