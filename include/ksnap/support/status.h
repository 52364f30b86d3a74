// ksnap support layer: error values that cross library APIs.
//
// No exceptions cross a ksnap library API. A fallible function returns
// `Status` (no value) or `Expected<T>` (a value or an error). An error carries a
// code, a human-readable message, and where known the file, line and column
// that caused it, so that the CLI can print `file:line:col: error: message`.
//
//   Expected<Build> b = load_build("ci/base");
//   if (!b) { std::cerr << b.status().to_string() << "\n"; return 2; }
//   use(*b);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace ksnap {

/// What kind of failure a Status reports. Stable: renderers and exit-code
/// mapping switch on it.
enum class ErrorCode : uint8_t {
  kOk = 0,
  kInvalidArgument,  ///< Caller passed something unusable (bad flag value, etc.).
  kNotFound,         ///< A file, variant or record does not exist.
  kParseError,       ///< Input text is malformed (IR, JSON, CSV, manifest).
  kIoError,          ///< Reading or writing the file system failed.
  kCorrupt,          ///< Stored data fails its own integrity check.
  kUnsupported,      ///< Valid input that ksnap does not handle (yet).
  kUnavailable,      ///< A runtime facility is missing (no CUDA driver, ...).
  kInternal,         ///< A bug in ksnap.
};

/// Human-readable name of a code ("parse error", ...).
const char* error_code_name(ErrorCode code);

/// Where in an input an error was found. line/column are 1-based; 0 = unknown.
struct SourceLocation {
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
};

/// The result of an operation without a value. Cheap to copy when ok.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message, SourceLocation loc = {})
      : code_(code), message_(std::move(message)), loc_(std::move(loc)) {}

  static Status ok() { return Status(); }

  bool is_ok() const { return code_ == ErrorCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  const SourceLocation& location() const { return loc_; }

  /// Returns a copy with the file set (when the error has none yet), so that
  /// a lower layer that only saw a buffer can report the path.
  Status with_file(const std::string& file) const;

  /// `file:line:col: <code>: message`, omitting parts that are unknown.
  std::string to_string() const;

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
  SourceLocation loc_;
};

/// Either a T or a non-ok Status. Access the value only after checking.
template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Expected(Status status) : v_(std::move(status)) {}  // NOLINT: implicit by design

  bool has_value() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return has_value(); }

  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  /// The error; an ok Status when a value is held.
  Status status() const { return has_value() ? Status() : std::get<Status>(v_); }

 private:
  std::variant<T, Status> v_;
};

/// Builds an error Status; `loc` optional.
inline Status make_error(ErrorCode code, std::string message, SourceLocation loc = {}) {
  return Status(code, std::move(message), std::move(loc));
}

}  // namespace ksnap

/// Propagates a non-ok Status from an expression returning Status.
#define KSNAP_RETURN_IF_ERROR(expr)          \
  do {                                       \
    ::ksnap::Status ksnap_st_ = (expr);      \
    if (!ksnap_st_.is_ok()) return ksnap_st_; \
  } while (0)

#define KSNAP_CONCAT_INNER_(a, b) a##b
#define KSNAP_CONCAT_(a, b) KSNAP_CONCAT_INNER_(a, b)
/// `KSNAP_ASSIGN_OR_RETURN(auto x, f());` declares x from an Expected or returns its error.
#define KSNAP_ASSIGN_OR_RETURN(decl, expr)                               \
  auto KSNAP_CONCAT_(ksnap_ex_, __LINE__) = (expr);                      \
  if (!KSNAP_CONCAT_(ksnap_ex_, __LINE__)) return KSNAP_CONCAT_(ksnap_ex_, __LINE__).status(); \
  decl = std::move(*KSNAP_CONCAT_(ksnap_ex_, __LINE__))
