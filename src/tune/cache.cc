#include "ksnap/tune/cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "ksnap/support/file.h"
#include "ksnap/support/hash.h"
#include "ksnap/support/json.h"

namespace ksnap::tune {

namespace {

json::Value device_json(const DeviceFingerprint& d) {
  return {{"backend", d.backend},   {"name", d.name},
          {"uuid", d.uuid},         {"cc", {d.cc_major, d.cc_minor}},
          {"sm_count", d.sm_count}, {"driver", d.driver_version},
          {"cuda", d.cuda_version}, {"library", d.library_version}};
}

/// A 64-bit hash spelled as 1..16 hex digits.
Status read_hex(const json::Node& entry, const char* key, uint64_t* out) {
  json::Node n = entry[key];
  std::string s;
  KSNAP_RETURN_IF_ERROR(n.read(&s, json::Need::kRequired));
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s.c_str(), &end, 16);
  if (s.empty() || s.size() > 16 || errno != 0 || !end || *end != '\0' ||
      s.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    return n.error(std::string("expected a hex hash (1 to 16 hex digits) for \"") + key + "\"");
  *out = v;
  return Status::ok();
}

/// Reads one entry; every field type checked, errors located at the field.
Status entry_from_json(const json::Node& j, CacheEntry* e) {
  using json::Need;
  KSNAP_RETURN_IF_ERROR(j.expect_object(Need::kRequired));
  KSNAP_RETURN_IF_ERROR(read_hex(j, "group", &e->group_hash));
  KSNAP_RETURN_IF_ERROR(read_hex(j, "choice_hash", &e->choice_hash));
  KSNAP_RETURN_IF_ERROR(j["workload"].read(&e->workload, Need::kRequired));
  KSNAP_RETURN_IF_ERROR(j["decision"].read(&e->decision, Need::kRequired));
  KSNAP_RETURN_IF_ERROR(j["group_name"].read(&e->group_name));
  KSNAP_RETURN_IF_ERROR(j["choice_name"].read(&e->choice_name));
  uint64_t choice = 0;
  KSNAP_RETURN_IF_ERROR(j["choice"].read(&choice, Need::kRequired));
  e->choice = static_cast<size_t>(choice);
  json::Node medians = j["median_us"];
  KSNAP_RETURN_IF_ERROR(medians.expect_array());
  for (size_t i = 0; i < medians.size(); ++i) {
    double m = 0;
    KSNAP_RETURN_IF_ERROR(medians[i].read(&m, Need::kRequired));
    e->median_us.push_back(m);
  }
  json::Node d = j["device"];
  KSNAP_RETURN_IF_ERROR(d.expect_object(Need::kRequired));
  DeviceFingerprint& f = e->device;
  for (auto [key, field] : {std::pair{"backend", &f.backend}, std::pair{"name", &f.name},
                            std::pair{"uuid", &f.uuid}, std::pair{"library", &f.library_version}})
    KSNAP_RETURN_IF_ERROR(d[key].read(field, Need::kRequired));
  for (auto [key, field] :
       {std::pair{"sm_count", &f.sm_count}, std::pair{"driver", &f.driver_version},
        std::pair{"cuda", &f.cuda_version}})
    KSNAP_RETURN_IF_ERROR(d[key].read(field, Need::kRequired));
  json::Node cc = d["cc"];
  KSNAP_RETURN_IF_ERROR(cc.expect_array(Need::kRequired));
  if (cc.size() != 2) return cc.error("expected [major, minor] for \"cc\"");
  KSNAP_RETURN_IF_ERROR(cc[0].read(&f.cc_major, Need::kRequired));
  return cc[1].read(&f.cc_minor, Need::kRequired);
}

bool same_slot(const CacheEntry& a, const CacheEntry& b) {
  return a.group_hash == b.group_hash && a.workload == b.workload && a.device == b.device;
}

/// Holds an exclusive flock on "<path>.lock" for its lifetime (the lock
/// file itself is never a link: O_NOFOLLOW).
class FileLock {
 public:
  explicit FileLock(const std::string& path) {
    fd_ = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd_ < 0) {
      error_ = make_error(ErrorCode::kIoError,
                          std::string("cannot open lock file: ") + std::strerror(errno),
                          {path + ".lock", 0, 0});
      return;
    }
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      error_ = make_error(ErrorCode::kIoError, std::string("flock: ") + std::strerror(errno),
                          {path + ".lock", 0, 0});
      return;
    }
  }
  ~FileLock() {
    if (fd_ >= 0) {
      ::flock(fd_, LOCK_UN);
      ::close(fd_);
    }
  }
  const Status& status() const { return error_; }

 private:
  int fd_ = -1;
  Status error_;
};

std::string errno_text() { return std::strerror(errno); }

/// realpath(3) of `p`, or "".
std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

/// The file a write to `path` replaces: its symbolic links followed, also
/// to a file that does not exist yet (its folder resolved), so the rename
/// happens next to the target and the link stays a link.
Expected<std::string> write_target(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    bool there = ::lstat(p.c_str(), &st) == 0;
    if (!there && errno != ENOENT)
      return make_error(ErrorCode::kIoError, "cannot stat: " + errno_text(), {p, 0, 0});
    if (there && !S_ISLNK(st.st_mode)) {
      std::string real = real_path(p);
      if (real.empty())
        return make_error(ErrorCode::kIoError, "cannot resolve: " + errno_text(), {p, 0, 0});
      return real;
    }
    size_t slash = p.rfind('/');
    std::string dir = slash == std::string::npos ? "." : p.substr(0, slash == 0 ? 1 : slash);
    if (!there) {  // nothing there: a new file in the resolved folder
      std::string real_dir = real_path(dir);
      if (real_dir.empty())
        return make_error(ErrorCode::kNotFound, "folder of the tuning cache: " + errno_text(),
                          {p, 0, 0});
      return (real_dir == "/" ? "" : real_dir) + "/" + p.substr(slash + 1);
    }
    char buf[PATH_MAX];
    ssize_t n = ::readlink(p.c_str(), buf, sizeof buf - 1);
    if (n < 0)
      return make_error(ErrorCode::kIoError, "cannot read link: " + errno_text(), {p, 0, 0});
    std::string to(buf, static_cast<size_t>(n));
    p = to.front() == '/' ? to : dir + "/" + to;
  }
  return make_error(ErrorCode::kIoError, "too many levels of symbolic links", {path, 0, 0});
}

/// Byte offset of a 1-based (line, column) location in `text`.
size_t offset_at(std::string_view text, const SourceLocation& loc) {
  size_t at = 0;
  for (uint32_t line = 1; line < loc.line && at < text.size(); ++line) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) return text.size();
    at = nl + 1;
  }
  return std::min(text.size(), at + (loc.column ? loc.column - 1 : 0));
}

/// Length of the JSON value that starts at text[at] (`text` parsed, so valid).
size_t value_length(std::string_view text, size_t at) {
  size_t i = at;
  int depth = 0;
  bool in_string = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"') {
        in_string = false;
        if (depth == 0) return i + 1 - at;
      }
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '{' || c == '[')
      ++depth;
    else if (c == '}' || c == ']') {
      if (depth == 0) break;  // a scalar ended by its array
      if (--depth == 0) return i + 1 - at;
    } else if (depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
      break;
    }
  }
  return i - at;
}

/// Reads `path` for a rewrite: the file, or an empty cache when there is
/// none (or only whitespace); an error when it must not be overwritten.
Expected<CacheFile> read_for_rewrite(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) return CacheFile{};
  auto text = read_text_file(path);
  auto refuse = [](const Status& s) {
    return Status(s.code(),
                  s.message() + "; the tuning cache is not overwritten (remove or repair it)",
                  s.location());
  };
  if (!text) return refuse(text.status());
  if (text->view().find_first_not_of(" \t\r\n") == std::string_view::npos) return CacheFile{};
  auto file = read_cache(text->view(), path);
  if (!file) return refuse(file.status());
  return file;
}

}  // namespace

Expected<CacheFile> read_cache(std::string_view text, const std::string& name) {
  KSNAP_ASSIGN_OR_RETURN(json::Document doc, json::Document::parse(text, name));
  json::Node root = doc.root();
  std::string format;
  if (root.is_object()) KSNAP_RETURN_IF_ERROR(root["format"].read(&format));
  if (format != "ksnap-tune-cache")
    return make_error(ErrorCode::kCorrupt, "not a ksnap tuning cache (\"format\" missing)",
                      {name, 1, 1});
  int64_t version = 0;
  KSNAP_RETURN_IF_ERROR(root["version"].read(&version, json::Need::kRequired));
  if (version != 1)
    return root["version"].error("unsupported tuning cache version " + std::to_string(version) +
                                 " (this library reads version 1)");
  json::Node entries = root["entries"];
  if (!entries.is_array()) return root.error("tuning cache has no \"entries\" array");
  CacheFile out;
  std::vector<SourceLocation> where;
  for (size_t i = 0; i < entries.size(); ++i) {
    CacheEntry e;
    Status s = entry_from_json(entries[i], &e);
    if (s.is_ok()) {
      out.entries.push_back(std::move(e));
      continue;
    }
    if (where.empty()) where = entries.item_locations();
    size_t at = offset_at(text, where[i]);
    out.kept.emplace_back(text.substr(at, value_length(text, at)));
    out.problems.push_back(make_error(
        ErrorCode::kCorrupt,
        "tuning cache entry " + std::to_string(i) + " is malformed: " + s.message(), s.location()));
  }
  return out;
}

Expected<std::vector<CacheEntry>> parse_cache(std::string_view text, const std::string& name) {
  KSNAP_ASSIGN_OR_RETURN(CacheFile file, read_cache(text, name));
  if (!file.problems.empty()) return file.problems.front();
  return std::move(file.entries);
}

std::string serialize_cache(const std::vector<CacheEntry>& entries,
                            const std::vector<std::string>& kept) {
  json::Value arr = json::Value::array();
  for (const auto& e : entries) {
    arr.push_back({{"group", hex64(e.group_hash)},
                   {"group_name", e.group_name},
                   {"workload", e.workload},
                   {"choice", e.choice},
                   {"choice_name", e.choice_name},
                   {"choice_hash", hex64(e.choice_hash)},
                   {"decision", e.decision},
                   {"median_us", e.median_us},
                   {"device", device_json(e.device)}});
  }
  // Kept entries go in as their own text: a placeholder each, spliced last
  // to first, each found right to left (nothing after a placeholder but the
  // later ones, whatever strings the entries hold).
  auto placeholder = [](size_t k) { return "\x01ksnap-kept-" + std::to_string(k); };
  for (size_t k = 0; k < kept.size(); ++k) arr.push_back(placeholder(k));
  json::Value j = {{"format", "ksnap-tune-cache"}, {"version", 1}, {"entries", std::move(arr)}};
  std::string out = json::dump(std::move(j), 1) + "\n";
  std::vector<size_t> at(kept.size());
  size_t bound = std::string::npos;
  for (size_t k = kept.size(); k-- > 0;)
    bound = at[k] = out.rfind(json::dump(placeholder(k)), bound);
  for (size_t k = kept.size(); k-- > 0;)
    out.replace(at[k], json::dump(placeholder(k)).size(), kept[k]);
  return out;
}

Status TuningCache::load() {
  entries_.clear();
  malformed_ = 0;
  struct stat st;
  if (::stat(path_.c_str(), &st) != 0 && errno == ENOENT) return Status::ok();
  auto text = read_text_file(path_);
  if (!text) return text.status();
  auto file = read_cache(text->view(), path_);
  if (!file) return file.status();
  entries_ = std::move(file->entries);
  malformed_ = file->kept.size();
  if (malformed_ == 0) return Status::ok();
  const Status& first = file->problems.front();
  return Status(first.code(),
                std::to_string(malformed_) + " malformed entr" + (malformed_ == 1 ? "y" : "ies") +
                    " not used, kept in the file as written; first: " + first.message(),
                first.location());
}

CacheLookup TuningCache::lookup(uint64_t group_hash, const std::string& workload,
                                const DeviceFingerprint& device,
                                const std::function<uint64_t(size_t)>& choice_hash_now) const {
  CacheLookup out;
  out.why_not = "no entry";
  for (const auto& e : entries_) {
    if (e.workload != workload) continue;
    if (e.group_hash != group_hash) {
      if (out.why_not == "no entry") out.why_not = "stale: variant binaries or geometry changed";
      continue;
    }
    std::string diff = e.device.first_difference(device);
    if (!diff.empty()) {
      out.why_not = "stale: " + diff + " differs";
      continue;
    }
    if (choice_hash_now && choice_hash_now(e.choice) != e.choice_hash) {
      out.why_not = "stale: variant binary changed";
      continue;
    }
    out.entry = e;
    out.why_not.clear();
    return out;
  }
  return out;
}

Status TuningCache::store(const CacheEntry& e) { return merge(e, nullptr).status(); }

Expected<CacheEntry> TuningCache::store_or_adopt(
    const CacheEntry& e, const std::function<uint64_t(size_t)>& choice_hash_now) {
  return merge(e, &choice_hash_now);
}

Expected<CacheEntry> TuningCache::merge(const CacheEntry& e,
                                        const std::function<uint64_t(size_t)>* adopt) {
  KSNAP_ASSIGN_OR_RETURN(std::string target, write_target(path_));
  FileLock lock(target);
  KSNAP_RETURN_IF_ERROR(lock.status());
  KSNAP_ASSIGN_OR_RETURN(CacheFile file, read_for_rewrite(target));
  if (adopt) {
    for (const auto& c : file.entries)
      if (same_slot(c, e) && (!*adopt || (*adopt)(c.choice) == c.choice_hash)) {
        CacheEntry found = c;  // decided first, elsewhere: nothing is written
        entries_ = std::move(file.entries);
        malformed_ = file.kept.size();
        return found;
      }
  }
  bool replaced = false;
  for (auto& c : file.entries)
    if (same_slot(c, e)) {
      c = e;
      replaced = true;
    }
  if (!replaced) file.entries.push_back(e);
  KSNAP_RETURN_IF_ERROR(write_file_atomic(target, serialize_cache(file.entries, file.kept)));
  entries_ = std::move(file.entries);
  malformed_ = file.kept.size();
  return e;
}

}  // namespace ksnap::tune
