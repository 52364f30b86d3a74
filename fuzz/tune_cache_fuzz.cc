// libFuzzer target for the tuning cache file (tune/cache.h). Checks: no
// crash or exception on any input ("format": 1 aborted before); errors are
// kParseError or kCorrupt, located; the strict reader (parse_cache) fails
// exactly when the lenient one (read_cache) found malformed entries; a file
// that reads serializes — malformed entries kept verbatim — to text that
// reads back to the same entries and the same kept text.
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "ksnap/tune/cache.h"

using ksnap::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ksnap;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto file = tune::read_cache(text, "cache.json");
  auto strict = tune::parse_cache(text, "cache.json");
  if (!file) {
    ErrorCode c = file.status().code();
    check(c == ErrorCode::kParseError || c == ErrorCode::kCorrupt);
    check(file.status().location().file == "cache.json");
    check(!strict.has_value());
    return 0;
  }
  check(file->kept.size() == file->problems.size());
  check(strict.has_value() == file->kept.empty());
  for (const Status& p : file->problems) check(p.code() == ErrorCode::kCorrupt);
  std::string once = tune::serialize_cache(file->entries, file->kept);
  auto again = tune::read_cache(once, "again.json");
  check(again.has_value() && again->entries.size() == file->entries.size());
  check(again->kept == file->kept);
  check(tune::serialize_cache(again->entries, again->kept) == once);
  return 0;
}
