#include "ksnap/support/status.h"

namespace ksnap {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "ok";
    case ErrorCode::kInvalidArgument: return "invalid argument";
    case ErrorCode::kNotFound: return "not found";
    case ErrorCode::kParseError: return "parse error";
    case ErrorCode::kIoError: return "I/O error";
    case ErrorCode::kCorrupt: return "corrupt data";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kUnavailable: return "unavailable";
    case ErrorCode::kInternal: return "internal error";
  }
  return "error";
}

Status Status::with_file(const std::string& file) const {
  if (is_ok() || !loc_.file.empty()) return *this;
  Status s = *this;
  s.loc_.file = file;
  return s;
}

std::string Status::to_string() const {
  if (is_ok()) return "ok";
  std::string out;
  if (!loc_.file.empty()) {
    out += loc_.file;
    if (loc_.line) {
      out += ':' + std::to_string(loc_.line);
      if (loc_.column) out += ':' + std::to_string(loc_.column);
    }
    out += ": ";
  }
  out += error_code_name(code_);
  out += ": ";
  out += message_;
  return out;
}

}  // namespace ksnap
