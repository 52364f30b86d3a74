// Public entry points: normalize() builds the Module, normalized_hash() only
// the canonical text's hash, Normalization the hash with the Module on
// demand. All run the same Engine (engine.cc), so the hashes agree by
// construction:
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
  return engine.build_module(engine.unit_hashes());
}

Expected<uint64_t> normalized_hash(const TextBuffer& text, ir::Dialect dialect,
                                   const NormalizeOptions& opts) {
  detail::Engine engine(text, dialect, opts, /*full=*/false);
  Status s = engine.run();
  if (!s.is_ok()) return s;
  return engine.canonical_hash();
}

Normalization::Normalization(std::unique_ptr<detail::Engine> engine,
                             std::vector<uint64_t> unit_hashes, uint64_t hash)
    : engine_(std::move(engine)), unit_hashes_(std::move(unit_hashes)), hash_(hash) {}
Normalization::Normalization(Normalization&&) noexcept = default;
Normalization& Normalization::operator=(Normalization&&) noexcept = default;
Normalization::~Normalization() = default;

Expected<Normalization> Normalization::run(const TextBuffer& text, ir::Dialect dialect,
                                           const NormalizeOptions& opts) {
  auto engine = std::make_unique<detail::Engine>(text, dialect, opts, /*full=*/true);
  Status s = engine->run();
  if (!s.is_ok()) return s;
  // Each unit printed once, for its own hash and the module's: module()
  // then prints nothing again.
  detail::Engine::Hashes hashes = engine->unit_hashes();
  return Normalization(std::move(engine), std::move(hashes.units), hashes.module);
}

Module Normalization::module() && {
  std::unique_ptr<detail::Engine> engine = std::move(engine_);
  if (!engine) return Module{};
  return engine->build_module(detail::Engine::Hashes{std::move(unit_hashes_), hash_});
}

}  // namespace ksnap::norm
