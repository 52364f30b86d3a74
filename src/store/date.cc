#include "ksnap/store/date.h"

#include <cctype>
#include <ctime>

namespace ksnap::store {

namespace {

/// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar.
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/// Reads exactly `n` digits at s[*i].
bool digits(const std::string& s, size_t* i, int n, int64_t* out) {
  int64_t v = 0;
  for (int k = 0; k < n; ++k, ++*i) {
    if (*i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[*i]))) return false;
    v = v * 10 + (s[*i] - '0');
  }
  *out = v;
  return true;
}

bool expect(const std::string& s, size_t* i, char c) {
  if (*i < s.size() && s[*i] == c) {
    ++*i;
    return true;
  }
  return false;
}

}  // namespace

Expected<int64_t> parse_date(const std::string& text) {
  auto bad = [&]() {
    return make_error(
        ErrorCode::kInvalidArgument,
        "'" + text + "' is not a date (Unix seconds or YYYY-MM-DD[THH:MM[:SS]][Z|+HH:MM])");
  };
  if (text.empty()) return bad();
  bool all_digits = true;
  for (char c : text) all_digits = all_digits && std::isdigit(static_cast<unsigned char>(c));
  if (all_digits && text.size() != 8) {
    if (text.size() > 12) return bad();
    return static_cast<int64_t>(std::stoll(text));
  }
  size_t i = 0;
  int64_t y, mo, d, h = 0, mi = 0, sec = 0;
  if (!digits(text, &i, 4, &y) || !expect(text, &i, '-') || !digits(text, &i, 2, &mo) ||
      !expect(text, &i, '-') || !digits(text, &i, 2, &d))
    return bad();
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return bad();
  if (i < text.size() && (text[i] == 'T' || text[i] == ' ')) {
    ++i;
    if (!digits(text, &i, 2, &h) || !expect(text, &i, ':') || !digits(text, &i, 2, &mi))
      return bad();
    if (expect(text, &i, ':') && !digits(text, &i, 2, &sec)) return bad();
    if (h > 23 || mi > 59 || sec > 60) return bad();
  }
  int64_t offset = 0;
  if (i < text.size()) {
    char sign = text[i++];
    if (sign == 'Z' && i == text.size()) {
      // UTC
    } else if (sign == '+' || sign == '-') {
      int64_t oh, om = 0;
      if (!digits(text, &i, 2, &oh)) return bad();
      expect(text, &i, ':');
      if (i < text.size() && !digits(text, &i, 2, &om)) return bad();
      offset = (oh * 3600 + om * 60) * (sign == '+' ? 1 : -1);
    } else {
      return bad();
    }
    if (i != text.size()) return bad();
  }
  return days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset;
}

std::string format_date(int64_t t) {
  if (t <= 0) return "----------";
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

}  // namespace ksnap::store
