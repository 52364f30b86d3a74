#include "ksnap/support/text_arena.h"

#include <algorithm>

#include "ksnap/support/memory.h"

namespace ksnap {

namespace {
/// Blocks grow to this size when nobody reserved: small enough that a
/// module of a few lines wastes little, large enough that big ones make few.
constexpr size_t kMinBlock = 16 * 1024;
constexpr size_t kMaxGrownBlock = size_t{4} << 20;
}  // namespace

void TextArena::reserve(size_t bytes) {
  if (bytes <= left_) return;
  new_block(bytes, /*exact=*/true);
}

void TextArena::new_block(size_t at_least, bool exact) {
  // Grown blocks double up to kMaxGrownBlock; a reservation is taken exactly.
  const size_t grown = std::min(std::max(kMinBlock, block_size_ * 2), kMaxGrownBlock);
  const size_t n = exact ? at_least : std::max(at_least, grown);
  used_ += block_size_ - left_;
  blocks_.push_back(std::make_unique_for_overwrite<char[]>(n));
  at_ = blocks_.back().get();
  advise_huge_pages(at_, n);  // only blocks of 8 MiB or more (a big input's)
  left_ = n;
  block_size_ = n;
  capacity_ += n;
}

}  // namespace ksnap
