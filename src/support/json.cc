#include "ksnap/support/json.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "ksnap/support/file.h"
#include "ksnap/support/text.h"

namespace ksnap::json {

namespace {

constexpr size_t kNpos = std::string_view::npos;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// First byte at or after i that is not JSON whitespace.
size_t skip_space(std::string_view t, size_t i) {
  while (i < t.size() && is_space(t[i])) ++i;
  return i;
}

/// Offset after the string that opens at t[i] == '"' (t.size() when unclosed).
size_t skip_string(std::string_view t, size_t i) {
  for (++i; i < t.size(); ++i) {
    if (t[i] == '\\') {
      ++i;
    } else if (t[i] == '"') {
      return i + 1;
    }
  }
  return t.size();
}

/// Offset after the value that starts at t[i]; iterative, any depth.
size_t skip_value(std::string_view t, size_t i) {
  long depth = 0;
  while (i < t.size()) {
    char c = t[i];
    if (c == '"') {
      i = skip_string(t, i);
      if (depth == 0) return i;
    } else if (c == '[' || c == '{') {
      ++depth;
      ++i;
    } else if (c == ']' || c == '}') {
      ++i;
      if (--depth <= 0) return i;
    } else if (depth == 0) {  // a number or literal: up to a delimiter
      while (i < t.size() && !is_space(t[i]) && std::strchr(",]}", t[i]) == nullptr) ++i;
      return i;
    } else {
      ++i;
    }
  }
  return i;
}

/// The member name spelled by the quoted text `raw`.
std::string decode_key(std::string_view raw) {
  if (raw.size() >= 2 && raw.find('\\') == kNpos) return std::string(raw.substr(1, raw.size() - 2));
  Value v = Value::parse(raw.begin(), raw.end(), nullptr, /*allow_exceptions=*/false);
  return v.is_string() ? v.get<std::string>() : std::string();
}

/// Calls f(offset) for each item of the array starting at t[i] == '[', in
/// order, until f returns false. One pass over the array's text.
template <typename F>
void for_each_item(std::string_view t, size_t i, F f) {
  for (size_t k = i + 1;;) {
    k = skip_space(t, k);
    if (k >= t.size() || t[k] == ']') return;
    if (t[k] == ',') {
      ++k;
      continue;
    }
    if (!f(k)) return;
    k = skip_value(t, k);
  }
}

/// Offset of the child `step` of the value starting at t[i], or kNpos.
size_t find_child(std::string_view t, size_t i, const Path::Step& step) {
  i = skip_space(t, i);
  if (i >= t.size()) return kNpos;
  if (const std::string* key = std::get_if<std::string>(&step)) {
    if (t[i] != '{') return kNpos;
    size_t found = kNpos;
    for (++i;;) {
      i = skip_space(t, i);
      if (i >= t.size() || t[i] == '}') return found;
      if (t[i] == ',') {
        ++i;
        continue;
      }
      if (t[i] != '"') return found;
      size_t key_end = skip_string(t, i);
      bool match = decode_key(t.substr(i, key_end - i)) == *key;
      i = skip_space(t, key_end);
      if (i >= t.size() || t[i] != ':') return found;
      i = skip_space(t, i + 1);
      if (match) found = i;  // a repeated key: the last one wins, as in the parsed tree
      i = skip_value(t, i);
    }
  }
  const size_t want = std::get<size_t>(step);
  if (t[i] != '[') return kNpos;
  size_t found = kNpos, n = 0;
  for_each_item(t, i, [&](size_t k) {
    if (n++ != want) return true;
    found = k;
    return false;
  });
  return found;
}

/// Offset where parsing `text` fails (nlohmann reports it only this way).
size_t syntax_error_offset(std::string_view text, std::string* why) {
  struct Sax : nlohmann::json_sax<Value> {
    size_t pos = 0;
    std::string msg;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t position, const std::string&,
                     const nlohmann::detail::exception& ex) override {
      pos = position;
      msg = ex.what();
      return false;
    }
  } sax;
  Value::sax_parse(text.begin(), text.end(), &sax, nlohmann::detail::input_format_t::json,
                   /*strict=*/true);
  *why = sax.msg;
  return sax.pos > 0 ? sax.pos - 1 : 0;
}

constexpr int kMaxDumpDepth = 2 * kMaxDepth;

/// Makes every string and key of `v` valid UTF-8; cuts nesting below kMaxDumpDepth.
void repair(Value& v, int depth) {
  if (depth > kMaxDumpDepth) {
    v = "<nested too deep>";
    return;
  }
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (!is_valid_utf8(s)) v = to_valid_utf8(s);
  } else if (v.is_array()) {
    for (Value& item : v) repair(item, depth + 1);
  } else if (v.is_object()) {
    bool keys_ok = true;
    for (auto it = v.begin(); it != v.end() && keys_ok; ++it) keys_ok = is_valid_utf8(it.key());
    if (!keys_ok) {
      Value fixed = Value::object();
      for (auto it = v.begin(); it != v.end(); ++it)
        fixed[to_valid_utf8(it.key())] = std::move(it.value());
      v = std::move(fixed);
    }
    for (auto it = v.begin(); it != v.end(); ++it) repair(it.value(), depth + 1);
  }
}

}  // namespace

Path Path::key(std::string_view k) const {
  Path p = *this;
  p.steps_.emplace_back(std::string(k));
  return p;
}

Path Path::index(size_t i) const {
  Path p = *this;
  p.steps_.emplace_back(i);
  return p;
}

std::string Path::to_string() const {
  if (steps_.empty()) return "the document";
  std::string out;
  for (const Step& s : steps_) {
    if (const std::string* k = std::get_if<std::string>(&s)) {
      if (!out.empty()) out += '.';
      out += to_valid_utf8(*k);
    } else {
      out += '[';
      out += std::to_string(std::get<size_t>(s));
      out += ']';
    }
  }
  return out;
}

const char* kind_name(const Value& v) {
  switch (v.type()) {
    case Value::value_t::null:
      return "null";
    case Value::value_t::boolean:
      return "boolean";
    case Value::value_t::number_integer:
    case Value::value_t::number_unsigned:
    case Value::value_t::number_float:
      return "number";
    case Value::value_t::string:
      return "string";
    case Value::value_t::array:
      return "array";
    case Value::value_t::object:
      return "object";
    default:
      return "invalid value";
  }
}

namespace {

/// check_depth over text[begin, end), located in the whole text.
Status check_depth_in(std::string_view text, size_t begin, size_t end, const std::string& file,
                      int max_depth) {
  long depth = 0;
  for (size_t i = begin; i < end; ++i) {
    char c = text[i];
    if (c == '"') {
      i = skip_string(text.substr(0, end), i) - 1;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        return make_error(ErrorCode::kParseError,
                          "JSON nested deeper than " + std::to_string(max_depth) + " levels",
                          location_in(text, i, file));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return Status::ok();
}

/// What nlohmann does not check itself, for text[begin, end): the depth
/// limit, and NUL bytes — nlohmann stops at one as at the end of the input
/// ("7\0junk" would read as 7); a raw NUL is never valid JSON.
Status check_before_parse(std::string_view text, size_t begin, size_t end, const std::string& file,
                          int max_depth) {
  KSNAP_RETURN_IF_ERROR(check_depth_in(text, begin, end, file, max_depth));
  const size_t nul = text.substr(begin, end - begin).find('\0');
  if (nul != std::string_view::npos)
    return make_error(ErrorCode::kParseError, "invalid JSON: a NUL byte",
                      location_in(text, begin + nul, file));
  return Status::ok();
}

/// Parses text[begin, end) as one value; errors located in the whole text.
Expected<Value> parse_in(std::string_view text, size_t begin, size_t end, const std::string& file,
                         int max_depth) {
  KSNAP_RETURN_IF_ERROR(check_before_parse(text, begin, end, file, max_depth));
  std::string_view part = text.substr(begin, end - begin);
  Value v = Value::parse(part.begin(), part.end(), nullptr, /*allow_exceptions=*/false);
  if (!v.is_discarded()) return v;
  std::string why;
  size_t at = syntax_error_offset(part, &why);
  // "[json.exception.parse_error.101] parse error at line 1, column 6: syntax error ..."
  size_t p = why.find("syntax error");
  if (p == std::string::npos) p = why.find("] ") == std::string::npos ? 0 : why.find("] ") + 2;
  why = why.empty() ? std::string("not valid JSON") : why.substr(p);
  return make_error(ErrorCode::kParseError, "invalid JSON: " + to_valid_utf8(why),
                    location_in(text, begin + at, file));
}

/// Offset of the first value in `text`: after whitespace and a UTF-8 byte order mark.
size_t first_value(std::string_view text) {
  size_t at = skip_space(text, 0);
  if (text.substr(at, 3) == "\xEF\xBB\xBF") at = skip_space(text, at + 3);
  return at;
}

}  // namespace

Status check_depth(std::string_view text, const std::string& file, int max_depth) {
  return check_depth_in(text, 0, text.size(), file, max_depth);
}

Expected<Value> parse(std::string_view text, const std::string& file, int max_depth) {
  return parse_in(text, 0, text.size(), file, max_depth);
}

Value parse_or_string(std::string_view text) {
  // Not parse(): a bare string is the common case here, and parse() would
  // read it a second time to say where it stopped being JSON.
  if (check_before_parse(text, 0, text.size(), "value", kMaxDepth)) {
    Value v = Value::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (!v.is_discarded()) return v;
  }
  return json::text(text);
}

Expected<Document> Document::parse(std::string_view text, std::string file, int max_depth) {
  KSNAP_ASSIGN_OR_RETURN(Value v, json::parse(text, file, max_depth));
  const size_t start = first_value(text);
  SourceLocation at = location_in(text, start, file);
  return Document(text, std::move(file), std::move(v), start, at.line, at.column);
}

Expected<std::vector<Document>> Document::parse_sequence(std::string_view text, std::string file,
                                                         int max_depth) {
  std::vector<Document> docs;
  // Where each document starts, counted on from the previous one: one pass.
  SourceLocation loc{file, 1, 1};
  size_t loc_at = 0;
  for (size_t at = first_value(text); at < text.size(); at = skip_space(text, at)) {
    // A value ends where its brackets close (or at a delimiter for a scalar);
    // what is not a value there (`,`, a stray `]`) is one byte nlohmann rejects.
    size_t end = std::max(skip_value(text, at), at + 1);
    KSNAP_ASSIGN_OR_RETURN(Value v, parse_in(text, at, end, file, max_depth));
    loc = location_from(text, loc_at, std::move(loc), at);
    loc_at = at;
    docs.push_back(Document(text, file, std::move(v), at, loc.line, loc.column));
    at = end;
  }
  return docs;
}

namespace {

/// A member of the object being streamed: its key and value's extent.
struct MemberSpan {
  std::string key;
  size_t begin, end;
};

/// The members of the object that opens at t[at] == '{', or false when the
/// text around them is not exactly `{ "k": v, ... }` followed by whitespace
/// only (the values themselves are checked when parsed).
bool split_members(std::string_view t, size_t at, std::vector<MemberSpan>* out) {
  at = skip_space(t, at + 1);
  if (at < t.size() && t[at] == '}') return skip_space(t, at + 1) == t.size();
  while (true) {
    if (at >= t.size() || t[at] != '"') return false;
    const size_t key_end = skip_string(t, at);
    if (key_end > t.size() || t[key_end - 1] != '"' || key_end - at < 2) return false;
    // The parser reads the key (escapes, UTF-8, control bytes): a key it
    // would refuse makes the whole text the parser's to report.
    std::string_view raw = t.substr(at, key_end - at);
    Value k = Value::parse(raw.begin(), raw.end(), nullptr, /*allow_exceptions=*/false);
    if (!k.is_string()) return false;
    std::string key = k.get<std::string>();
    at = skip_space(t, key_end);
    if (at >= t.size() || t[at] != ':') return false;
    const size_t begin = skip_space(t, at + 1);
    const size_t end = skip_value(t, begin);
    if (end <= begin || end > t.size()) return false;
    out->push_back({std::move(key), begin, end});
    at = skip_space(t, end);
    if (at >= t.size()) return false;
    if (t[at] == '}') return skip_space(t, at + 1) == t.size();
    if (t[at] != ',') return false;
    at = skip_space(t, at + 1);
  }
}

/// The items of the array t[begin, end) (t[begin] == '['), as offsets, or
/// false when the commas and brackets between them are not exactly right.
bool split_items(std::string_view t, size_t begin, size_t end,
                 std::vector<std::pair<size_t, size_t>>* out) {
  size_t at = skip_space(t, begin + 1);
  if (at < end && t[at] == ']') return at + 1 == end;
  while (true) {
    const size_t item_end = skip_value(t, at);
    if (item_end <= at || item_end > end) return false;
    out->emplace_back(at, item_end);
    at = skip_space(t, item_end);
    if (at >= end) return false;
    if (t[at] == ']') return at + 1 == end;
    if (t[at] != ',') return false;
    at = skip_space(t, at + 1);
  }
}

}  // namespace

Expected<StreamedObject> StreamedObject::parse(std::string_view text, std::string file,
                                               std::string_view array_key, int max_depth) {
  const Path array_path = Path().key(array_key);
  auto whole = [&]() -> Expected<StreamedObject> {  // not an object to stream, or an error
    KSNAP_ASSIGN_OR_RETURN(Document d, Document::parse(text, file, max_depth));
    return StreamedObject(std::move(d), text, file, array_path);
  };
  // What Document::parse checks of the whole text before parsing, here too:
  // the same errors at the same places.
  KSNAP_RETURN_IF_ERROR(check_before_parse(text, 0, text.size(), file, max_depth));
  const size_t start = first_value(text);
  if (start >= text.size() || text[start] != '{') return whole();
  std::vector<MemberSpan> members;
  if (!split_members(text, start, &members)) return whole();
  // The last member named `array_key` is the one (a repeated key: the last
  // wins, as in a parsed tree); it is streamed when it is an array.
  const MemberSpan* array = nullptr;
  for (const MemberSpan& m : members)
    if (m.key == array_key) array = &m;
  if (!array || text[array->begin] != '[') return whole();
  std::vector<std::pair<size_t, size_t>> spans;
  if (!split_items(text, array->begin, array->end, &spans)) return whole();

  // The other members, each parsed alone (the whole text's depth and NUL
  // bytes were checked above); the array's items are parsed by item().
  Value rest = Value::object();
  for (const MemberSpan& m : members) {
    if (&m == array) continue;
    const std::string_view part = text.substr(m.begin, m.end - m.begin);
    Value v = Value::parse(part.begin(), part.end(), nullptr, /*allow_exceptions=*/false);
    if (v.is_discarded()) return whole();  // Document::parse's own words for the error
    rest[m.key] = std::move(v);
  }
  rest[std::string(array_key)] = Value::array();
  SourceLocation at = location_in(text, start, file);
  StreamedObject out(Document(text, file, std::move(rest), start, at.line, at.column), text, file,
                     array_path);
  out.streamed_ = true;
  out.max_depth_ = max_depth;
  out.items_.reserve(spans.size());
  size_t loc_at = start;
  for (const auto& [b, e] : spans) {  // item locations in one pass
    at = location_from(text, loc_at, std::move(at), b);
    loc_at = b;
    out.items_.push_back({b, e, at.line, at.column});
  }
  return out;
}

Expected<Document> StreamedObject::item(size_t i) const {
  const Item& it = items_.at(i);
  // parse() checked the whole text's depth and NUL bytes already.
  const std::string_view part = text_.substr(it.begin, it.end - it.begin);
  Value v = Value::parse(part.begin(), part.end(), nullptr, /*allow_exceptions=*/false);
  if (v.is_discarded()) {
    // Document::parse's error for the whole text (the same words and place);
    // the item's own when the whole text somehow parses.
    auto d = json::parse(text_, file_, max_depth_);
    return d ? parse_in(text_, it.begin, it.end, file_, max_depth_).status() : d.status();
  }
  return Document(text_, file_, std::move(v), it.begin, it.line, it.column,
                  array_path_.index(i));
}

size_t Document::offset_of(const Path& p) const {
  size_t at = start_;
  // Paths of a streamed item start with its place in the whole document
  // (root_path_); the rest is found from the item's own start.
  const size_t skip = std::min(root_path_.steps().size(), p.steps().size());
  for (size_t k = skip; k < p.steps().size(); ++k) {
    const Path::Step& s = p.steps()[k];
    size_t next = find_child(text_, at, s);
    if (next == kNpos) break;
    at = next;
  }
  return at;
}

SourceLocation Document::start_location() const {
  return SourceLocation{file_, start_line_, start_column_};
}

SourceLocation Document::locate(const Path& p) const {
  return location_from(text_, start_, start_location(), offset_of(p));
}

std::vector<SourceLocation> Document::locate_items(const Path& p) const {
  std::vector<SourceLocation> out;
  const size_t at = skip_space(text_, offset_of(p));
  if (at >= text_.size() || text_[at] != '[') return out;
  SourceLocation loc = location_from(text_, start_, start_location(), at);
  size_t loc_at = at;
  for_each_item(text_, at, [&](size_t k) {
    loc = location_from(text_, loc_at, std::move(loc), k);
    loc_at = k;
    out.push_back(loc);
    return true;
  });
  return out;
}

Node Node::operator[](std::string_view key) const {
  const Value* child = nullptr;
  if (v_ && v_->is_object()) {
    auto it = v_->find(std::string(key));
    if (it != v_->end()) child = &*it;
  }
  return Node(doc_, child, path_.key(key));
}

Node Node::operator[](size_t i) const {
  const Value* child = v_ && v_->is_array() && i < v_->size() ? &(*v_)[i] : nullptr;
  return Node(doc_, child, path_.index(i));
}

size_t Node::size() const { return v_ && (v_->is_array() || v_->is_object()) ? v_->size() : 0; }

SourceLocation Node::location() const { return doc_->locate(path_); }

std::vector<SourceLocation> Node::item_locations() const {
  return is_array() ? doc_->locate_items(path_) : std::vector<SourceLocation>();
}

Status Node::error(const std::string& what, ErrorCode code) const {
  return make_error(code, what, location());
}

namespace {

/// `"kernel" in entries[3]`, `item 2 in shapes[0].samples_us`, `"format"`.
std::string describe(const Path& p) {
  if (p.steps().empty()) return p.to_string();
  const Path::Step& last = p.steps().back();
  std::string out;
  if (const std::string* k = std::get_if<std::string>(&last)) {
    out = "\"" + to_valid_utf8(*k) + "\"";
  } else {
    out = "item " + std::to_string(std::get<size_t>(last));
  }
  if (p.steps().size() > 1) {
    Path parent;
    for (size_t i = 0; i + 1 < p.steps().size(); ++i) {
      const Path::Step& s = p.steps()[i];
      parent = std::holds_alternative<std::string>(s) ? parent.key(std::get<std::string>(s))
                                                      : parent.index(std::get<size_t>(s));
    }
    out += " in " + parent.to_string();
  }
  return out;
}

}  // namespace

Status Node::wrong_type(const char* expected, Need need) const {
  if (!v_ || v_->is_null()) {
    if (need == Need::kOptional) return Status::ok();
    if (!v_) return error("missing " + describe(path_) + " (" + expected + ")");
  }
  return error(std::string("expected ") + expected + " for " + describe(path_) + ", got " +
               kind_name(*v_));
}

Status Node::expect_object(Need need) const {
  return is_object() ? Status::ok() : wrong_type("object", need);
}

Status Node::expect_array(Need need) const {
  return is_array() ? Status::ok() : wrong_type("array", need);
}

Status Node::read(std::string* out, Need need) const {
  if (!is_string()) return wrong_type("string", need);
  *out = v_->get_ref<const std::string&>();
  return Status::ok();
}

Status Node::read(bool* out, Need need) const {
  if (!v_ || !v_->is_boolean()) return wrong_type("boolean", need);
  *out = v_->get<bool>();
  return Status::ok();
}

Status Node::read(double* out, Need need) const {
  if (!v_ || !v_->is_number()) return wrong_type("number", need);
  *out = v_->get<double>();
  return Status::ok();
}

template <typename T>
Status Node::read_integer(T* out, Need need) const {
  if (!v_ || !v_->is_number_integer()) return wrong_type("integer", need);
  using Lim = std::numeric_limits<T>;
  bool fits;
  if (v_->is_number_unsigned()) {
    fits = v_->get<uint64_t>() <= static_cast<uint64_t>(Lim::max());
  } else {
    int64_t x = v_->get<int64_t>();
    fits = Lim::is_signed ? x >= static_cast<int64_t>(Lim::min()) &&
                                (sizeof(T) == 8 || x <= static_cast<int64_t>(Lim::max()))
                          : x >= 0;
  }
  if (!fits)
    return error("expected integer in [" + std::to_string(Lim::min()) + ", " +
                 std::to_string(Lim::max()) + "] for " + describe(path_) + ", got " + v_->dump());
  *out = v_->is_number_unsigned() ? static_cast<T>(v_->get<uint64_t>())
                                  : static_cast<T>(v_->get<int64_t>());
  return Status::ok();
}

Status Node::read(int32_t* out, Need need) const { return read_integer(out, need); }
Status Node::read(int64_t* out, Need need) const { return read_integer(out, need); }
Status Node::read(uint64_t* out, Need need) const { return read_integer(out, need); }

Value text(std::string_view s) { return Value(to_valid_utf8(s)); }

std::string dump(Value v, int indent) {
  repair(v, 0);
  std::string text = v.dump(indent, ' ', /*ensure_ascii=*/false, Value::error_handler_t::replace);
  // C1 and bidi controls as \u escapes: the text stays the same for a JSON
  // reader, and nobody who looks at the file sees it reordered. Outside
  // strings JSON text is ASCII, so every such sequence is inside a string.
  return escape_invisible(text);
}

}  // namespace ksnap::json
