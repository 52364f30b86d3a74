#include "ksnap/support/guarded.h"

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <thread>
#include <vector>

namespace ksnap {
namespace {

// Issue 15 item 5: an exception thrown in a loader thread was
// std::terminate (exit 134). guarded() turns every kind into a Status.
TEST(GuardedTest, AnExceptionInAThreadBecomesAStatus) {
  struct Case {
    const char* name;
    std::function<Expected<int>()> body;
    const char* message;  // "" = no error
  };
  const Case cases[] = {
      {"value", [] { return Expected<int>(7); }, ""},
      {"error", [] { return Expected<int>(make_error(ErrorCode::kCorrupt, "bad row")); },
       "bad row"},
      {"bad_alloc", []() -> Expected<int> { throw std::bad_alloc(); }, "loading x: out of memory"},
      {"length_error",
       []() -> Expected<int> { throw std::length_error("basic_string::_M_create"); },
       "loading x: basic_string::_M_create"},
      {"not std", []() -> Expected<int> { throw 42; }, "loading x: unknown exception"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Expected<int> r = Status();
    std::thread t([&] { r = guarded(c.body, "loading x"); });
    t.join();
    if (!*c.message) {
      ASSERT_TRUE(r);
      EXPECT_EQ(*r, 7);
      continue;
    }
    ASSERT_FALSE(r);
    EXPECT_NE(r.status().message().find(c.message), std::string::npos) << r.status().message();
    if (std::string(c.name) != "error") EXPECT_EQ(r.status().code(), ErrorCode::kInternal);
  }
  Status s = guarded([]() -> Status { throw std::runtime_error("boom"); }, "step");
  EXPECT_EQ(s.message(), "step: boom");
}

}  // namespace
}  // namespace ksnap
