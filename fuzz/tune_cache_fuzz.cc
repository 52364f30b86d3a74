// libFuzzer target for the tuning cache file (tune/cache.h). Checks: no
// crash or exception on any input ("format": 1 aborted before); errors are
// kParseError or kCorrupt, located; a file that parses serializes to text
// that parses back to the same entries.
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "ksnap/tune/cache.h"

using ksnap::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ksnap;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto entries = tune::parse_cache(text, "cache.json");
  if (!entries) {
    ErrorCode c = entries.status().code();
    check(c == ErrorCode::kParseError || c == ErrorCode::kCorrupt);
    check(entries.status().location().file == "cache.json");
    return 0;
  }
  std::string once = tune::serialize_cache(*entries);
  auto again = tune::parse_cache(once, "again.json");
  check(again.has_value() && again->size() == entries->size());
  check(tune::serialize_cache(*again) == once);
  return 0;
}
