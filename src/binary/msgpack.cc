#include "ksnap/binary/msgpack.h"

#include <algorithm>

#include "ksnap/binary/elf.h"

namespace ksnap::binary::msgpack {
namespace {

class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}

  Status error(const std::string& what) const {
    return make_error(ErrorCode::kParseError,
                      "msgpack: " + what + " at byte " + std::to_string(at_));
  }

  Status value(Value* out, int depth) {
    if (depth > kMaxDepth) return error("nesting deeper than " + std::to_string(kMaxDepth));
    uint8_t t = 0;
    if (!read_u8(b_, at_, &t)) return error("value truncated");
    const size_t start = at_++;
    if (t <= 0x7f) return integer(out, t);
    if (t >= 0xe0) return integer(out, static_cast<int8_t>(t));
    if ((t & 0xf0) == 0x80) return container(out, t & 0x0f, true, depth);
    if ((t & 0xf0) == 0x90) return container(out, t & 0x0f, false, depth);
    if ((t & 0xe0) == 0xa0) return bytes(out, t & 0x1f);
    switch (t) {
      case 0xc0:
        out->kind = Value::Kind::kNil;
        return Status::ok();
      case 0xc2:
      case 0xc3:
        out->kind = Value::Kind::kBool;
        out->integer = t == 0xc3;
        return Status::ok();
      case 0xc4:
      case 0xd9:
        return sized_bytes(out, 1);
      case 0xc5:
      case 0xda:
        return sized_bytes(out, 2);
      case 0xc6:
      case 0xdb:
        return sized_bytes(out, 4);
      case 0xcc:
        return unsigned_int(out, 1);
      case 0xcd:
        return unsigned_int(out, 2);
      case 0xce:
        return unsigned_int(out, 4);
      case 0xcf:
        return unsigned_int(out, 8);
      case 0xd0:
        return signed_int(out, 1);
      case 0xd1:
        return signed_int(out, 2);
      case 0xd2:
        return signed_int(out, 4);
      case 0xd3:
        return signed_int(out, 8);
      case 0xca:
        return skip(out, 4);
      case 0xcb:
        return skip(out, 8);
      case 0xd4:
        return skip(out, 2);
      case 0xd5:
        return skip(out, 3);
      case 0xd6:
        return skip(out, 5);
      case 0xd7:
        return skip(out, 9);
      case 0xd8:
        return skip(out, 17);
      case 0xc7:
      case 0xc8:
      case 0xc9: {
        const int w = t == 0xc7 ? 1 : t == 0xc8 ? 2 : 4;
        uint64_t n = 0;
        if (!length(w, &n)) return error("extension length truncated");
        return skip(out, n + 1);
      }
      case 0xdc:
      case 0xdd:
      case 0xde:
      case 0xdf: {
        const int w = (t == 0xdc || t == 0xde) ? 2 : 4;
        uint64_t n = 0;
        if (!length(w, &n)) return error("container length truncated");
        return container(out, n, t >= 0xde, depth);
      }
      default:
        at_ = start;
        return error("unknown type byte " + std::to_string(t));
    }
  }

  size_t at() const { return at_; }

 private:
  Status integer(Value* out, int64_t v) {
    out->kind = Value::Kind::kInt;
    out->integer = v;
    return Status::ok();
  }
  bool length(int width, uint64_t* n) {
    uint64_t v = 0;
    for (int i = 0; i < width; ++i) {
      uint8_t byte = 0;
      if (!read_u8(b_, at_ + i, &byte)) return false;
      v = (v << 8) | byte;  // MessagePack is big-endian
    }
    at_ += width;
    *n = v;
    return true;
  }
  Status unsigned_int(Value* out, int width) {
    uint64_t v = 0;
    if (!length(width, &v)) return error("integer truncated");
    if (v > static_cast<uint64_t>(INT64_MAX)) {
      out->kind = Value::Kind::kOther;
      return Status::ok();
    }
    return integer(out, static_cast<int64_t>(v));
  }
  Status signed_int(Value* out, int width) {
    uint64_t v = 0;
    if (!length(width, &v)) return error("integer truncated");
    const int shift = 64 - 8 * width;  // sign-extend
    return integer(out, static_cast<int64_t>(v << shift) >> shift);
  }
  Status skip(Value* out, uint64_t n) {
    if (!in_bounds(b_.size(), at_, n)) return error("value runs past the end");
    at_ += n;
    out->kind = Value::Kind::kOther;
    return Status::ok();
  }
  Status bytes(Value* out, uint64_t n) {
    if (!in_bounds(b_.size(), at_, n)) return error("string runs past the end");
    out->kind = Value::Kind::kString;
    out->text = std::string(b_.substr(at_, n));
    at_ += n;
    return Status::ok();
  }
  Status sized_bytes(Value* out, int width) {
    uint64_t n = 0;
    if (!length(width, &n)) return error("string length truncated");
    return bytes(out, n);
  }
  Status container(Value* out, uint64_t n, bool map, int depth) {
    const uint64_t items = map ? 2 * n : n;
    // Every element takes at least one byte: a count above the bytes left is
    // a lie, refused before anything is allocated.
    if (items > b_.size() - at_)
      return error("container of " + std::to_string(n) + " elements is longer than the bytes left");
    out->kind = map ? Value::Kind::kMap : Value::Kind::kArray;
    // Grown as elements are read, so memory follows the bytes actually read.
    out->items.reserve(std::min<uint64_t>(items, 64));
    for (uint64_t i = 0; i < items; ++i) {
      out->items.emplace_back();
      KSNAP_RETURN_IF_ERROR(value(&out->items.back(), depth + 1));
    }
    return Status::ok();
  }

  std::string_view b_;
  size_t at_ = 0;
};

}  // namespace

const Value* Value::find(std::string_view key) const {
  if (kind != Kind::kMap) return nullptr;
  for (size_t i = 0; i + 1 < items.size(); i += 2)
    if (items[i].kind == Kind::kString && items[i].text == key) return &items[i + 1];
  return nullptr;
}

bool Value::integer_at(std::string_view key, int64_t* out) const {
  const Value* v = find(key);
  if (!v || v->kind != Kind::kInt) return false;
  *out = v->integer;
  return true;
}

bool Value::string_at(std::string_view key, std::string* out) const {
  const Value* v = find(key);
  if (!v || v->kind != Kind::kString) return false;
  *out = v->text;
  return true;
}

Expected<Value> parse(std::string_view bytes) {
  Reader r(bytes);
  Value v;
  KSNAP_RETURN_IF_ERROR(r.value(&v, 0));
  if (r.at() != bytes.size()) return r.error("trailing bytes after the document");
  return v;
}

}  // namespace ksnap::binary::msgpack
