#include "ksnap/perf/csv.h"

#include <string_view>

namespace ksnap::perf {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }
bool ends_row(char c) { return c == '\n' || c == '\r'; }

std::string trimmed(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && is_blank(s[b])) ++b;
  while (e > b && is_blank(s[e - 1])) --e;
  return std::string(s.substr(b, e - b));
}

/// Walks the text once, tracking the line for error locations.
class CsvScanner {
 public:
  CsvScanner(const TextBuffer& buf, const CsvOptions& opts)
      : buf_(buf), text_(buf.view()), opts_(opts) {}

  Expected<std::vector<CsvRow>> run() {
    std::vector<CsvRow> rows;
    while (i_ < text_.size()) {
      if (skip_blank_or_comment_line()) continue;
      CsvRow row;
      row.line = line_;
      KSNAP_RETURN_IF_ERROR(read_row(row));
      rows.push_back(std::move(row));
    }
    return rows;
  }

 private:
  /// Consumes one blank (or comment) line; false when the row has content.
  bool skip_blank_or_comment_line() {
    size_t p = i_;
    while (p < text_.size() && is_blank(text_[p])) ++p;
    if (p >= text_.size()) {
      i_ = p;
      return true;
    }
    if (ends_row(text_[p])) {
      i_ = p;
      end_of_row();
      return true;
    }
    if (opts_.comments && text_[i_] == '#') {
      while (i_ < text_.size() && !ends_row(text_[i_])) ++i_;
      end_of_row();
      return true;
    }
    return false;
  }

  /// At '\r' or '\n' (or the end): steps past the row terminator.
  void end_of_row() {
    if (i_ >= text_.size()) return;
    if (text_[i_] == '\r' && i_ + 1 < text_.size() && text_[i_ + 1] == '\n') ++i_;
    ++i_;
    ++line_;
    line_start_ = i_;
  }

  Status error_at(size_t offset, std::string msg) const {
    return make_error(
        ErrorCode::kParseError, std::move(msg),
        SourceLocation{buf_.name(), line_, static_cast<uint32_t>(offset - line_start_ + 1)});
  }

  Status read_row(CsvRow& row) {
    while (true) {
      size_t f = i_;
      while (opts_.trim && f < text_.size() && is_blank(text_[f])) ++f;
      if (f < text_.size() && text_[f] == '"') {
        KSNAP_RETURN_IF_ERROR(read_quoted(f, row));
      } else {
        size_t j = i_;
        while (j < text_.size() && text_[j] != ',' && !ends_row(text_[j])) ++j;
        std::string_view raw = text_.substr(i_, j - i_);
        row.fields.push_back(opts_.trim ? trimmed(raw) : std::string(raw));
        i_ = j;
      }
      if (i_ >= text_.size()) return Status::ok();
      if (text_[i_] != ',') {
        end_of_row();
        return Status::ok();
      }
      ++i_;
      if (i_ >= text_.size()) {  // trailing comma at the end of the file
        row.fields.emplace_back();
        return Status::ok();
      }
    }
  }

  Status read_quoted(size_t open, CsvRow& row) {
    const uint32_t open_line = line_;
    const size_t open_line_start = line_start_;
    std::string value;
    size_t j = open + 1;
    while (true) {
      if (j >= text_.size()) {
        return make_error(ErrorCode::kParseError, "unterminated quoted field (starts here)",
                          SourceLocation{buf_.name(), open_line,
                                         static_cast<uint32_t>(open - open_line_start + 1)});
      }
      char c = text_[j];
      if (c == '"') {
        if (j + 1 < text_.size() && text_[j + 1] == '"') {
          value.push_back('"');
          j += 2;
          continue;
        }
        ++j;
        break;
      }
      if (c == '\n') {
        ++line_;
        line_start_ = j + 1;
      }
      value.push_back(c);
      ++j;
    }
    while (opts_.trim && j < text_.size() && is_blank(text_[j])) ++j;
    if (j < text_.size() && text_[j] != ',' && !ends_row(text_[j])) {
      return error_at(j, "unexpected character after a closing quote");
    }
    row.fields.push_back(std::move(value));
    i_ = j;
    return Status::ok();
  }

  const TextBuffer& buf_;
  std::string_view text_;
  CsvOptions opts_;
  size_t i_ = 0;
  uint32_t line_ = 1;
  size_t line_start_ = 0;
};

}  // namespace

Expected<std::vector<CsvRow>> parse_csv(const TextBuffer& buf, const CsvOptions& opts) {
  return CsvScanner(buf, opts).run();
}

}  // namespace ksnap::perf
