// ksnap support layer: one owner for many small texts.
//
// A normalized module holds several short texts per IR line (the display
// text, the shape, the op name): as std::strings they cost a heap block each
// plus 32 bytes of string header, about twice the text itself. An arena keeps
// them back to back in a few big blocks and hands out views:
//
//   TextArena a;
//   a.reserve(4096);                       // one block for what follows
//   std::string_view s = a.add("%8 = shl i32 %7, 8");
//   std::string_view t = a.add(s.substr(0, 2));   // "%8", a copy
//
// Contract: a view that add() returned stays valid, with the same bytes,
// until the arena is destroyed. Blocks never move, so moving the arena (or
// the object that holds it) keeps every view valid; an arena cannot be
// copied (a copy's views would still point into the original).
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace ksnap {

class TextArena {
 public:
  TextArena() = default;
  /// Takes `o`'s blocks; `o` is left empty (and usable: its next add makes
  /// a block of its own).
  TextArena(TextArena&& o) noexcept { *this = std::move(o); }
  TextArena& operator=(TextArena&& o) noexcept {
    if (this == &o) return *this;
    blocks_ = std::move(o.blocks_);
    o.blocks_.clear();
    at_ = std::exchange(o.at_, nullptr);
    left_ = std::exchange(o.left_, 0);
    block_size_ = std::exchange(o.block_size_, 0);
    used_ = std::exchange(o.used_, 0);
    capacity_ = std::exchange(o.capacity_, 0);
    return *this;
  }
  TextArena(const TextArena&) = delete;
  TextArena& operator=(const TextArena&) = delete;

  /// Copies `s` into the arena; the view stays valid while the arena lives.
  std::string_view add(std::string_view s) {
    if (s.empty()) return {};
    if (s.size() > left_) new_block(s.size(), /*exact=*/false);
    char* p = at_;
    std::memcpy(p, s.data(), s.size());
    at_ += s.size();
    left_ -= s.size();
    return {p, s.size()};
  }
  /// Makes room so that the next adds of up to `bytes` in all allocate no
  /// further block (one block of exactly what is missing; nothing when the
  /// current block has room). Untouched room costs address space only.
  void reserve(size_t bytes);
  /// Bytes handed out so far.
  size_t used() const { return used_ + (block_size_ - left_); }
  /// Bytes allocated for blocks (used() plus the room left in each).
  size_t capacity() const { return capacity_; }

 private:
  void new_block(size_t at_least, bool exact);

  std::vector<std::unique_ptr<char[]>> blocks_;
  char* at_ = nullptr;
  size_t left_ = 0;
  size_t block_size_ = 0;  ///< The current block's size.
  size_t used_ = 0;        ///< Bytes used in blocks before the current one.
  size_t capacity_ = 0;
};

}  // namespace ksnap
