#include "ksnap/tune/cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "ksnap/support/file.h"
#include "ksnap/support/hash.h"
#include "tune/json_util.h"

namespace ksnap::tune {

namespace {

using nlohmann::json;

json device_json(const DeviceFingerprint& d) {
  return {{"backend", d.backend},        {"name", d.name},
          {"uuid", d.uuid},              {"cc", {d.cc_major, d.cc_minor}},
          {"sm_count", d.sm_count},      {"driver", d.driver_version},
          {"cuda", d.cuda_version},      {"library", d.library_version}};
}

bool parse_hex(const json& j, uint64_t& out) {
  if (!j.is_string()) return false;
  const std::string& s = j.get_ref<const std::string&>();
  if (s.empty() || s.size() > 16) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtoull(s.c_str(), &end, 16);
  return errno == 0 && end && *end == '\0';
}

// Reads one entry; false when a field is missing or has the wrong type.
bool entry_from_json(const json& j, CacheEntry& e) {
  if (!j.is_object()) return false;
  auto str = [&](const char* k, std::string& out) {
    if (!j.contains(k) || !j[k].is_string()) return false;
    out = j[k].get<std::string>();
    return true;
  };
  if (!j.contains("group") || !parse_hex(j["group"], e.group_hash)) return false;
  if (!j.contains("choice_hash") || !parse_hex(j["choice_hash"], e.choice_hash)) return false;
  if (!str("workload", e.workload) || !str("decision", e.decision)) return false;
  str("group_name", e.group_name);
  str("choice_name", e.choice_name);
  if (!j.contains("choice") || !j["choice"].is_number_unsigned()) return false;
  e.choice = j["choice"].get<size_t>();
  if (j.contains("median_us") && j["median_us"].is_array())
    for (const auto& m : j["median_us"])
      if (m.is_number()) e.median_us.push_back(m.get<double>());
  if (!j.contains("device") || !j["device"].is_object()) return false;
  const json& d = j["device"];
  auto dstr = [&](const char* k, std::string& out) {
    if (!d.contains(k) || !d[k].is_string()) return false;
    out = d[k].get<std::string>();
    return true;
  };
  auto dint = [&](const char* k, int& out) {
    if (!d.contains(k) || !d[k].is_number_integer()) return false;
    out = d[k].get<int>();
    return true;
  };
  if (!dstr("backend", e.device.backend) || !dstr("name", e.device.name) ||
      !dstr("uuid", e.device.uuid) || !dstr("library", e.device.library_version))
    return false;
  if (!dint("sm_count", e.device.sm_count) || !dint("driver", e.device.driver_version) ||
      !dint("cuda", e.device.cuda_version))
    return false;
  if (!d.contains("cc") || !d["cc"].is_array() || d["cc"].size() != 2 ||
      !d["cc"][0].is_number_integer() || !d["cc"][1].is_number_integer())
    return false;
  e.device.cc_major = d["cc"][0].get<int>();
  e.device.cc_minor = d["cc"][1].get<int>();
  return true;
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
      error_ = make_error(ErrorCode::kIoError, std::string("cannot open lock file: ") +
                                                   std::strerror(errno),
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
  KSNAP_ASSIGN_OR_RETURN(json j, detail::parse_json(text, name));
  if (!j.is_object() || j.value("format", "") != "ksnap-tune-cache")
    return make_error(ErrorCode::kCorrupt, "not a ksnap tuning cache (\"format\" missing)",
                      {name, 1, 1});
  if (!j.contains("version") || j["version"] != 1)
    return detail::json_error(text, name, "\"version\"", "unsupported tuning cache version");
  if (!j.contains("entries") || !j["entries"].is_array())
    return detail::json_error(text, name, "", "tuning cache has no \"entries\" array");
  std::vector<CacheEntry> out;
  for (size_t i = 0; i < j["entries"].size(); ++i) {
    CacheEntry e;
    if (!entry_from_json(j["entries"][i], e)) {
      // Locate the i-th entry by its "group" key for the message.
      size_t at = 0;
      for (size_t k = 0; k <= i && at != std::string_view::npos; ++k)
        at = text.find("\"group\"", k ? at + 1 : 0);
      SourceLocation loc{name, 0, 0};
      if (at != std::string_view::npos) loc = location_in(text, at, name);
      return make_error(ErrorCode::kCorrupt,
                        "tuning cache entry " + std::to_string(i) + " is malformed", loc);
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::string serialize_cache(const std::vector<CacheEntry>& entries) {
  json arr = json::array();
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
  json j = {{"format", "ksnap-tune-cache"}, {"version", 1}, {"entries", std::move(arr)}};
  return j.dump(1) + "\n";
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
