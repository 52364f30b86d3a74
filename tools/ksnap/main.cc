// ksnap: did this change touch my kernels, and which variant should run?
#include <iostream>

#include "commands.h"

namespace ksnap::cli {

int report_error(const Status& status) {
  std::cerr << "ksnap: " << status.to_string() << "\n";
  return kExitError;
}

}  // namespace ksnap::cli

int main(int argc, char** argv) {
  CLI::App app{"ksnap: snapshot, diff and autotune GPU microkernels across compiler builds"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ksnap 0.1.0");
  ksnap::cli::Context ctx;
  // Each family registers its subcommands; keep this list in ARCHITECTURE.md order.
  ksnap::cli::register_diff_commands(app, ctx);
  ksnap::cli::register_tune_commands(app, ctx);
  ksnap::cli::register_store_commands(app, ctx);
  ksnap::cli::register_capture_commands(app, ctx);
  ksnap::cli::register_determinism_commands(app, ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);  // prints help or the usage error
    return rc == 0 ? ksnap::cli::kExitOk : ksnap::cli::kExitError;
  }
  return ctx.exit_code;
}
