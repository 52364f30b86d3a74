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
  /// The contents as a string (without the sentinel), moved out: no copy.
  /// The buffer is empty afterwards.
  std::string release() && {
    std::string out = std::move(data_);
    out.pop_back();
    data_.assign(1, '\0');
    return out;
  }

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
  /// Refuse files larger than this (bytes); InputLimits::file_bytes applies too.
  uint64_t max_bytes = uint64_t{1} << 32;
  /// Refuse files containing a NUL byte (binary junk) with file:line.
  bool reject_binary = true;
};

/// Process-wide limits on what read_text_file / read_binary_file read: one
/// file, and all files of this process together (a run's input budget).
/// The libraries default to no budget (the tuning library lives in host
/// programs that read its cache for days); the ksnap CLI sets both
/// (KSNAP_MAX_FILE_BYTES, KSNAP_MAX_INPUT_BYTES).
struct InputLimits {
  uint64_t file_bytes = UINT64_MAX;   ///< per file (the smaller of this and ReadOptions::max_bytes)
  uint64_t total_bytes = UINT64_MAX;  ///< sum over every file read by this process
  /// Named in the errors so a user knows what to raise ("" names none).
  std::string file_setting, total_setting;
};

/// Replaces the limits (call before reading starts; not synchronized with
/// readers on other threads).
void set_input_limits(InputLimits limits);
const InputLimits& input_limits();
/// Bytes charged to the budget so far (thread-safe).
uint64_t input_bytes_read();

/// Reads `path` entirely. Only a regular file is read: it is opened without
/// blocking (a FIFO cannot stall the caller), checked with fstat on the open
/// descriptor (a FIFO, device or folder is refused), its size checked against
/// the limits before any byte is read, and read with that bound (a file that
/// grows while read is refused, never read on). Errors (naming `path`):
/// kNotFound, kIoError, kInvalidArgument (not a regular file, over a limit),
/// kParseError (binary).
Expected<TextBuffer> read_text_file(const std::string& path, const ReadOptions& opts = {});

/// Reads `path` as raw bytes (cubins, blobs) with read_text_file's checks
/// and limits (ReadOptions::max_bytes of 16 GiB, no NUL check).
/// Errors: kNotFound, kIoError, kInvalidArgument.
Expected<std::string> read_binary_file(const std::string& path);

/// Writes `data` to `path` atomically: a temporary file in the same folder,
/// fsync, then rename over `path`. Readers see the old or the new file, never
/// a torn one.
Status write_file_atomic(const std::string& path, std::string_view data);

/// write_file_atomic in pieces, for output too big to hold whole (a
/// 100,000-variant JSON report): open() creates the temporary file, write()
/// appends, commit() syncs it and renames it over the path. Until commit()
/// succeeds `path` is untouched; a writer destroyed uncommitted (an error on
/// the way) removes its temporary file.
///
///   KSNAP_ASSIGN_OR_RETURN(AtomicFileWriter w, AtomicFileWriter::open(path));
///   KSNAP_RETURN_IF_ERROR(w.write(chunk));  // as often as needed
///   KSNAP_RETURN_IF_ERROR(w.commit());
class AtomicFileWriter {
 public:
  /// Errors (naming the temporary file): kIoError, kNotFound.
  static Expected<AtomicFileWriter> open(const std::string& path);
  AtomicFileWriter(AtomicFileWriter&& o) noexcept;
  AtomicFileWriter& operator=(AtomicFileWriter&&) = delete;
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  ~AtomicFileWriter();

  Status write(std::string_view data);
  /// fsync, rename over the path, fsync its folder. At most once.
  Status commit();

 private:
  AtomicFileWriter(std::string path, std::string tmp, int fd)
      : path_(std::move(path)), tmp_(std::move(tmp)), fd_(fd) {}
  std::string path_, tmp_;
  int fd_ = -1;
};

/// True when `path` exists and is a directory / a regular file.
bool is_directory(const std::string& path);
bool is_regular_file(const std::string& path);

}  // namespace ksnap
