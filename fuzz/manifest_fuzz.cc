// libFuzzer target for the capture reader (capture::parse_manifest): the
// input is manifest text, read as a capture manifest and as a shard. Checks:
// no crash or exception; an error names the file and has a message; a
// manifest read has a format_version this ksnap reads, entries with a
// kernel name field and a plain cache folder name, signatures that are
// their key's prefix, and entry_error locates inside the file for every
// field of every entry. The whole-folder reader (files named, links out) is
// capture_fuzz's.
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "ksnap/capture/manifest.h"
#include "ksnap/support/path_guard.h"

using ksnap::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ksnap;
  std::string text(reinterpret_cast<const char*>(data), size);
  for (auto kind : {capture::ManifestKind::kCapture, capture::ManifestKind::kShard}) {
    auto m = capture::parse_manifest(text, "manifest.json", kind);
    if (!m) {
      check(m.status().location().file == "manifest.json");
      check(!m.status().message().empty());
      check(m.status().code() != ErrorCode::kInternal);
      continue;
    }
    check(m->format_version >= 0 && m->format_version <= capture::kCaptureFormatVersion);
    check(kind == capture::ManifestKind::kCapture || m->format_version >= 1);
    for (size_t i = 0; i < m->entries.size() && i < 64; ++i) {
      const capture::ManifestEntry& e = m->entries[i];
      check(is_plain_name(e.cache_dir));
      check(e.key.key.compare(0, e.key.signature.size(), e.key.signature) == 0);
      (void)e.key.id();
      (void)capture::source_components(e.key);
      for (const char* field : {"kernel", "cache_dir", "metadata", "stages"}) {
        Status s = m->entry_error(i, field, "x");
        check(s.location().file == "manifest.json" && s.location().line >= 1);
      }
      for (const capture::StagePath& st : e.stages)
        check(m->locate(i, "stages", st.stage).line >= 1);
    }
  }
  return 0;
}
