#include "ksnap/support/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

namespace ksnap {

TextBuffer::TextBuffer(std::string name, std::string text)
    : name_(std::move(name)), data_(std::move(text)) {
  data_.push_back('\0');
}

SourceLocation TextBuffer::location_of(size_t offset) const {
  return location_in(view(), offset, name_);
}

SourceLocation location_in(std::string_view text, size_t offset, const std::string& file) {
  return location_from(text, 0, SourceLocation{file, 1, 1}, offset);
}

SourceLocation location_from(std::string_view text, size_t from, SourceLocation at_from,
                             size_t offset) {
  if (offset > text.size()) offset = text.size();
  for (size_t i = from; i < offset; ++i) {
    if (text[i] == '\n') {
      ++at_from.line;
      at_from.column = 1;
    } else {
      ++at_from.column;
    }
  }
  return at_from;
}

namespace {

Status errno_status(const std::string& what, const std::string& path) {
  int e = errno;
  ErrorCode code = (e == ENOENT || e == ENOTDIR) ? ErrorCode::kNotFound : ErrorCode::kIoError;
  return make_error(code, what + ": " + std::strerror(e), SourceLocation{path, 0, 0});
}

Expected<std::string> read_all(const std::string& path, uint64_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_status("cannot open", path);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    Status s = errno_status("cannot stat", path);
    ::close(fd);
    return s;
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return make_error(ErrorCode::kIoError, "is a directory, expected a file", {path, 0, 0});
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return make_error(ErrorCode::kInvalidArgument,
                      "file is " + std::to_string(st.st_size) + " bytes, over the limit of " +
                          std::to_string(max_bytes),
                      {path, 0, 0});
  }
  // One allocation of the exact size plus the sentinel TextBuffer appends; a
  // file that grows while being read is read on in small steps.
  std::string out;
  out.reserve(static_cast<size_t>(st.st_size) + 1);
  out.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (true) {
    if (got == out.size()) {
      char probe[4096];
      ssize_t n = ::read(fd, probe, sizeof probe);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        Status s = errno_status("read failed", path);
        ::close(fd);
        return s;
      }
      if (n == 0) break;
      out.append(probe, static_cast<size_t>(n));
      got += static_cast<size_t>(n);
      if (got > max_bytes) {
        ::close(fd);
        return make_error(ErrorCode::kInvalidArgument, "file grew over the size limit", {path, 0, 0});
      }
      continue;
    }
    ssize_t n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      Status s = errno_status("read failed", path);
      ::close(fd);
      return s;
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  out.resize(got);
  return out;
}

}  // namespace

Expected<TextBuffer> read_text_file(const std::string& path, const ReadOptions& opts) {
  auto bytes = read_all(path, opts.max_bytes);
  if (!bytes) return bytes.status();
  if (opts.reject_binary) {
    size_t nul = bytes->find('\0');
    if (nul != std::string::npos) {
      SourceLocation loc = location_in(*bytes, nul, path);
      return make_error(ErrorCode::kParseError,
                        "binary data (a NUL byte) where text was expected", loc);
    }
  }
  return TextBuffer(path, std::move(*bytes));
}

Expected<std::string> read_binary_file(const std::string& path) {
  return read_all(path, uint64_t{1} << 34);
}

Status write_file_atomic(const std::string& path, std::string_view data) {
  std::string dir = ".";
  size_t slash = path.rfind('/');
  if (slash != std::string::npos) dir = path.substr(0, slash == 0 ? 1 : slash);
  std::random_device rd;
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return errno_status("cannot create", tmp);
  size_t put = 0;
  while (put < data.size()) {
    ssize_t n = ::write(fd, data.data() + put, data.size() - put);
    if (n < 0) {
      if (errno == EINTR) continue;
      Status s = errno_status("write failed", tmp);
      ::close(fd);
      ::unlink(tmp.c_str());
      return s;
    }
    put += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    Status s = errno_status("fsync failed", tmp);
    ::close(fd);
    ::unlink(tmp.c_str());
    return s;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Status s = errno_status("rename failed", path);
    ::unlink(tmp.c_str());
    return s;
  }
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return Status::ok();
}

bool is_directory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_regular_file(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace ksnap
