// libFuzzer target for the pass-dump parser (diff::parse_pass_dumps: MLIR,
// LLVM and machine-code `IR Dump` headers, `ksnap explain`) and the first-
// differing-pass search over what it parses. The input is two streams,
// `BASE \0 HEAD`. Checks: no crash or exception; a parse error is located in
// its stream, on a line that exists; every dump's header line is in range
// and in increasing order; its text is made of lines of the stream; a stream
// compared with itself names no pass; a pass named has a snapshot index
// inside its side.
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_util.h"
#include "ksnap/diff/explain.h"

using ksnap::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ksnap;
  std::vector<std::string> parts = fuzz::split_parts(data, size, 2);
  std::vector<std::vector<diff::PassDump>> sides;
  for (size_t i = 0; i < 2; ++i) {
    const std::string& s = parts[i];
    const std::string name = i ? "head.log" : "base.log";
    diff::DumpParseOptions o;
    o.max_dumps = 512;
    auto r = diff::parse_pass_dumps(s, name, o);
    uint32_t lines = 1;
    for (char c : s) lines += c == '\n';
    if (!r) {
      check(r.status().location().file == name);
      check(r.status().location().line >= 1 && r.status().location().line <= lines);
      return 0;
    }
    uint32_t last = 0;
    for (const diff::PassDump& d : *r) {
      check(d.line > last && d.line <= lines);
      last = d.line;
      // Its text is lines of the stream (LLVM's pass-manager log lines left out).
      for (size_t at = 0; at < d.text.size();) {
        size_t nl = d.text.find('\n', at);
        size_t end = nl == std::string::npos ? d.text.size() : nl + 1;
        check(s.find(std::string_view(d.text).substr(at, end - at)) != std::string::npos);
        at = end;
      }
      check(!d.pass.empty());
    }
    sides.push_back(std::move(*r));
  }
  diff::ExplainResult same = diff::explain_passes(sides[0], sides[0]);
  check(!same.found);
  diff::ExplainResult r = diff::explain_passes(sides[0], sides[1]);
  if (r.found) {
    size_t na = diff::pass_outputs(sides[0]).size(), nb = diff::pass_outputs(sides[1]).size();
    check(r.only_in > 0 || r.base_index < na);
    check(r.only_in < 0 || r.head_index < nb);
    check(!r.label.empty());
  }
  return 0;
}
