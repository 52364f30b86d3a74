// Command-line habits ksnap shares with git: spellings rewritten before
// CLI11 parses, and the message for a mistyped command.
//
//   ksnap help diff          -> ksnap diff --help
//   ksnap -v                 -> ksnap --version
//   ksnap diff --no-color    -> ksnap diff --color=never
//   ksnap diff --color A B   -> ksnap diff --color=always A B
//   ksnap dif A B            -> "ksnap: 'dif' is not a ksnap command. The most
//                               similar command is 'diff'." (exit 2)
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ksnap::cli {

/// The arguments (argv[1..]) with the spellings above rewritten; CLI11
/// itself still parses and checks them.
std::vector<std::string> rewrite_habits(const std::vector<std::string>& args);

/// When `args` names a command that `app` does not have where one is
/// expected, the message that says so (with the closest commands by edit
/// distance, and how to list them); nullopt when every command word is known.
std::optional<std::string> unknown_command_message(CLI::App& app,
                                                   const std::vector<std::string>& args);

}  // namespace ksnap::cli
