// The ksnap CLI is thin: main.cc builds a CLI11 app and asks each command
// family to register its subcommands. A family lives in <family>_command.cc
// and only parses flags, calls a library, renders, and sets ctx.exit_code.
//
// Exit codes (every family): 0 ok; 1 differences found (only where the user
// asked with --exit-code); 2 usage or input error.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "ksnap/build/unstable.h"
#include "ksnap/support/status.h"

namespace ksnap::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDifferences = 1;
inline constexpr int kExitError = 2;

struct Context {
  int exit_code = kExitOk;
};

/// Prints `ksnap: <status>` to stderr and returns kExitError.
int report_error(const Status& status);

/// What the plugin command reads: `capture` runs the user's own program in
/// the user's folder on purpose; `merge` and `recompile` read captures that
/// may come from a pull request, so nothing in the current folder (or a
/// relative PYTHONPATH entry) may be imported (docs/hostile-input.md).
enum class PluginInput { kUserProgram, kUntrustedCapture };

/// Replaces this process with the capture plugin (`python -m ksnap_triton
/// <args>`, found as capture_command.cc describes; for kUntrustedCapture a
/// `python -c` bootstrap with an explicit sys.path); returns only on failure.
Status exec_plugin(const std::vector<std::string>& args,
                   PluginInput input = PluginInput::kUserProgram);

/// Runs the plugin in a child process (exec_plugin there): its pid, or -1
/// when it cannot fork (reported). wait_plugin: its exit status (128 +
/// signal when killed; 2 for pid -1).
long start_plugin(const std::vector<std::string>& args, PluginInput input);
int wait_plugin(long pid);

void register_diff_commands(CLI::App& app, Context& ctx);         // diff, show, normalize
void register_tune_commands(CLI::App& app, Context& ctx);         // tune replay, ...
void register_capture_commands(CLI::App& app, Context& ctx);      // capture, merge
void register_recompile_command(CLI::App& app, Context& ctx);     // recompile
void register_explain_command(CLI::App& app, Context& ctx);       // explain
void register_store_commands(CLI::App& app, Context& ctx);        // record, baseline, log, store
void register_determinism_commands(CLI::App& app, Context& ctx);  // check-determinism
void register_docs_commands(CLI::App& app, Context& ctx);         // completion, man

/// Splits "a,b,,c" into {"a", "b", "c"}.
std::vector<std::string> split_csv(const std::string& s);

/// The text of `ksnap check-determinism` (and of `capture --repeat`).
std::string determinism_summary(const build::UnstableReport& u);

}  // namespace ksnap::cli
