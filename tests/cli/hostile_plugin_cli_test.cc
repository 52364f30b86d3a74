// Hostile captures through `ksnap merge` / `ksnap recompile` (issue 15 items
// 1, 2, 4): nothing a pull request ships runs, and nothing leaves the
// capture. Each attack writes a marker file when its code runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "cli_util.h"

namespace {

namespace fs = std::filesystem;
using ksnap::cli_test::CmdResult;
using ksnap::cli_test::read_json_file;
using ksnap::cli_test::run_env;
using ksnap::cli_test::subset_capture;
using ksnap::cli_test::TempDir;
using nlohmann::json;

const std::string kSource = KSNAP_SOURCE_DIR;
const std::string kBase = std::string(KSNAP_EXAMPLE_DIR) + "/base";

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

/// A folder that runs code from anything that imports from it: json.py and
/// sitecustomize.py (stdlib names), and a ksnap_triton package of its own.
/// Each writes `marker`.
std::string hostile_folder(const std::string& dir, const std::string& marker) {
  fs::create_directories(dir + "/ksnap_triton");
  const std::string pwn = "open('" + marker + "', 'a').write(__name__ + '\\n')\n";
  write(dir + "/json.py", pwn);
  write(dir + "/sitecustomize.py", pwn);
  write(dir + "/ksnap_triton/__init__.py", pwn);
  write(dir + "/ksnap_triton/cli.py", pwn + "def main(argv=None):\n    return 0\n");
  return dir;
}

/// `cd DIR && ENV ksnap ...`, the plugin from this checkout, and a PYTHONPATH
/// whose empty and relative entries would each mean DIR.
std::string in_folder(const std::string& dir, const std::string& extra_path = "") {
  return "cd " + dir + " && KSNAP_PYTHON=/usr/bin/python3 KSNAP_PYTHONPATH=" + kSource +
         "/python PYTHONPATH=:.:" + extra_path + " ";
}

TEST(HostilePluginCli, MergeImportsNothingFromTheCurrentFolder) {
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  TempDir tmp("plugin_merge_cwd");
  const std::string marker = tmp.path + "/PWNED";
  // A downloaded capture, merged from inside it.
  const std::string shard = hostile_folder(tmp.path + "/shard", marker);
  subset_capture(kBase, shard, {0, 1});
  CmdResult r = run_env(in_folder(shard), "merge " + tmp.path + "/out .");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_FALSE(fs::exists(marker)) << "imported from the current folder";
  json m = read_json_file(tmp.path + "/out/manifest.json");
  EXPECT_EQ(m["entries"].size(), 2u);
}

TEST(HostilePluginCli, MergeDoesNotCopyThroughALinkedCacheFolder) {
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  TempDir tmp("plugin_merge_cache_link");
  const std::string shard = tmp.path + "/shard";
  subset_capture(kBase, shard, {0});
  // cache/ itself leads to a folder outside the shard that holds a key under
  // the cache folder name the manifest names.
  const std::string dir = read_json_file(shard + "/manifest.json")["entries"][0]["cache_dir"];
  fs::create_directories(tmp.path + "/home/" + dir);
  write(tmp.path + "/home/" + dir + "/id_rsa", "PRIVATE KEY\n");
  fs::remove_all(shard + "/cache");
  fs::create_directory_symlink(tmp.path + "/home", shard + "/cache");
  CmdResult r = run_env(in_folder(tmp.path), "merge out shard");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("shard/cache is a symbolic link; not copied"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp.path + "/out/cache/" + dir));
  for (auto& p : fs::recursive_directory_iterator(tmp.path + "/out"))
    EXPECT_NE(p.path().filename(), "id_rsa") << p.path();
}

/// A copy of the real recompile fixture whose matmul_kernel source record is
/// edited by `edit(text)`; returns the record's path.
std::string hostile_record_capture(const std::string& cap,
                                   const std::function<std::string(std::string)>& edit) {
  fs::copy(kSource + "/tests/fixtures/recompile/suite", cap, fs::copy_options::recursive);
  for (auto& p : fs::recursive_directory_iterator(cap))
    fs::permissions(p.path(), fs::perms::owner_write, fs::perm_options::add);
  for (auto& p : fs::recursive_directory_iterator(cap)) {
    if (p.path().filename() != "__ksnap_source__matmul_kernel.json") continue;
    json doc = read_json_file(p.path());
    json& fn = doc["functions"][doc["root"].get<std::string>()];
    fn["text"] = edit(fn["text"].get<std::string>());
    doc["files"] = json::object();  // the snapshot would disagree with the edit
    write(p.path(), doc.dump());
    return p.path();
  }
  return "";
}

TEST(HostilePluginCli, RecompileRefusesAKernelWhoseDefaultRunsCode) {
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  TempDir tmp("plugin_recompile_default");
  const std::string marker = tmp.path + "/PWNED";
  const std::string work = hostile_folder(tmp.path + "/work", marker);
  const std::string record = hostile_record_capture(tmp.path + "/cap", [&](std::string text) {
    size_t at = text.find("):\n", text.find("def "));
    return text.insert(at, ", _p=open('" + marker + "', 'a').write('default')");
  });
  ASSERT_FALSE(record.empty());
  CmdResult r = run_env(in_folder(work, kSource + "/python/tests/fake_triton"),
                        "recompile " + tmp.path + "/cap -o " + tmp.path + "/out --jobs 1");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_FALSE(fs::exists(marker)) << "the record's code ran, or a worker imported from cwd";
  // The error names the record file and the kernel's file and line.
  EXPECT_NE(r.err.find(record + ": refused: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("suite_kernels.py:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("is not a literal"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Traceback"), std::string::npos) << r.err;
  json report = read_json_file(tmp.path + "/out/recompile.json");
  ASSERT_EQ(report["failed"].size(), 1u) << report.dump(1);
  EXPECT_EQ(report["failed"][0]["kernel"], "matmul_kernel");
}

TEST(HostilePluginCli, RecompileImportsOnlyAllowedModules) {
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  TempDir tmp("plugin_recompile_import");
  const std::string marker = tmp.path + "/PWNED";
  // An installed module that runs code when imported.
  fs::create_directories(tmp.path + "/site");
  write(tmp.path + "/site/evil_lib.py", "open('" + marker + "', 'a').write('imported')\n");
  const std::string record =
      hostile_record_capture(tmp.path + "/cap", [](std::string t) { return t; });
  json doc = read_json_file(record);
  doc["functions"][doc["root"].get<std::string>()]["globals"]["evil"] = {{"module", "evil_lib"}};
  write(record, doc.dump());
  const std::string env =
      in_folder(tmp.path, kSource + "/python/tests/fake_triton:" + tmp.path + "/site");
  CmdResult r = run_env(env, "recompile cap -o out --jobs 1 --kernel matmul_kernel");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_NE(r.err.find("module 'evil_lib' is not allowed"), std::string::npos) << r.err;
  // Named on the command line, the library is trusted (and so imported).
  CmdResult t = run_env(env,
                        "recompile cap -o out2 --jobs 1 --kernel matmul_kernel "
                        "--trust-module evil_lib");
  EXPECT_EQ(t.err.find("is not allowed"), std::string::npos) << t.err;
  EXPECT_TRUE(fs::exists(marker));
}

}  // namespace
