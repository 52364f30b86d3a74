// Calls whose exceptions must not escape: the body of a thread (an
// exception leaving it is std::terminate, an abort) and the few places
// where a library allocates what its input asks for. Any exception becomes
// a Status (kInternal) naming what was being done.
//
//   Expected<Build> b = Status();
//   std::thread loader([&] { b = guarded([&] { return load_build(p); }, "loading " + p); });
//   loader.join();
//   if (!b) return b.status();   // "internal error: loading ci/base: std::bad_alloc"
#pragma once

#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "ksnap/support/status.h"

namespace ksnap {

/// Calls `f` (returning Status or Expected<T>); an exception thrown by it is
/// returned as a kInternal error "<what>: <exception text>" instead.
template <typename F>
auto guarded(F&& f, std::string_view what) noexcept -> decltype(f()) {
  std::string why;
  try {
    return f();
  } catch (const std::bad_alloc&) {
    why = "out of memory";
  } catch (const std::exception& e) {
    why = e.what();
  } catch (...) {
    why = "unknown exception";
  }
  return make_error(ErrorCode::kInternal, std::string(what) + ": " + why);
}

}  // namespace ksnap
