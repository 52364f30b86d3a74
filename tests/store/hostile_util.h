// Helpers of the damaged-store tests (tests/store/hostile_store_test.cc and
// tests/cli/hostile_store_cli_test.cc): zstd frames built by hand — frames
// that declare no content size, as a writer other than ksnap's compress()
// may make them, and frames whose few bytes expand a lot (RLE blocks;
// format: RFC 8878) —, SQL run on a store behind ksnap's back, and a file's
// bytes and mtime ("untouched").
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace ksnap::store::testing {

/// A frame header without a content size (FCS flag 0, not single-segment)
/// and a 128 KiB window.
inline std::string frame_header_without_size() {
  return std::string("\x28\xb5\x2f\xfd", 4) + std::string("\x00", 1) + "\x38";
}

/// A 3-byte block header: last flag, type (0 raw, 1 RLE), size.
inline std::string block_header(bool last, int type, uint32_t size) {
  uint32_t h = (last ? 1u : 0u) | (static_cast<uint32_t>(type) << 1) | (size << 3);
  return std::string{static_cast<char>(h & 0xff), static_cast<char>((h >> 8) & 0xff),
                     static_cast<char>((h >> 16) & 0xff)};
}

/// One frame holding `text` in raw blocks, without a content size.
inline std::string frame_without_size(const std::string& text) {
  std::string f = frame_header_without_size();
  constexpr size_t kBlock = 128 * 1024;
  size_t at = 0;
  do {
    size_t n = std::min(kBlock, text.size() - at);
    f += block_header(at + n == text.size(), 0, static_cast<uint32_t>(n));
    f += text.substr(at, n);
    at += n;
  } while (at < text.size());
  return f;
}

/// One frame of `blocks` RLE blocks of 128 KiB of `c` each, without a
/// content size: 4 bytes per block expand to 131072.
inline std::string rle_frame(size_t blocks, char c) {
  std::string f = frame_header_without_size();
  for (size_t i = 0; i < blocks; ++i) {
    f += block_header(i + 1 == blocks, 1, 128 * 1024);
    f += c;
  }
  return f;
}

/// The whole file, "" when it cannot be read.
inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Runs `statement` on the store file behind ksnap's back; `frame` (when
/// given) is bound to its one parameter as a BLOB. Returns the first column
/// of the first row ("" when none).
inline std::string run_sql(const std::string& path, const std::string& statement,
                           const std::string* frame = nullptr) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, statement.c_str(), -1, &st, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  if (frame)
    sqlite3_bind_blob(st, 1, frame->data(), static_cast<int>(frame->size()), SQLITE_TRANSIENT);
  std::string first;
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
    first = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  while (rc == SQLITE_ROW) rc = sqlite3_step(st);
  EXPECT_EQ(rc, SQLITE_DONE) << sqlite3_errmsg(db);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return first;
}

/// Bytes and modification time of a file: what "untouched" means.
struct FileState {
  bool exists = false;
  std::string bytes;
  int64_t mtime_ns = 0;
  bool operator==(const FileState&) const = default;
};
inline FileState file_state(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return {};
  return {true, slurp(path), int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec};
}

}  // namespace ksnap::store::testing
