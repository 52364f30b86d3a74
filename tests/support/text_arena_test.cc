#include "ksnap/support/text_arena.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace ksnap {
namespace {

// Views handed out stay valid and unchanged through later adds (new
// blocks), reservations and moves of the arena; empty texts cost nothing.
TEST(TextArenaTest, ViewsOutliveGrowthAndMoves) {
  struct Case {
    const char* name;
    size_t reserve;  // 0: none
    size_t count;
    size_t length;
  };
  const Case cases[] = {
      {"small, no reservation", 0, 100, 7},
      {"many blocks grown", 0, 20000, 33},
      {"one exact reservation", 20000 * 33, 20000, 33},
      {"texts longer than a grown block", 0, 8, 100000},
      {"reservation too small", 1000, 500, 40},
  };
  for (const Case& c : cases) {
    TextArena a;
    if (c.reserve) a.reserve(c.reserve);
    std::vector<std::string> want;
    std::vector<std::string_view> got;
    for (size_t i = 0; i < c.count; ++i) {
      std::string t(c.length, static_cast<char>('a' + i % 26));
      t += std::to_string(i);
      want.push_back(t);
      got.push_back(a.add(t));
    }
    TextArena moved = std::move(a);
    TextArena again;
    again = std::move(moved);
    size_t bytes = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(got[i], want[i]) << c.name << " #" << i;
      bytes += want[i].size();
    }
    EXPECT_EQ(again.used(), bytes) << c.name;
    EXPECT_GE(again.capacity(), again.used()) << c.name;
    if (c.reserve >= bytes) {
      EXPECT_EQ(again.capacity(), c.reserve) << c.name << ": one block";
    }
  }
}

// A moved-from arena is empty and makes blocks of its own: what it adds
// never lands in the blocks it gave away.
TEST(TextArenaTest, MovedFromArenaStartsOver) {
  TextArena a;
  a.reserve(1000);
  const std::string_view kept = a.add("kept text");
  TextArena b = std::move(a);
  EXPECT_EQ(a.used(), 0u);
  EXPECT_EQ(a.capacity(), 0u);
  const std::string_view later = a.add("written after the move");
  const std::string_view more = b.add("more in the new owner");
  EXPECT_EQ(kept, "kept text");
  EXPECT_EQ(later, "written after the move");
  EXPECT_EQ(more, "more in the new owner");
  EXPECT_NE(later.data(), more.data());
  EXPECT_EQ(b.used(), kept.size() + more.size());
  EXPECT_EQ(b.capacity(), 1000u);
  TextArena& self = b;
  b = std::move(self);  // self-move keeps everything
  EXPECT_EQ(kept, "kept text");
  EXPECT_EQ(b.capacity(), 1000u);
}

TEST(TextArenaTest, EmptyTextsTakeNothing) {
  TextArena a;
  EXPECT_TRUE(a.add("").empty());
  EXPECT_TRUE(a.add(std::string_view()).empty());
  EXPECT_EQ(a.used(), 0u);
  EXPECT_EQ(a.capacity(), 0u);
  a.reserve(0);
  EXPECT_EQ(a.capacity(), 0u);
}

TEST(TextArenaTest, ReserveWithRoomLeftAddsNoBlock) {
  TextArena a;
  a.reserve(100);
  a.add("0123456789");
  a.reserve(90);  // fits what is left
  EXPECT_EQ(a.capacity(), 100u);
  a.reserve(91);  // does not: a new block of 91
  EXPECT_EQ(a.capacity(), 191u);
  EXPECT_EQ(a.add(std::string(91, 'x')).size(), 91u);
  EXPECT_EQ(a.capacity(), 191u);
}

}  // namespace
}  // namespace ksnap
