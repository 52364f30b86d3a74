// `ksnap completion bash|zsh` and `ksnap man`: the shell completion script
// and the man page, both written from the command tree CLI11 holds, so they
// list exactly the commands and options this binary has. The build writes
// them (CMakeLists.txt) and the package installs them:
//
//   /usr/share/bash-completion/completions/ksnap   (ksnap completion bash)
//   /usr/share/zsh/vendor-completions/_ksnap       (ksnap completion zsh)
//   /usr/share/man/man1/ksnap.1                    (ksnap man)
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"

namespace ksnap::cli {

namespace {

/// Named subcommands (CLI11 keeps option groups as nameless ones).
std::vector<const CLI::App*> commands_of(const CLI::App& app) {
  std::vector<const CLI::App*> out;
  for (const CLI::App* s : app.get_subcommands({}))
    if (!s->get_name().empty()) out.push_back(s);
  return out;
}

/// Every option spelling of `app` ("--stat", "-q", ...), help included.
std::vector<std::string> flags_of(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_positional()) continue;
    for (const std::string& l : o->get_lnames()) out.push_back("--" + l);
    for (const std::string& s : o->get_snames()) out.push_back("-" + s);
  }
  return out;
}

struct Node {
  std::string path;  ///< "ksnap store gc"
  const CLI::App* app;
};

void walk(const CLI::App& app, const std::string& path, std::vector<Node>* out) {
  out->push_back({path, &app});
  for (const CLI::App* s : commands_of(app)) walk(*s, path + " " + s->get_name(), out);
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

std::string bash_completion(const CLI::App& root) {
  std::vector<Node> nodes;
  walk(root, "ksnap", &nodes);
  std::string out =
      "# bash completion for ksnap, written by `ksnap completion bash` (ksnap " KSNAP_VERSION
      ").\n"
      "_ksnap() {\n"
      "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" path=ksnap i w words=\"\"\n"
      "  # The command path so far: the leading words that name commands.\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    w=\"${COMP_WORDS[i]}\"\n"
      "    case \"$w\" in -*) continue ;; esac\n"
      "    case \"$path $w\" in\n";
  std::string cases;
  for (const Node& n : nodes)
    if (n.path != "ksnap") cases += "      \"" + n.path + "\") path=\"$path $w\" ;;\n";
  out += cases;
  out +=
      "      *) break ;;\n"
      "    esac\n"
      "  done\n"
      "  case \"$path\" in\n";
  for (const Node& n : nodes) {
    std::vector<std::string> words;
    for (const CLI::App* s : commands_of(*n.app)) words.push_back(s->get_name());
    std::vector<std::string> flags = flags_of(*n.app);
    if (n.path == "ksnap") words.push_back("help");
    out += "    \"" + n.path + "\") words=\"" + join(words) + "\"; [[ \"$cur\" == -* ]] && words=\"" +
           join(flags) + "\" ;;\n";
  }
  out +=
      "  esac\n"
      "  if [ -n \"$words\" ]; then\n"
      "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
      "  else\n"
      "    COMPREPLY=($(compgen -f -- \"$cur\"))  # build folders, IR files\n"
      "  fi\n"
      "}\n"
      "complete -o filenames -o bashdefault -F _ksnap ksnap\n";
  return out;
}

std::string zsh_completion(const CLI::App& root) {
  // zsh runs the bash function through bashcompinit: one source of truth.
  return "#compdef ksnap\n# zsh completion for ksnap, written by `ksnap completion zsh`.\n"
         "autoload -U +X bashcompinit && bashcompinit\n" +
         bash_completion(root);
}

/// Text for roff: a leading dot or quote escaped, backslashes doubled, and
/// hyphens of option names kept as hyphens.
std::string roff(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

std::string man_page(const CLI::App& root) {
  std::vector<Node> nodes;
  walk(root, "ksnap", &nodes);
  std::string out =
      ".\\\" ksnap(1), written by `ksnap man` from the command tree of ksnap " KSNAP_VERSION
      ".\n"
      ".TH KSNAP 1 \"\" \"ksnap " KSNAP_VERSION "\" \"User Commands\"\n"
      ".SH NAME\n"
      "ksnap \\- snapshot, diff and autotune GPU microkernels across compiler builds\n"
      ".SH SYNOPSIS\n"
      ".B ksnap\n"
      ".I command\n"
      "[\\fIoptions\\fR] [\\fIarguments\\fR]\n"
      ".SH DESCRIPTION\n"
      "ksnap captures the IR of every compiler stage of every Triton kernel variant a suite "
      "compiles, compares two builds ignoring what does not matter (SSA and block names, "
      "metadata numbering, registers), keeps a history store for CI, and picks the fastest "
      "variant of an autotune group at run time.\n"
      ".PP\n"
      "\\fBksnap help\\fR \\fIcommand\\fR (or \\fBksnap\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR) "
      "shows the same text as this page for one command.\n"
      ".SH COMMANDS\n";
  for (const Node& n : nodes) {
    if (n.path == "ksnap") continue;
    out += ".SS " + roff(n.path);
    for (const CLI::Option* o : n.app->get_options())
      if (o->get_positional()) out += " " + roff(o->get_name());
    if (!commands_of(*n.app).empty()) out += " \\fIcommand\\fR";
    out += "\n" + roff(n.app->get_description()) + "\n";
    for (const CLI::Option* o : n.app->get_options()) {
      if (o->get_name() == "--help") continue;
      out += ".TP\n.B " + roff(o->get_name(o->get_positional(), true)) + "\n" +
             roff(o->get_description().empty() ? "(no description)" : o->get_description()) + "\n";
    }
  }
  out +=
      ".SH EXIT STATUS\n"
      "0: ok. 1: differences found (only with \\fB\\-\\-exit\\-code\\fR). 2: usage or input "
      "error.\n"
      ".SH EXAMPLES\n"
      ".nf\n"
      "ksnap diff main-build/ pr-build/ \\-\\-stat\n"
      "ksnap record \\-\\-commit HEAD capture/\n"
      "ksnap log matmul_kernel \\-\\-stage ptx\n"
      "ksnap capture \\-o capture/ \\-\\- python3 bench.py\n"
      ".fi\n"
      ".SH SEE ALSO\n"
      "git-diff(1), /usr/share/doc/ksnap\n";
  return out;
}

}  // namespace

void register_docs_commands(CLI::App& app, Context& ctx) {
  auto shell = std::make_shared<std::string>();
  CLI::App* c = app.add_subcommand("completion", "Print the shell completion script (bash or zsh)");
  c->add_option("shell", *shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  c->footer("Example: source <(ksnap completion bash)");
  c->callback([shell, &app, &ctx] {
    std::cout << (*shell == "zsh" ? zsh_completion(app) : bash_completion(app));
    ctx.exit_code = kExitOk;
  });
  CLI::App* m = app.add_subcommand("man", "Print the man page (roff): ksnap man | man -l -");
  m->callback([&app, &ctx] {
    std::cout << man_page(app);
    ctx.exit_code = kExitOk;
  });
}

}  // namespace ksnap::cli
