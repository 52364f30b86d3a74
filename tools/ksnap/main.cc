// ksnap: did this change touch my kernels, and which variant should run?
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"
#include "habits.h"
#include "input_limits.h"
#include "ksnap/support/text.h"

namespace ksnap::cli {

int report_error(const Status& status) {
  // Messages quote file names and kernel names from untrusted captures:
  // control characters are shown escaped, never sent to the terminal.
  std::cerr << "ksnap: " << escape_control(status.to_string()) << "\n";
  return kExitError;
}

}  // namespace ksnap::cli

int main(int argc, char** argv) {
  CLI::App app{"ksnap: snapshot, diff and autotune GPU microkernels across compiler builds",
               "ksnap"};  // the name starts every usage line: "Usage: ksnap diff [OPTIONS] ..."
  app.require_subcommand(1);
  app.set_version_flag("--version", "ksnap " KSNAP_VERSION);
  ksnap::cli::Context ctx;
  // Every input file is read under the run's limits (input_limits.h).
  if (ksnap::Status s = ksnap::cli::apply_input_limits(); !s.is_ok())
    return ksnap::cli::report_error(s);
  // Each family registers its subcommands; keep this list in ARCHITECTURE.md order.
  ksnap::cli::register_diff_commands(app, ctx);
  ksnap::cli::register_tune_commands(app, ctx);
  ksnap::cli::register_store_commands(app, ctx);
  ksnap::cli::register_capture_commands(app, ctx);
  ksnap::cli::register_determinism_commands(app, ctx);
  ksnap::cli::register_recompile_command(app, ctx);
  ksnap::cli::register_explain_command(app, ctx);
  ksnap::cli::register_docs_commands(app, ctx);  // last: they describe the others
  std::vector<std::string> given(argv + 1, argv + argc);
  given = ksnap::cli::rewrite_habits(given);  // help CMD, -v, --no-color, bare --color
  std::vector<std::string> args(given.rbegin(), given.rend());  // CLI11 takes them reversed
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    // A mistyped command: say which word and what was meant, as git does,
    // instead of CLI11's "A subcommand is required".
    if (auto msg = ksnap::cli::unknown_command_message(app, given)) {
      std::cerr << "ksnap: " << ksnap::escape_control(*msg) << "\n";
      return ksnap::cli::kExitError;
    }
    int rc = app.exit(e);  // prints help or the usage error
    return rc == 0 ? ksnap::cli::kExitOk : ksnap::cli::kExitError;
  } catch (const std::exception& e) {
    // No library throws across its API (docs/hostile-input.md); this is the
    // last line of defense (out of memory, a bug): an error, not an abort.
    std::cerr << "ksnap: internal error: " << ksnap::escape_control(e.what()) << "\n";
    return ksnap::cli::kExitError;
  }
  return ctx.exit_code;
}
