#include "ksnap/tune/cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
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

/// Holds an exclusive flock on "<path>.lock" for its lifetime.
class FileLock {
 public:
  explicit FileLock(const std::string& path) {
    fd_ = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
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

}  // namespace

Expected<std::vector<CacheEntry>> parse_cache(std::string_view text, const std::string& name) {
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
    return root["version"].error("unsupported tuning cache version " + std::to_string(version));
  json::Node entries = root["entries"];
  if (!entries.is_array()) return root.error("tuning cache has no \"entries\" array");
  std::vector<CacheEntry> out;
  for (size_t i = 0; i < entries.size(); ++i) {
    CacheEntry e;
    Status s = entry_from_json(entries[i], &e);
    if (!s.is_ok())
      return make_error(ErrorCode::kCorrupt,
                        "tuning cache entry " + std::to_string(i) + " is malformed: " + s.message(),
                        s.location());
    out.push_back(std::move(e));
  }
  return out;
}

std::string serialize_cache(const std::vector<CacheEntry>& entries) {
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
  json::Value j = {{"format", "ksnap-tune-cache"}, {"version", 1}, {"entries", std::move(arr)}};
  return json::dump(std::move(j), 1) + "\n";
}

Status TuningCache::load() {
  entries_.clear();
  if (!is_regular_file(path_)) return Status::ok();
  auto text = read_text_file(path_);
  if (!text) return text.status();
  auto parsed = parse_cache(text->view(), path_);
  if (!parsed) return parsed.status();
  entries_ = std::move(*parsed);
  return Status::ok();
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

Status TuningCache::store(const CacheEntry& e) {
  FileLock lock(path_);
  KSNAP_RETURN_IF_ERROR(lock.status());
  std::vector<CacheEntry> current;
  if (is_regular_file(path_)) {
    auto text = read_text_file(path_);
    if (text) {
      auto parsed = parse_cache(text->view(), path_);
      if (parsed) current = std::move(*parsed);  // a corrupt file is replaced
    }
  }
  bool replaced = false;
  for (auto& c : current)
    if (same_slot(c, e)) {
      c = e;
      replaced = true;
    }
  if (!replaced) current.push_back(e);
  KSNAP_RETURN_IF_ERROR(write_file_atomic(path_, serialize_cache(current)));
  entries_ = std::move(current);
  return Status::ok();
}

}  // namespace ksnap::tune
