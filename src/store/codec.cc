#include "store/codec.h"

#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_decompressBound, ZSTD_d_stableOutBuffer
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <memory>
#include <new>
#include <stdexcept>

#include "ksnap/support/hash.h"

namespace ksnap::store {

namespace {

struct FreeDCtx {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

/// One decompression context per thread, reused (as ZSTD_decompress would
/// allocate one per call).
ZSTD_DCtx* thread_dctx() {
  thread_local std::unique_ptr<ZSTD_DCtx, FreeDCtx> dctx(ZSTD_createDCtx());
  if (!dctx) return nullptr;
  ZSTD_DCtx_reset(dctx.get(), ZSTD_reset_session_and_parameters);
  // Decode straight into the caller's buffer: no window buffer of the size
  // the (untrusted) frame header asks for.
  ZSTD_DCtx_setParameter(dctx.get(), ZSTD_d_stableOutBuffer, 1);
  return dctx.get();
}

Status corrupt(const std::string& what, const std::string& why) {
  return make_error(ErrorCode::kCorrupt, what + ": " + why);
}

/// Streams `frame` into `out` (exactly out->size() bytes); never writes past it.
Status stream_into(std::string_view frame, std::string* out, const std::string& what) {
  ZSTD_DCtx* dctx = thread_dctx();
  if (!dctx) return make_error(ErrorCode::kInternal, what + ": out of memory (zstd context)");
  ZSTD_inBuffer in{frame.data(), frame.size(), 0};
  ZSTD_outBuffer ob{out->data(), out->size(), 0};
  for (;;) {
    const size_t in_before = in.pos, out_before = ob.pos;
    size_t r = ZSTD_decompressStream(dctx, &ob, &in);
    if (ZSTD_isError(r)) {
      if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall)
        return corrupt(what, "the frame holds more than the stored size, " +
                                 std::to_string(out->size()) + " bytes");
      return corrupt(what, ZSTD_getErrorName(r));
    }
    if (r == 0) break;  // the frame is complete
    if (ob.pos == ob.size)
      return corrupt(what, "the frame holds more than the stored size, " +
                               std::to_string(out->size()) + " bytes");
    if (in.pos == in.size || (in.pos == in_before && ob.pos == out_before))
      return corrupt(what, "truncated zstd frame after " + std::to_string(ob.pos) + " bytes");
  }
  if (ob.pos != out->size())
    return corrupt(what, "decompressed to " + std::to_string(ob.pos) + " bytes, expected " +
                             std::to_string(out->size()));
  return Status::ok();
}

}  // namespace

bool DecodeBudget::take(uint64_t n) {
  if (n > left_) return false;
  left_ -= n;
  return true;
}

std::string compress(std::string_view data, int level) {
  level = std::clamp(level, 1, ZSTD_maxCLevel());
  std::string out(ZSTD_compressBound(data.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), level);
  // ZSTD_compress only fails for a too-small destination, which compressBound rules out.
  out.resize(ZSTD_isError(n) ? 0 : n);
  return out;
}

Expected<std::string> decompress(std::string_view frame, int64_t stored_size,
                                 const std::string& what, DecodeBudget* budget) {
  if (stored_size < 0 || stored_size > kMaxStoredBytes)
    return corrupt(what, "stored size " + std::to_string(stored_size) + " is not in [0, " +
                             std::to_string(kMaxStoredBytes) + "]");
  const auto expected = static_cast<unsigned long long>(stored_size);
  // Exactly one frame: its block headers bound what it can produce, before
  // anything is allocated (a frame without a content size included).
  const size_t frame_bytes = ZSTD_findFrameCompressedSize(frame.data(), frame.size());
  if (ZSTD_isError(frame_bytes)) return corrupt(what, "not a whole zstd frame");
  if (frame_bytes != frame.size())
    return corrupt(what,
                   std::to_string(frame.size() - frame_bytes) + " bytes after the zstd frame");
  const unsigned long long declared = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (declared == ZSTD_CONTENTSIZE_ERROR) return corrupt(what, "not a zstd frame");
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != expected)
    return corrupt(what, "frame holds " + std::to_string(declared) + " bytes, expected " +
                             std::to_string(expected));
  const unsigned long long bound = ZSTD_decompressBound(frame.data(), frame.size());
  if (bound == ZSTD_CONTENTSIZE_ERROR) return corrupt(what, "not a whole zstd frame");
  if (bound < expected)
    return corrupt(what, "frame holds at most " + std::to_string(bound) + " bytes, expected " +
                             std::to_string(expected));
  if (budget && !budget->take(expected))
    return make_error(ErrorCode::kUnsupported,
                      what + ": " + std::to_string(expected) +
                          " more bytes of stored text would exceed the decompression budget of " +
                          std::to_string(budget->total()) + " bytes (" +
                          std::to_string(budget->left()) + " left)");
  std::string out;
  try {
    out.resize(static_cast<size_t>(expected));
  } catch (const std::exception&) {  // bad_alloc, length_error
    return make_error(ErrorCode::kInternal,
                      what + ": out of memory for " + std::to_string(expected) + " bytes");
  }
  KSNAP_RETURN_IF_ERROR(stream_into(frame, &out, what));
  return out;
}

Expected<std::string> decode_blob(const std::string& id, const std::string& raw_hash,
                                  int64_t raw_size, std::string_view frame, DecodeBudget* budget) {
  const std::string what = "blob " + id;
  KSNAP_ASSIGN_OR_RETURN(std::string text, decompress(frame, raw_size, what, budget));
  if (hash128_hex(text) != raw_hash)
    return corrupt(what, "content hash differs from the recorded one");
  if (id.rfind("r:", 0) == 0 && id.substr(2) != raw_hash)
    return corrupt(what, "raw id does not match its content hash");
  return text;
}

}  // namespace ksnap::store
