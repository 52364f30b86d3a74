// libFuzzer target for unstable.json (build/unstable.h), the compiler
// nondeterminism report a capture may carry. Checks: no crash or
// exception; errors are located in the file; a report that parses writes
// text that parses back to the same text.
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "ksnap/build/unstable.h"

using ksnap::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ksnap;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = build::parse_unstable(text, "unstable.json");
  if (!r) {
    check(r.status().location().file == "unstable.json");
    return 0;
  }
  std::string once = build::unstable_json(*r);
  auto again = build::parse_unstable(once, "again.json");
  check(again.has_value());
  check(build::unstable_json(*again) == once);
  return 0;
}
