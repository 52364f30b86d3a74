// ksnap support layer: whole-file input and crash-safe output.
//
// Every parser in ksnap runs over a `TextBuffer`: the file's bytes followed by
// one NUL, so lexers can `switch (*cur_++)` without bounds checks and stop at
// the sentinel. Binary junk is refused here, with the file and line of the
// first NUL byte, before any parser sees it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ksnap/support/status.h"

namespace ksnap {

/// Owns a file's contents plus a trailing NUL sentinel (not counted in size()).
class TextBuffer {
 public:
  TextBuffer() : data_(1, '\0') {}
  /// Takes `text` as the contents; appends the sentinel.
  TextBuffer(std::string name, std::string text);

  const std::string& name() const { return name_; }
  /// NUL-terminated pointer to the first byte.
  const char* c_str() const { return data_.data(); }
  size_t size() const { return data_.size() - 1; }
  std::string_view view() const { return std::string_view(data_.data(), size()); }

  /// 1-based line and column of byte `offset` (computed on demand, O(offset)).
  SourceLocation location_of(size_t offset) const;

 private:
  std::string name_;
  std::string data_;
};

/// 1-based line/column of `offset` within `text`, file name `file`.
SourceLocation location_in(std::string_view text, size_t offset, const std::string& file);

/// location_in(text, offset, ...) counted on from `from`, whose location is
/// `at_from` (from <= offset): locating many offsets in increasing order
/// costs one pass over the text, not one per offset.
SourceLocation location_from(std::string_view text, size_t from, SourceLocation at_from,
                             size_t offset);

struct ReadOptions {
  /// Refuse files larger than this (bytes).
  uint64_t max_bytes = uint64_t{1} << 32;
  /// Refuse files containing a NUL byte (binary junk) with file:line.
  bool reject_binary = true;
};

/// Reads `path` entirely. Errors: kNotFound, kIoError, kParseError (binary).
Expected<TextBuffer> read_text_file(const std::string& path, const ReadOptions& opts = {});

/// Reads `path` as raw bytes (cubins, blobs). Errors: kNotFound, kIoError.
Expected<std::string> read_binary_file(const std::string& path);

/// Writes `data` to `path` atomically: a temporary file in the same folder,
/// fsync, then rename over `path`. Readers see the old or the new file, never
/// a torn one.
Status write_file_atomic(const std::string& path, std::string_view data);

/// True when `path` exists and is a directory / a regular file.
bool is_directory(const std::string& path);
bool is_regular_file(const std::string& path);

}  // namespace ksnap
