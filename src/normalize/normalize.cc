// Public entry points: normalize() builds the Module, normalized_hash() only
// the canonical text's hash. Both run the same Engine (engine.cc), so the
// hashes agree by construction:
//
//   auto buf = read_text_file("k.ttgir");
//   auto m = normalize(*buf, ir::Dialect::kMlir);      // lines, symbols, hash
//   auto h = normalized_hash(*buf, ir::Dialect::kMlir); // == m->hash
#include "ksnap/normalize/normalize.h"

#include "ksnap/support/hash.h"
#include "normalize/engine.h"

namespace ksnap::norm {

Expected<Module> normalize(const TextBuffer& text, ir::Dialect dialect,
                           const NormalizeOptions& opts) {
  detail::Engine engine(text, dialect, opts, /*full=*/true);
  Status s = engine.run();
  if (!s.is_ok()) return s;
  return engine.build_module();
}

Expected<uint64_t> normalized_hash(const TextBuffer& text, ir::Dialect dialect,
                                   const NormalizeOptions& opts) {
  detail::Engine engine(text, dialect, opts, /*full=*/false);
  Status s = engine.run();
  if (!s.is_ok()) return s;
  return engine.canonical_hash();
}

}  // namespace ksnap::norm
