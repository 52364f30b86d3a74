// libFuzzer target for the history store's rows: variant records (the JSON
// kept compressed in the store, store/variant_codec.h) and the zstd frames
// of blobs and records read back with the size their row states
// (store/codec.h). The input is read both ways:
//   - as record text: decoding never crashes or throws; a record that
//     decodes encodes to a record that decodes to the same encoding;
//   - as `<8-byte little-endian stored size><frame>`: decompression of any
//     frame with any stored size (negative, huge, a lie) never crashes,
//     throws or allocates what the row claims; it succeeds only with exactly
//     the stored size, within the budget, and its text round-trips.
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_util.h"
#include "ksnap/support/hash.h"
#include "store/codec.h"
#include "store/variant_codec.h"

using ksnap::fuzz::check;

namespace {

void fuzz_record(const std::string& text) {
  using namespace ksnap;
  auto v = store::decode_variant(text, "id", "fuzz record");
  if (!v) {
    check(v.status().code() == ErrorCode::kCorrupt);
    return;
  }
  std::string once = store::encode_variant(v->meta, v->stages);
  auto again = store::decode_variant(once, "id", "again");
  check(again.has_value());
  check(store::encode_variant(again->meta, again->stages) == once);
}

void fuzz_frame(const uint8_t* data, size_t size) {
  using namespace ksnap;
  if (size < 8) return;
  uint64_t bits = 0;
  for (int i = 7; i >= 0; --i) bits = (bits << 8) | data[i];
  int64_t stored;
  std::memcpy(&stored, &bits, sizeof stored);
  const std::string frame(reinterpret_cast<const char*>(data) + 8, size - 8);
  // 64 MiB in all: an RLE frame of the input's size can honestly hold
  // hundreds of MiB; more is refused by the budget, not allocated.
  store::DecodeBudget budget(uint64_t{64} << 20);
  auto text = store::decompress(frame, stored, "blob fuzz", &budget);
  if (!text) {
    const ErrorCode c = text.status().code();
    check(c == ErrorCode::kCorrupt || c == ErrorCode::kUnsupported);
    check(text.status().message().rfind("blob fuzz: ", 0) == 0);
    return;
  }
  check(static_cast<int64_t>(text->size()) == stored);
  check(budget.left() == budget.total() - text->size());
  // decode_blob: the right hash passes, any other fails.
  const std::string hash = hash128_hex(*text);
  check(store::decode_blob("r:" + hash, hash, stored, frame).has_value());
  check(!store::decode_blob("n:mlir:0", std::string(32, 'f') == hash ? "0" : std::string(32, 'f'),
                            stored, frame));
  auto back = store::decompress(store::compress(*text, 1), stored, "again");
  check(back.has_value() && *back == *text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz_record(std::string(reinterpret_cast<const char*>(data), size));
  fuzz_frame(data, size);
  return 0;
}
