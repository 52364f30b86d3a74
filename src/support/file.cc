#include "ksnap/support/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
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

InputLimits& limits() {
  static InputLimits l;
  return l;
}

std::atomic<uint64_t> g_bytes_read{0};

std::string over_limit(uint64_t size, uint64_t limit, const std::string& setting) {
  return "file is " + std::to_string(size) + " bytes, over the limit of " + std::to_string(limit) +
         (setting.empty() ? "" : " (" + setting + ")");
}

/// Charges `n` bytes to the run's budget, or refuses without charging.
Status charge(uint64_t n, const std::string& path) {
  const InputLimits& l = limits();
  uint64_t before = g_bytes_read.load(std::memory_order_relaxed);
  do {
    if (n > l.total_bytes || before > l.total_bytes - n)
      return make_error(ErrorCode::kInvalidArgument,
                        "input budget exceeded: reading this file's " + std::to_string(n) +
                            " bytes would bring the bytes read by this run to " +
                            std::to_string(before + n) + ", over the budget of " +
                            std::to_string(l.total_bytes) +
                            (l.total_setting.empty() ? "" : " (" + l.total_setting + ")"),
                        {path, 0, 0});
  } while (!g_bytes_read.compare_exchange_weak(before, before + n, std::memory_order_relaxed));
  return Status::ok();
}

/// Closes the descriptor on every path out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

Expected<std::string> read_all(const std::string& path, uint64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO with no writer would wait forever; for a
  // regular file the flag changes nothing.
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)};
  if (f.fd < 0) return errno_status("cannot open", path);
  struct stat st;
  if (::fstat(f.fd, &st) != 0) return errno_status("cannot stat", path);
  if (S_ISDIR(st.st_mode))
    return make_error(ErrorCode::kIoError, "is a directory, expected a file", {path, 0, 0});
  if (!S_ISREG(st.st_mode))
    return make_error(ErrorCode::kInvalidArgument,
                      std::string("is not a regular file (") +
                          (S_ISFIFO(st.st_mode)   ? "a FIFO"
                           : S_ISCHR(st.st_mode)  ? "a character device"
                           : S_ISBLK(st.st_mode)  ? "a block device"
                           : S_ISSOCK(st.st_mode) ? "a socket"
                                                  : "not a file") +
                          "); only regular files are read",
                      {path, 0, 0});
  const InputLimits& l = limits();
  uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes)
    return make_error(ErrorCode::kInvalidArgument, over_limit(size, max_bytes, ""), {path, 0, 0});
  if (size > l.file_bytes)
    return make_error(ErrorCode::kInvalidArgument, over_limit(size, l.file_bytes, l.file_setting),
                      {path, 0, 0});
  KSNAP_RETURN_IF_ERROR(charge(size, path));
  // One allocation of the exact size plus the sentinel TextBuffer appends;
  // never more than fstat said (a file that grows while read is refused).
  std::string out;
  out.reserve(static_cast<size_t>(size) + 1);
  out.resize(static_cast<size_t>(size));
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::read(f.fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_status("read failed", path);
    if (n == 0) break;  // shrank while read: what is there
    got += static_cast<size_t>(n);
  }
  if (got == out.size()) {
    char probe;
    ssize_t n;
    do {
      n = ::read(f.fd, &probe, 1);
    } while (n < 0 && errno == EINTR);
    if (n > 0)
      return make_error(ErrorCode::kInvalidArgument,
                        "file grew while being read (over the " + std::to_string(size) +
                            " bytes it had when opened)",
                        {path, 0, 0});
  }
  out.resize(got);
  return out;
}

}  // namespace

void set_input_limits(InputLimits l) { limits() = std::move(l); }

const InputLimits& input_limits() { return limits(); }

uint64_t input_bytes_read() { return g_bytes_read.load(std::memory_order_relaxed); }

Expected<TextBuffer> read_text_file(const std::string& path, const ReadOptions& opts) {
  auto bytes = read_all(path, opts.max_bytes);
  if (!bytes) return bytes.status();
  if (opts.reject_binary) {
    size_t nul = bytes->find('\0');
    if (nul != std::string::npos) {
      SourceLocation loc = location_in(*bytes, nul, path);
      return make_error(ErrorCode::kParseError, "binary data (a NUL byte) where text was expected",
                        loc);
    }
  }
  return TextBuffer(path, std::move(*bytes));
}

Expected<std::string> read_binary_file(const std::string& path) {
  return read_all(path, uint64_t{1} << 34);
}

Status write_file_atomic(const std::string& path, std::string_view data) {
  KSNAP_ASSIGN_OR_RETURN(AtomicFileWriter w, AtomicFileWriter::open(path));
  KSNAP_RETURN_IF_ERROR(w.write(data));
  return w.commit();
}

Expected<AtomicFileWriter> AtomicFileWriter::open(const std::string& path) {
  std::random_device rd;
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return errno_status("cannot create", tmp);
  return AtomicFileWriter(path, std::move(tmp), fd);
}

AtomicFileWriter::AtomicFileWriter(AtomicFileWriter&& o) noexcept
    : path_(std::move(o.path_)), tmp_(std::move(o.tmp_)), fd_(o.fd_) {
  o.fd_ = -1;
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(tmp_.c_str());
  }
}

Status AtomicFileWriter::write(std::string_view data) {
  if (fd_ < 0) return make_error(ErrorCode::kIoError, "write after commit", {tmp_, 0, 0});
  size_t put = 0;
  while (put < data.size()) {
    ssize_t n = ::write(fd_, data.data() + put, data.size() - put);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_status("write failed", tmp_);
    }
    put += static_cast<size_t>(n);
  }
  return Status::ok();
}

Status AtomicFileWriter::commit() {
  if (fd_ < 0) return make_error(ErrorCode::kIoError, "committed twice", {tmp_, 0, 0});
  if (::fsync(fd_) != 0) return errno_status("fsync failed", tmp_);  // the destructor cleans up
  ::close(fd_);
  fd_ = -1;
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    Status s = errno_status("rename failed", path_);
    ::unlink(tmp_.c_str());
    return s;
  }
  std::string dir = ".";
  size_t slash = path_.rfind('/');
  if (slash != std::string::npos) dir = path_.substr(0, slash == 0 ? 1 : slash);
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
