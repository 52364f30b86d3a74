#include "habits.h"

#include <algorithm>

#include "ksnap/support/text.h"

namespace ksnap::cli {

namespace {

bool is_color_value(const std::string& s) { return s == "auto" || s == "always" || s == "never"; }

/// The subcommands of `app` a user can name (CLI11 keeps option groups as
/// nameless subcommands).
std::vector<CLI::App*> named_commands(CLI::App& app) {
  std::vector<CLI::App*> out;
  for (CLI::App* sub : app.get_subcommands([](CLI::App* s) { return !s->get_name().empty(); }))
    out.push_back(sub);
  return out;
}

}  // namespace

std::vector<std::string> rewrite_habits(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  size_t i = 0;
  if (!args.empty() && (args[0] == "-v" || args[0] == "-V")) return {"--version"};
  if (!args.empty() && args[0] == "help") {
    // `ksnap help` = `ksnap --help`; `ksnap help store gc` = `ksnap store gc --help`.
    out.assign(args.begin() + 1, args.end());
    out.push_back("--help");
    return out;
  }
  // Only `diff` has --color; other commands' arguments (a captured program's
  // own, after `capture`) pass untouched, as does everything after `--`.
  const bool has_color = !args.empty() && args[0] == "diff";
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (has_color && a == "--no-color") {
      out.push_back("--color=never");
    } else if (has_color && a == "--color" && (i + 1 >= args.size() || !is_color_value(args[i + 1]))) {
      out.push_back("--color=always");  // bare --color means always, as in git
    } else {
      out.push_back(a);
    }
  }
  out.insert(out.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  return out;
}

std::optional<std::string> unknown_command_message(CLI::App& app,
                                                   const std::vector<std::string>& args) {
  CLI::App* at = &app;
  std::string path = "ksnap";
  for (const std::string& a : args) {
    if (a == "--") return std::nullopt;
    if (!a.empty() && a[0] == '-') continue;
    std::vector<CLI::App*> subs = named_commands(*at);
    if (subs.empty()) return std::nullopt;  // a leaf command: the rest are its arguments
    auto it = std::find_if(subs.begin(), subs.end(), [&](CLI::App* s) { return s->check_name(a); });
    if (it != subs.end()) {
      at = *it;
      path += " " + (*it)->get_name();
      continue;
    }
    // A word where a command belongs, and no command has that name.
    size_t best = std::string::npos;
    std::vector<std::string> close;
    for (CLI::App* s : subs) {
      size_t d = edit_distance(a, s->get_name());
      if (d < best) {
        best = d;
        close.clear();
      }
      if (d == best) close.push_back(s->get_name());
    }
    std::string msg = "'" + a + "' is not a " + path + " command.";
    // As git: suggest only what is a plausible typo (at most a third of the word wrong).
    if (best != std::string::npos && best <= std::max<size_t>(1, a.size() / 3 + 1) &&
        best < a.size()) {
      msg += close.size() == 1 ? " The most similar command is" : " The most similar commands are";
      for (size_t k = 0; k < close.size(); ++k)
        msg += (k ? ", '" : " '") + close[k] + "'";
      msg += ".";
    }
    msg += " See '" + path + " --help'.";
    return msg;
  }
  return std::nullopt;
}

}  // namespace ksnap::cli
