// Test helper: runs the real `ksnap` binary and captures its output.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ksnap::testing {

struct CmdResult {
  int rc = -1;
  std::string out, err;
};

/// Runs ksnap with `args`; `env` ("NAME=value ...") is set for it. Output is a
/// pipe, so no pager and no color unless asked; COLUMNS is 100 unless given.
inline CmdResult run(const std::string& args, const std::string& env = "") {
  std::string err_path = std::filesystem::temp_directory_path() / ("ksnap_cli_err_" + std::to_string(getpid()));
  std::string cmd = "env COLUMNS=100 " + env + " " + std::string(KSNAP_BINARY) + " " + args + " 2>" + err_path;
  CmdResult r;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream e(err_path);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  std::filesystem::remove(err_path);
  return r;
}

inline std::string example(const std::string& b) { return std::string(KSNAP_EXAMPLE_DIR) + "/" + b; }
inline std::string shared(const std::string& b) { return std::string(KSNAP_CORPUS_DIR) + "/" + b; }

}  // namespace ksnap::testing
