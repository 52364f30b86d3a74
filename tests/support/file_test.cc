#include "ksnap/support/file.h"

#include <gtest/gtest.h>
#include <dirent.h>
#include <unistd.h>

#include <algorithm>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace ksnap {
namespace {

std::string temp_dir() {
  char tmpl[] = "/tmp/ksnap_file_test_XXXXXX";
  return mkdtemp(tmpl);
}

TEST(FileTest, ReadsTextWithSentinel) {
  std::string dir = temp_dir();
  std::ofstream(dir + "/a.txt") << "line1\nline2\n";
  auto buf = read_text_file(dir + "/a.txt");
  ASSERT_TRUE(buf) << buf.status().to_string();
  EXPECT_EQ(buf->size(), 12u);
  EXPECT_EQ(buf->c_str()[buf->size()], '\0');
  EXPECT_EQ(buf->view(), "line1\nline2\n");
}

TEST(FileTest, MissingFileIsNotFoundWithPath) {
  auto buf = read_text_file("/nonexistent/dir/x.ttir");
  ASSERT_FALSE(buf);
  EXPECT_EQ(buf.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(buf.status().location().file, "/nonexistent/dir/x.ttir");
}

TEST(FileTest, BinaryJunkNamesLineOfFirstNul) {
  std::string dir = temp_dir();
  std::string data = "ok\nstill ok\nbad\0junk";
  data.push_back('\0');
  std::ofstream(dir + "/b.ptx", std::ios::binary).write(data.data(), data.size());
  auto buf = read_text_file(dir + "/b.ptx");
  ASSERT_FALSE(buf);
  EXPECT_EQ(buf.status().code(), ErrorCode::kParseError);
  EXPECT_EQ(buf.status().location().line, 3u);
  EXPECT_EQ(buf.status().location().column, 4u);
}

TEST(FileTest, SizeLimit) {
  std::string dir = temp_dir();
  std::ofstream(dir + "/c.txt") << std::string(100, 'x');
  ReadOptions o;
  o.max_bytes = 10;
  EXPECT_EQ(read_text_file(dir + "/c.txt", o).status().code(), ErrorCode::kInvalidArgument);
}

TEST(FileTest, LocationOf) {
  struct Case {
    size_t off;
    uint32_t line, col;
  } cases[] = {{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {5, 2, 3}, {100, 3, 1}};
  std::string text = "ab\ncd\n";
  for (auto c : cases) {
    auto loc = location_in(text, c.off, "f");
    EXPECT_EQ(loc.line, c.line) << c.off;
    EXPECT_EQ(loc.column, c.col) << c.off;
  }
}

TEST(FileTest, AtomicWriteReplaces) {
  std::string dir = temp_dir();
  std::string p = dir + "/out.json";
  ASSERT_TRUE(write_file_atomic(p, "first").is_ok());
  ASSERT_TRUE(write_file_atomic(p, "second").is_ok());
  auto buf = read_text_file(p);
  ASSERT_TRUE(buf);
  EXPECT_EQ(buf->view(), "second");
  EXPECT_FALSE(write_file_atomic("/nonexistent/dir/x", "y").is_ok());
}

/// Files in `dir` (names), for checking that no temporary file is left.
std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") out.push_back(e->d_name);
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(FileTest, AtomicWriterCommitsPiecesOrLeavesThePathAlone) {
  std::string dir = temp_dir();
  std::string p = dir + "/report.json";
  ASSERT_TRUE(write_file_atomic(p, "old").is_ok());
  {  // committed: the pieces, in order
    auto w = AtomicFileWriter::open(p);
    ASSERT_TRUE(w) << w.status().to_string();
    for (const char* piece : {"{", "\"a\":", "", "1}"}) ASSERT_TRUE(w->write(piece).is_ok());
    EXPECT_EQ(read_text_file(p)->view(), "old");  // untouched until the commit
    ASSERT_TRUE(w->commit().is_ok());
    EXPECT_FALSE(w->commit().is_ok());
    EXPECT_FALSE(w->write("x").is_ok());
  }
  EXPECT_EQ(read_text_file(p)->view(), "{\"a\":1}");
  {  // dropped before the commit (an error on the way): nothing changes
    auto w = AtomicFileWriter::open(p);
    ASSERT_TRUE(w);
    ASSERT_TRUE(w->write("half").is_ok());
    EXPECT_EQ(names_in(dir).size(), 2u);  // the file and the temporary one
  }
  EXPECT_EQ(read_text_file(p)->view(), "{\"a\":1}");
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"report.json"});
  auto bad = AtomicFileWriter::open("/nonexistent/dir/x");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find("cannot create"), std::string::npos)
      << bad.status().to_string();
}

}  // namespace
}  // namespace ksnap
