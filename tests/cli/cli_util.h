// Shared by the CLI tests: run the real `ksnap` binary and build small
// capture folders from real corpus variants.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace ksnap::cli_test {

struct CmdResult {
  int rc = -1;
  std::string out, err;
};

/// Runs `ENV ksnap ARGS` through the shell (ENV: "NAME=value ..." or "");
/// stdout and stderr are kept apart.
inline CmdResult run_env(const std::string& env, const std::string& args) {
  namespace fs = std::filesystem;
  std::string err_path = fs::temp_directory_path() / ("ksnap_cli_err_" + std::to_string(getpid()));
  std::string cmd = env + std::string(KSNAP_BINARY) + " " + args + " 2>" + err_path;
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
  fs::remove(err_path);
  return r;
}

/// Runs `ksnap ARGS`.
inline CmdResult run(const std::string& args) { return run_env("", args); }

inline nlohmann::json read_json_file(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

/// Writes a capture folder `out` holding the entries `pick` of the capture
/// `from` (manifest entries copied verbatim, their cache folders copied),
/// after `edit` has had a chance to change each copied entry.
template <typename EditFn>
void subset_capture(const std::string& from, const std::string& out, const std::vector<int>& pick,
                    EditFn edit) {
  namespace fs = std::filesystem;
  nlohmann::json m = read_json_file(from + "/manifest.json");
  nlohmann::json entries = nlohmann::json::array();
  fs::create_directories(out + "/cache");
  for (int i : pick) {
    nlohmann::json e = m["entries"][i];
    edit(e);
    const std::string dir = e["cache_dir"].get<std::string>();
    if (!fs::exists(out + "/cache/" + dir))
      fs::copy(from + "/cache/" + dir, out + "/cache/" + dir, fs::copy_options::recursive);
    entries.push_back(e);
  }
  m["entries"] = entries;
  m["build"] = fs::path(out).filename().string();
  std::ofstream(out + "/manifest.json") << m.dump(1);
  for (auto& p : fs::recursive_directory_iterator(out))
    fs::permissions(p.path(), fs::perms::owner_write, fs::perm_options::add);
}

inline void subset_capture(const std::string& from, const std::string& out,
                           const std::vector<int>& pick) {
  subset_capture(from, out, pick, [](nlohmann::json&) {});
}

/// A fresh temporary folder, removed by the destructor.
struct TempDir {
  std::string path;
  explicit TempDir(const std::string& tag) {
    namespace fs = std::filesystem;
    path = fs::temp_directory_path() / ("ksnap_" + tag + "_" + std::to_string(getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace ksnap::cli_test
