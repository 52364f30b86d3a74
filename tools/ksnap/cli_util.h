// Terminal habits of the CLI, as git has them: "did you mean" for a mistyped
// value, a pager on a terminal, progress on stderr, the terminal's width.
//
//   did_you_mean("tgir", {"ttir", "ttgir", "llir"})      == "ttgir"
//   did_you_mean("softmax", {"softmax_kernel", "add"})   == "softmax_kernel"
//   did_you_mean("TTGIR", {"ttgir"})                     == "ttgir"
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "ksnap/support/status.h"
#include "ksnap/support/text.h"

namespace ksnap::cli {

using ::ksnap::did_you_mean;  // support/text.h

/// kInvalidArgument "unknown <what> 'value' (did you mean 'x'?); <what>s: a, b, c".
Status unknown_value(const std::string& what, const std::string& value,
                     const std::vector<std::string>& candidates);

/// Columns of the terminal on stdout: $COLUMNS, else the tty's width, else 80.
size_t terminal_width();

bool stdout_is_tty();
bool stderr_is_tty();

/// Writes `text` to stdout, through a pager when stdout is a terminal and
/// `allow` (git's rule): $KSNAP_PAGER, else $PAGER, else `less`; "" or
/// "cat" mean none; LESS=FRX unless LESS is set (quit when it fits, keep
/// colors). Returns 0, or 2 when a pager was asked for and could not start
/// (the text then goes to stdout).
int page_output(const std::string& text, bool allow);

/// Progress of (done, total) on stderr, "ksnap: comparing 1,234/5,000
/// kernel-stages, about 3 s left", redrawn at most 10 times a second, only
/// when stderr is a terminal and the work has run for more than a second
/// ($KSNAP_PROGRESS_DELAY_MS overrides the second, for tests). finish()
/// erases the line.
class Progress {
 public:
  explicit Progress(std::string what, bool enabled);
  void update(size_t done, size_t total);
  void finish();

 private:
  std::string what_;
  bool enabled_;
  bool drawn_ = false;
  double delay_s_ = 1.0;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace ksnap::cli
