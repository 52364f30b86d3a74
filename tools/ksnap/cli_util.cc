// Terminal habits; see cli_util.h.
#include "cli_util.h"

#include "ksnap/support/text.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace ksnap::cli {

namespace {

std::string with_commas(size_t n) {
  std::string digits = std::to_string(n), s;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}

}  // namespace

Status unknown_value(const std::string& what, const std::string& value,
                     const std::vector<std::string>& candidates) {
  std::string msg = "unknown " + what + " '" + value + "'";
  std::string guess = did_you_mean(value, candidates);
  if (!guess.empty()) msg += " (did you mean '" + guess + "'?)";
  msg += "; " + what + "s: ";
  for (size_t i = 0; i < candidates.size() && i < 12; ++i) msg += (i ? ", " : "") + candidates[i];
  if (candidates.size() > 12) msg += ", … " + std::to_string(candidates.size() - 12) + " more";
  if (candidates.empty()) msg += "(none)";
  return make_error(ErrorCode::kInvalidArgument, msg);
}

bool stdout_is_tty() { return ::isatty(STDOUT_FILENO) != 0; }
bool stderr_is_tty() { return ::isatty(STDERR_FILENO) != 0; }

size_t terminal_width() {
  if (const char* c = std::getenv("COLUMNS")) {
    long n = std::strtol(c, nullptr, 10);
    if (n >= 20 && n <= 10000) return static_cast<size_t>(n);
  }
  struct winsize ws {};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
  return 80;
}

int page_output(const std::string& text, bool allow) {
  std::string pager;
  if (allow && stdout_is_tty()) {
    const char* k = std::getenv("KSNAP_PAGER");
    const char* p = std::getenv("PAGER");
    pager = k ? k : p ? p : "less";
  }
  if (pager.empty() || pager == "cat") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return 0;
  }
  if (!std::getenv("LESS")) ::setenv("LESS", "FRX", 1);
  std::fflush(stdout);
  FILE* p = ::popen(pager.c_str(), "w");
  if (!p) {
    std::fprintf(stderr, "ksnap: cannot start the pager '%s'\n", pager.c_str());
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 2;
  }
  // Quitting the pager early closes the pipe: not an error.
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &old);
  std::fwrite(text.data(), 1, text.size(), p);
  ::pclose(p);
  ::sigaction(SIGPIPE, &old, nullptr);
  return 0;
}

Progress::Progress(std::string what, bool enabled)
    : what_(std::move(what)), enabled_(enabled && stderr_is_tty()),
      start_(std::chrono::steady_clock::now()), last_(start_) {
  if (const char* d = std::getenv("KSNAP_PROGRESS_DELAY_MS")) delay_s_ = std::strtod(d, nullptr) / 1000.0;
}

void Progress::update(size_t done, size_t total) {
  if (!enabled_ || total == 0) return;
  auto now = std::chrono::steady_clock::now();
  double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < delay_s_ || (drawn_ && now - last_ < std::chrono::milliseconds(100) && done < total)) return;
  last_ = now;
  drawn_ = true;
  double left = done ? elapsed * static_cast<double>(total - done) / static_cast<double>(done) : 0;
  std::fprintf(stderr, "\rksnap: %s %s/%s", what_.c_str(), with_commas(done).c_str(),
               with_commas(total).c_str());
  if (done && done < total) std::fprintf(stderr, ", about %.0f s left", left + 0.5);
  std::fprintf(stderr, "\x1b[K");
  std::fflush(stderr);
}

void Progress::finish() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\x1b[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace ksnap::cli
