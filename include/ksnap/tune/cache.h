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
// stays valid. An entry that cannot be read (malformed) is reported, not
// used, and written back verbatim by every rewrite. A file that cannot be
// read as a version-1 cache (truncated, not JSON, another format, a version
// this library does not know — written by a newer ksnap) is reported and
// treated as empty, and never overwritten: store() refuses with an error and
// leaves it as it is.
//
// Writes resolve the path's symbolic links first (a link to a file not yet
// created too), take an exclusive flock on "<target>.lock", re-read the
// target, merge the new entry (replacing the one with the same group,
// workload and device) and replace the target atomically (write_file_atomic:
// a temporary file renamed in the target's folder). The link stays a link,
// every name of one cache locks the same file, and several processes tuning
// at once lose nothing and never leave a torn file. Nothing here throws or
// aborts: errors are returned for the host program to report.
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

  /// (Re)reads the file. A missing file is an empty cache (ok). A file that
  /// cannot be used leaves the cache empty and returns the error
  /// (kParseError/kCorrupt with file:line, kInvalidArgument for a FIFO or a
  /// device) for the caller to report. Malformed entries: the others are
  /// used, malformed() counts them and the returned kCorrupt error locates
  /// the first.
  Status load();

  /// The usable entry for (group, workload) on `device`, if any;
  /// `choice_hash_now` is the variant hash the entry's choice has today.
  CacheLookup lookup(uint64_t group_hash, const std::string& workload,
                     const DeviceFingerprint& device,
                     const std::function<uint64_t(size_t)>& choice_hash_now) const;

  /// Merges `e` into the file under the lock (see above) and into memory.
  /// Errors (the file is left as it was): the file cannot be read as a
  /// version-1 cache (kParseError/kCorrupt/kInvalidArgument, "not
  /// overwritten"), the lock or the write failed (kIoError, kNotFound).
  Status store(const CacheEntry& e);
  /// store(), unless the file already holds a usable entry for e's group,
  /// workload and device (a device-equal entry whose choice still has the
  /// hash `choice_hash_now` gives): then nothing is written and that entry is
  /// returned. Checked and written under the same lock, so processes sharing
  /// the file agree on the first decision stored. Returns the entry the file
  /// holds now; errors as store().
  Expected<CacheEntry> store_or_adopt(const CacheEntry& e,
                                      const std::function<uint64_t(size_t)>& choice_hash_now);

  const std::vector<CacheEntry>& entries() const { return entries_; }
  /// Entries of the last load() or store() that could not be read.
  size_t malformed() const { return malformed_; }

 private:
  /// store() and store_or_adopt(): `adopt` null = always write `e`.
  Expected<CacheEntry> merge(const CacheEntry& e, const std::function<uint64_t(size_t)>* adopt);

  std::string path_;
  std::vector<CacheEntry> entries_;
  size_t malformed_ = 0;
};

/// A cache file as read: the entries that could be read, and the others
/// kept as their exact JSON text so that a rewrite preserves them.
struct CacheFile {
  std::vector<CacheEntry> entries;
  std::vector<std::string> kept;  ///< malformed entries, verbatim
  std::vector<Status> problems;   ///< why, one per kept entry, located
};

/// Parses cache file text; a malformed entry is kept, not fatal. Errors
/// for the whole file: kParseError (not JSON, unknown "version"), kCorrupt
/// (not a ksnap tuning cache), located in `name`.
Expected<CacheFile> read_cache(std::string_view text, const std::string& name);

/// Parses cache file text, every entry required to be well formed (`ksnap
/// tune cache`): read_cache's errors, and kCorrupt for the first malformed
/// entry.
Expected<std::vector<CacheEntry>> parse_cache(std::string_view text, const std::string& name);

/// The file text of `entries`, then the `kept` entries' text as it is.
std::string serialize_cache(const std::vector<CacheEntry>& entries,
                            const std::vector<std::string>& kept = {});

}  // namespace ksnap::tune
