// libFuzzer target for the history store's variant records (the JSON kept
// compressed in the store, store/variant_codec.h). Checks: decoding any
// text never crashes or throws; a record that decodes encodes to a record
// that decodes to the same encoding (round trip).
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "store/variant_codec.h"

using ksnap::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ksnap;
  std::string text(reinterpret_cast<const char*>(data), size);
  auto v = store::decode_variant(text, "id", "fuzz record");
  if (!v) {
    check(v.status().code() == ErrorCode::kCorrupt);
    return 0;
  }
  std::string once = store::encode_variant(v->meta, v->stages);
  auto again = store::decode_variant(once, "id", "again");
  check(again.has_value());
  check(store::encode_variant(again->meta, again->stages) == once);
  return 0;
}
