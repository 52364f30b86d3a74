// libFuzzer target for recompile.json (capture::parse_recompile_report), the
// report `ksnap recompile` writes beside a rebuilt capture and `ksnap diff`
// reads for the variants it could not rebuild. Checks: no crash or
// exception; errors are located in the file; a reason read is one line
// (the error's last line).
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "ksnap/capture/recompile.h"

using ksnap::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ksnap;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = capture::parse_recompile_report(text, "recompile.json");
  if (!r) {
    check(r.status().location().file == "recompile.json");
    return 0;
  }
  for (const capture::NotRebuilt& n : *r) check(n.reason.find('\n') == std::string::npos);
  return 0;
}
