// The run's input limits from the environment; see input_limits.h.
#include "input_limits.h"

#include <cstdlib>

#include "ksnap/support/file.h"

namespace ksnap::cli {

Expected<uint64_t> parse_byte_size(const std::string& text, const std::string& what) {
  auto bad = [&] {
    return make_error(ErrorCode::kInvalidArgument,
                      what + " '" + text + "' is not a size: bytes, or a number with K, M, G or T");
  };
  size_t digits = text.find_first_not_of("0123456789");
  if (digits == 0 || text.size() - (digits == std::string::npos ? text.size() : digits) > 1)
    return bad();
  int shift = 0;
  if (digits != std::string::npos) {
    switch (text[digits] | 0x20) {
      case 'k':
        shift = 10;
        break;
      case 'm':
        shift = 20;
        break;
      case 'g':
        shift = 30;
        break;
      case 't':
        shift = 40;
        break;
      default:
        return bad();
    }
  }
  std::string number = text.substr(0, digits);
  if (number.size() > 19) return bad();
  uint64_t n = std::strtoull(number.c_str(), nullptr, 10);
  if (n > (UINT64_MAX >> shift)) return bad();
  return n << shift;
}

Status apply_input_limits() {
  InputLimits l;
  l.file_bytes = kDefaultMaxFileBytes;
  l.total_bytes = kDefaultMaxInputBytes;
  l.file_setting = "KSNAP_MAX_FILE_BYTES";
  l.total_setting = "KSNAP_MAX_INPUT_BYTES";
  for (auto [name, field] : {std::pair{"KSNAP_MAX_FILE_BYTES", &l.file_bytes},
                             std::pair{"KSNAP_MAX_INPUT_BYTES", &l.total_bytes}}) {
    const char* v = std::getenv(name);
    if (!v || !*v) continue;
    KSNAP_ASSIGN_OR_RETURN(*field, parse_byte_size(v, name));
  }
  set_input_limits(std::move(l));
  return Status::ok();
}

}  // namespace ksnap::cli
