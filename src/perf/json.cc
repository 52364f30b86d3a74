#include "ksnap/perf/json.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace ksnap::perf {

const JsonValue* JsonValue::find(std::string_view key) const {
  for (const auto& [k, v] : members) {
    if (k == key) return &v;
  }
  return nullptr;
}

const char* json_kind_name(JsonValue::Kind kind) {
  switch (kind) {
    case JsonValue::Kind::kNull:
      return "null";
    case JsonValue::Kind::kBool:
      return "bool";
    case JsonValue::Kind::kNumber:
      return "number";
    case JsonValue::Kind::kString:
      return "string";
    case JsonValue::Kind::kArray:
      return "array";
    case JsonValue::Kind::kObject:
      return "object";
  }
  return "?";
}

namespace {

class JsonParser {
 public:
  explicit JsonParser(const TextBuffer& buf) : buf_(buf), text_(buf.view()) {}

  bool at_end() {
    skip_space();
    return i_ >= text_.size();
  }

  Expected<JsonValue> value(int depth) {
    skip_space();
    if (i_ >= text_.size()) return error("unexpected end of input, expected a value");
    if (depth > kMaxJsonDepth) return error("nesting deeper than " + std::to_string(kMaxJsonDepth));
    JsonValue v;
    v.line = line_;
    char c = text_[i_];
    switch (c) {
      case '{':
        KSNAP_RETURN_IF_ERROR(object(v, depth));
        break;
      case '[':
        KSNAP_RETURN_IF_ERROR(array(v, depth));
        break;
      case '"':
        v.kind = JsonValue::Kind::kString;
        KSNAP_RETURN_IF_ERROR(string(v.string));
        break;
      case 't':
      case 'f':
      case 'n':
        KSNAP_RETURN_IF_ERROR(literal(v));
        break;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          KSNAP_RETURN_IF_ERROR(number(v));
        } else {
          return error(std::string("unexpected character '") + printable(c) + "'");
        }
    }
    return v;
  }

  Status error(std::string msg) const {
    return make_error(
        ErrorCode::kParseError, std::move(msg),
        SourceLocation{buf_.name(), line_, static_cast<uint32_t>(i_ - line_start_ + 1)});
  }

 private:
  static std::string printable(char c) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", static_cast<unsigned char>(c));
      return hex;
    }
    return std::string(1, c);
  }

  void skip_space() {
    while (i_ < text_.size()) {
      char c = text_[i_];
      if (c == '\n') {
        ++line_;
        line_start_ = i_ + 1;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        return;
      }
      ++i_;
    }
  }

  Status object(JsonValue& v, int depth) {
    v.kind = JsonValue::Kind::kObject;
    ++i_;  // '{'
    skip_space();
    if (i_ < text_.size() && text_[i_] == '}') {
      ++i_;
      return Status::ok();
    }
    while (true) {
      skip_space();
      if (i_ >= text_.size() || text_[i_] != '"') return error("expected a string key");
      std::string key;
      KSNAP_RETURN_IF_ERROR(string(key));
      skip_space();
      if (i_ >= text_.size() || text_[i_] != ':') return error("expected ':' after an object key");
      ++i_;
      KSNAP_ASSIGN_OR_RETURN(JsonValue member, value(depth + 1));
      v.members.push_back(JsonMember{std::move(key), std::move(member)});
      skip_space();
      if (i_ < text_.size() && text_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < text_.size() && text_[i_] == '}') {
        ++i_;
        return Status::ok();
      }
      return error("expected ',' or '}' in an object");
    }
  }

  Status array(JsonValue& v, int depth) {
    v.kind = JsonValue::Kind::kArray;
    ++i_;  // '['
    skip_space();
    if (i_ < text_.size() && text_[i_] == ']') {
      ++i_;
      return Status::ok();
    }
    while (true) {
      KSNAP_ASSIGN_OR_RETURN(JsonValue item, value(depth + 1));
      v.items.push_back(std::move(item));
      skip_space();
      if (i_ < text_.size() && text_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < text_.size() && text_[i_] == ']') {
        ++i_;
        return Status::ok();
      }
      return error("expected ',' or ']' in an array");
    }
  }

  Status literal(JsonValue& v) {
    auto take = [&](std::string_view word) {
      if (text_.substr(i_, word.size()) != word) return false;
      i_ += word.size();
      return true;
    };
    if (take("true")) {
      v.kind = JsonValue::Kind::kBool;
      v.boolean = true;
    } else if (take("false")) {
      v.kind = JsonValue::Kind::kBool;
    } else if (take("null")) {
      v.kind = JsonValue::Kind::kNull;
    } else {
      return error("invalid literal (expected true, false or null)");
    }
    return Status::ok();
  }

  Status number(JsonValue& v) {
    size_t start = i_;
    size_t j = i_;
    auto digits = [&] {
      size_t d = j;
      while (j < text_.size() && text_[j] >= '0' && text_[j] <= '9') ++j;
      return j > d;
    };
    if (text_[j] == '-') ++j;
    if (!digits()) return error("invalid number");
    if (j < text_.size() && text_[j] == '.') {
      ++j;
      if (!digits()) return error("invalid number: digits expected after '.'");
    }
    if (j < text_.size() && (text_[j] == 'e' || text_[j] == 'E')) {
      ++j;
      if (j < text_.size() && (text_[j] == '+' || text_[j] == '-')) ++j;
      if (!digits()) return error("invalid number: digits expected in the exponent");
    }
    double d = 0;
    auto res = std::from_chars(text_.data() + start, text_.data() + j, d);
    if (res.ec != std::errc() || !std::isfinite(d)) return error("number out of range");
    v.kind = JsonValue::Kind::kNumber;
    v.number = d;
    i_ = j;
    return Status::ok();
  }

  static void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else {
      out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    }
  }

  Status hex4(uint32_t& out) {
    if (i_ + 4 > text_.size()) return error("truncated \\u escape");
    out = 0;
    for (int k = 0; k < 4; ++k) {
      char c = text_[i_ + k];
      out <<= 4;
      if (c >= '0' && c <= '9')
        out |= c - '0';
      else if (c >= 'a' && c <= 'f')
        out |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        out |= c - 'A' + 10;
      else
        return error("invalid \\u escape");
    }
    i_ += 4;
    return Status::ok();
  }

  Status string(std::string& out) {
    ++i_;  // opening quote
    while (true) {
      if (i_ >= text_.size()) return error("unterminated string");
      char c = text_[i_];
      if (c == '"') {
        ++i_;
        return Status::ok();
      }
      if (static_cast<unsigned char>(c) < 0x20) return error("control character in a string");
      if (c != '\\') {
        out.push_back(c);
        ++i_;
        continue;
      }
      ++i_;
      if (i_ >= text_.size()) return error("unterminated escape");
      char e = text_[i_++];
      switch (e) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          uint32_t cp = 0;
          KSNAP_RETURN_IF_ERROR(hex4(cp));
          if (cp >= 0xd800 && cp < 0xdc00 && text_.substr(i_, 2) == "\\u") {
            i_ += 2;
            uint32_t low = 0;
            KSNAP_RETURN_IF_ERROR(hex4(low));
            if (low < 0xdc00 || low >= 0xe000) return error("invalid surrogate pair");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
          }
          append_utf8(out, cp);
          break;
        }
        default:
          --i_;
          return error("invalid escape");
      }
    }
  }

  const TextBuffer& buf_;
  std::string_view text_;
  size_t i_ = 0;
  uint32_t line_ = 1;
  size_t line_start_ = 0;
};

}  // namespace

Expected<JsonValue> parse_json(const TextBuffer& buf) {
  JsonParser p(buf);
  KSNAP_ASSIGN_OR_RETURN(JsonValue v, p.value(0));
  if (!p.at_end()) return p.error("unexpected content after the JSON document");
  return v;
}

Expected<std::vector<JsonValue>> parse_json_sequence(const TextBuffer& buf) {
  JsonParser p(buf);
  std::vector<JsonValue> out;
  while (!p.at_end()) {
    KSNAP_ASSIGN_OR_RETURN(JsonValue v, p.value(0));
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace ksnap::perf
