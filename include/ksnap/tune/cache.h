// ksnap tune: the persistent tuning cache.
//
// One JSON file holds decisions for many groups, workloads and devices:
//
//   {"format": "ksnap-tune-cache", "version": 1, "entries": [
//     {"group": "3f9c0a...", "group_name": "matmul", "workload": "4096x4096x4096",
//      "choice": 2, "choice_name": "BM128_BN128_BK32", "choice_hash": "a1b2...",
//      "decision": "tied", "median_us": [267.7, 268.4, 265.9, ...],
//      "device": {"backend": "cuda", "name": "NVIDIA H200", "uuid": "GPU-...",
//                 "cc": [9, 0], "sm_count": 132, "driver": 13000, "cuda": 13000,
//                 "library": "ksnap-tune 0.1.0"}}, ...]}
//
// An entry is used only when its group hash (variant binaries + launch
// geometry), workload label and every device field match, and its choice
// still names the same variant binary. A mismatch makes that entry stale —
// it is skipped and kept for the device it belongs to; the rest of the file
// stays valid. A truncated or corrupt file is reported and treated as empty.
//
// Writes take an exclusive flock on "<path>.lock", re-read the file, merge the
// new entry (replacing the one with the same group, workload and device) and
// replace the file atomically (write_file_atomic), so several processes
// tuning at once lose nothing and never leave a torn file.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ksnap/support/status.h"
#include "ksnap/tune/backend.h"

namespace ksnap::tune {

struct CacheEntry {
  uint64_t group_hash = 0;
  std::string group_name;
  std::string workload;  ///< bucket label
  size_t choice = 0;
  std::string choice_name;
  uint64_t choice_hash = 0;
  std::string decision;
  std::vector<double> median_us;
  DeviceFingerprint device;
};

/// Result of a lookup: the entry, or why none could be used.
struct CacheLookup {
  std::optional<CacheEntry> entry;
  /// "" when found; "no entry"; "stale: <field> differs"; "stale: variant binary changed".
  std::string why_not;
};

class TuningCache {
 public:
  explicit TuningCache(std::string path) : path_(std::move(path)) {}
  const std::string& path() const { return path_; }

  /// (Re)reads the file. A missing file is an empty cache (ok). A corrupt
  /// file leaves the cache empty and returns the error (kParseError/kCorrupt
  /// with file:line) for the caller to report.
  Status load();

  /// The usable entry for (group, workload) on `device`, if any;
  /// `choice_hash_now` is the variant hash the entry's choice has today.
  CacheLookup lookup(uint64_t group_hash, const std::string& workload,
                     const DeviceFingerprint& device,
                     const std::function<uint64_t(size_t)>& choice_hash_now) const;

  /// Merges `e` into the file under the lock (see above) and into memory.
  Status store(const CacheEntry& e);

  const std::vector<CacheEntry>& entries() const { return entries_; }

 private:
  std::string path_;
  std::vector<CacheEntry> entries_;
};

/// Parses cache file text (exposed for tests and `ksnap tune cache`).
Expected<std::vector<CacheEntry>> parse_cache(std::string_view text, const std::string& name);
std::string serialize_cache(const std::vector<CacheEntry>& entries);

}  // namespace ksnap::tune
