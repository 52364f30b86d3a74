// CLI habits of `ksnap diff`, on the real binary: what a reader sees first,
// typos that must not read as "nothing changed", -q / --name-only / --color,
// --stat sized to the terminal, a pager only on a terminal, two IR files and
// folders of IR files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <map>
#include <vector>

#include "cli/cli_util.h"
#include "support/corpus_dir.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using ksnap::cli_test::CmdResult;
using ksnap::cli_test::TempDir;

std::string example(const std::string& b) { return std::string(KSNAP_EXAMPLE_DIR) + "/" + b; }
/// A build of the real corpus: the shared one, else the bundled example.
std::string corpus(const std::string& b) { return ksnap::testing::corpus_dir() + "/" + b; }

/// `ksnap ARGS` with `env` ("NAME=value ..."), COLUMNS=100 unless env sets it.
CmdResult run(const std::string& args, const std::string& env = "") {
  return ksnap::cli_test::run_env("COLUMNS=100 " + env + " ", args);
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string l; std::getline(ss, l);) out.push_back(l);
  return out;
}

size_t columns(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Writes `text` with every `from` replaced by `to` to `path`.
void write_edited(const std::string& text, const std::string& from, const std::string& to,
                  const std::string& path) {
  std::string s = text;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << s;
}

std::string example_file(const std::string& name) {
  for (auto& p : fs::recursive_directory_iterator(example("base") + "/cache"))
    if (p.path().filename() == name) return p.path();
  return "";
}

/// How many variants have fewer and more registers in `head` than in `base`
/// (the capture manifests' n_regs, variants paired by kernel and constexprs).
std::pair<size_t, size_t> fewer_and_more_registers(const std::string& base,
                                                   const std::string& head) {
  auto key = [](const json& e) { return e["kernel"].get<std::string>() + e["constexprs"].dump(); };
  const json b = json::parse(read(base + "/manifest.json")),
             h = json::parse(read(head + "/manifest.json"));
  std::map<std::string, int> before;
  for (const json& e : b["entries"]) before[key(e)] = e["n_regs"].get<int>();
  size_t fewer = 0, more = 0;
  for (const json& e : h["entries"]) {
    int n = e["n_regs"].get<int>();
    fewer += n < before.at(key(e));
    more += n > before.at(key(e));
  }
  return {fewer, more};
}

TEST(FirstScreen, FusionOffShowsTheRegisterChangeAndOneOptionLine) {
  CmdResult r = run("diff " + corpus("base") + " " + corpus("fusion_off"));
  ASSERT_EQ(r.rc, 0) << r.err;
  std::vector<std::string> lines = lines_of(r.out);
  ASSERT_GT(lines.size(), 24u);
  std::string screen;
  for (size_t i = 0; i < 24; ++i) screen += lines[i] + "\n";
  // n_regs: the variants with a changed stage of all, helped, hurt.
  const size_t variants = ksnap::testing::truth_variants().size();
  const size_t affected = ksnap::testing::truth_variants("base..fusion_off", true).size();
  auto [fewer, more] = fewer_and_more_registers(corpus("base"), corpus("fusion_off"));
  ASSERT_GT(fewer, 0u) << "fusion_off saves registers somewhere";
  std::string n_regs = "binary\\s+n_regs\\s+" + std::to_string(affected) + " of " +
                       std::to_string(variants) + "\\s+" + std::to_string(fewer) + "\\s+" +
                       std::to_string(more) + "\\s";
  EXPECT_TRUE(std::regex_search(screen, std::regex(n_regs))) << n_regs << "\n" << screen;
  // One collapsed line for the option every variant changed, on screen.
  size_t option_lines = 0;
  for (const auto& l : lines) option_lines += l.find("enable_fp_fusion") != std::string::npos;
  EXPECT_EQ(option_lines, 1u);
  std::string option = "enable_fp_fusion: true → false — " + std::to_string(variants) +
                       " variants of " + std::to_string(ksnap::testing::truth_kernels().size()) +
                       " kernels";
  EXPECT_NE(screen.find(option), std::string::npos) << option << "\n" << screen;
}

TEST(FirstScreen, NoLicmEachKernelStartsWithItsTtgirChange) {
  std::string dir = corpus("");
  CmdResult r = run("diff " + dir + "base " + dir + "no_licm");
  ASSERT_EQ(r.rc, 0) << r.err;
  std::vector<std::string> lines = lines_of(r.out);
  size_t kernels = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("━━ ", 0) != 0) continue;
    ++kernels;
    size_t j = i + 1;
    while (j < lines.size() && lines[j].rfind("── ", 0) != 0) ++j;
    ASSERT_LT(j, lines.size()) << lines[i];
    EXPECT_NE(lines[j].find(" · ttgir · "), std::string::npos) << lines[i] << "\n" << lines[j];
  }
  EXPECT_EQ(kernels, ksnap::testing::truth_kernels("base..no_licm", true).size());
}

TEST(Typos, UnknownValuesExit2AndSayWhatWasMeant) {
  std::string b = example("base"), h = example("no_licm");
  struct Case {
    std::string args, want;
  } cases[] = {
      {"--kernel softmax", "unknown kernel 'softmax' (did you mean 'softmax_kernel'?)"},
      {"--kernel softmax_kernel,atn_fwd", "unknown kernel 'atn_fwd' (did you mean 'attn_fwd'?)"},
      {"--stages tgir", "unknown stage 'tgir' (did you mean 'ttgir'?)"},
      {"--stages TTGIR", "unknown stage 'TTGIR' (did you mean 'ttgir'?)"},
      {"--stages ptx,sass", "unknown stage 'sass'"},
      {"--order sise", "unknown order 'sise' (did you mean 'size'?)"},
      {"--format jsn", "unknown format 'jsn' (did you mean 'json'?)"},
      {"--color=nevr", "did you mean 'never'?"},
  };
  for (const auto& c : cases) {
    CmdResult r = run("diff " + b + " " + h + " " + c.args + " --exit-code");
    EXPECT_EQ(r.rc, 2) << c.args;
    EXPECT_NE(r.err.find(c.want), std::string::npos) << c.args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << c.args;
  }
  // Right values still work.
  EXPECT_EQ(run("diff " + b + " " + h + " --kernel softmax_kernel --stages ttgir --exit-code").rc, 1);
}

// A Markdown cap too small to hold the header is a usage error, not a
// comment over the cap.
TEST(Typos, MarkdownCapBelowTheSmallestReportExits2) {
  for (const char* cap : {"0", "100", "1023"}) {
    CmdResult r = run("diff " + example("base") + " " + example("no_licm") + " -f markdown --max-bytes " + cap);
    EXPECT_EQ(r.rc, 2) << cap;
    EXPECT_NE(r.err.find("--max-bytes"), std::string::npos) << r.err;
  }
  CmdResult ok = run("diff " + example("base") + " " + example("no_licm") + " -f markdown --max-bytes 1024");
  EXPECT_EQ(ok.rc, 0) << ok.err;
  EXPECT_LE(ok.out.size(), 1024u);
}

TEST(Habits, QuietNameOnlyAndBareColor) {
  std::string b = example("base");
  CmdResult q = run("diff " + b + " " + example("no_licm") + " -q");
  EXPECT_EQ(q.rc, 1);
  EXPECT_TRUE(q.out.empty());
  CmdResult qn = run("diff " + b + " " + example("noise") + " --quiet");
  EXPECT_EQ(qn.rc, 0);
  EXPECT_TRUE(qn.out.empty());

  CmdResult n = run("diff " + b + " " + example("no_licm") + " --name-only");
  ASSERT_EQ(n.rc, 0) << n.err;
  CmdResult j = run("diff " + b + " " + example("no_licm") + " -f json");
  json d = json::parse(j.out);
  EXPECT_EQ(lines_of(n.out).size(), d["totals"]["changed_variants"].get<size_t>());
  EXPECT_EQ(lines_of(n.out)[0].find('\x1b'), std::string::npos);
  for (const auto& l : lines_of(n.out)) EXPECT_NE(l.find(" {"), std::string::npos) << l;

  // --color alone means always, and does not swallow BASE.
  CmdResult c = run("diff --color " + b + " " + example("no_licm"));
  ASSERT_EQ(c.rc, 0) << c.err;
  EXPECT_NE(c.out.find("\x1b[1m"), std::string::npos);
  CmdResult never = run("diff " + b + " " + example("no_licm") + " --color never");
  EXPECT_EQ(never.out.find('\x1b'), std::string::npos);
  CmdResult piped = run("diff " + b + " " + example("no_licm"));
  EXPECT_EQ(piped.out.find('\x1b'), std::string::npos) << "no color into a pipe";
}

TEST(Habits, StatFitsTheTerminalAndDrawsBothSides) {
  for (int width : {60, 80, 200}) {
    CmdResult r = run("diff " + example("base") + " " + example("no_licm") + " --stat",
                      "COLUMNS=" + std::to_string(width));
    ASSERT_EQ(r.rc, 0) << r.err;
    for (const auto& l : lines_of(r.out)) EXPECT_LE(columns(l), static_cast<size_t>(width)) << l;
  }
  // +4/-4 of one variant: four of each, not "8 -".
  TempDir t("cli_habits");
  std::string src = read(example_file("softmax_kernel.ttgir"));
  ASSERT_FALSE(src.empty());
  write_edited(src, "arith.andi", "arith.andi", t.path + "/a/softmax_kernel.ttgir");
  write_edited(src, "arith.andi", "arith.ori", t.path + "/b/softmax_kernel.ttgir");
  CmdResult r = run("diff " + t.path + "/a/softmax_kernel.ttgir " + t.path + "/b/softmax_kernel.ttgir --stat");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("| 8 ++++----\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 variant changed, 4 insertions(+), 4 deletions(-)"), std::string::npos) << r.out;
}

TEST(Inputs, TwoFilesAndFoldersOfIrFiles) {
  TempDir t("cli_habits");
  std::string ttgir = read(example_file("softmax_kernel.ttgir"));
  std::string ptx = read(example_file("softmax_kernel.ptx"));
  ASSERT_FALSE(ttgir.empty());
  ASSERT_FALSE(ptx.empty());
  write_edited(ttgir, "arith.andi", "arith.andi", t.path + "/a/softmax_kernel.ttgir");
  write_edited(ttgir, "arith.andi", "arith.ori", t.path + "/b/softmax_kernel.ttgir");
  write_edited(ptx, "\n", "\n", t.path + "/a/softmax_kernel.ptx");
  write_edited(ptx, "\n", "\n", t.path + "/b/softmax_kernel.ptx");
  // Two files.
  CmdResult two = run("diff " + t.path + "/a/softmax_kernel.ttgir " + t.path + "/b/softmax_kernel.ttgir --exit-code");
  EXPECT_EQ(two.rc, 1) << two.err;
  EXPECT_NE(two.out.find("softmax_kernel · ttgir · 1 variant · +4 −4 lines"), std::string::npos) << two.out;
  // Bare files have neither constexprs nor options: no empty "{}" label line
  // under the group header, in the terminal or the Markdown comment.
  EXPECT_EQ(two.out.find("{}"), std::string::npos) << two.out;
  CmdResult md = run("diff " + t.path + "/a/softmax_kernel.ttgir " + t.path + "/b/softmax_kernel.ttgir -f markdown");
  EXPECT_EQ(md.rc, 0) << md.err;
  EXPECT_EQ(md.out.find("{}"), std::string::npos) << md.out;
  EXPECT_EQ(md.out.find("Variants:"), std::string::npos) << md.out;
  // Two plain folders: one variant per stem, one stage per extension.
  CmdResult dirs = run("diff " + t.path + "/a " + t.path + "/b -f json");
  ASSERT_EQ(dirs.rc, 0) << dirs.err;
  json d = json::parse(dirs.out);
  ASSERT_EQ(d["variants"].size(), 1u);
  EXPECT_EQ(d["variants"][0]["stages"]["ttgir"]["status"], "changed");
  EXPECT_EQ(d["variants"][0]["stages"]["ptx"]["status"], "unchanged");
  // What does not work says what would.
  std::ofstream(t.path + "/notes.txt") << "hello\n";
  fs::create_directories(t.path + "/empty");
  struct Case {
    std::string args, want;
  } cases[] = {
      {t.path + "/a/softmax_kernel.ttgir " + t.path + "/a/softmax_kernel.ptx",
       "cannot compare a ttgir file"},
      {t.path + "/notes.txt " + t.path + "/notes.txt", "cannot tell the IR kind of"},
      {t.path + "/a/softmax_kernel.ttgir " + t.path + "/b", "is a file and"},
      {t.path + "/empty " + t.path + "/b", "no IR files"},
  };
  for (const auto& c : cases) {
    CmdResult r = run("diff " + c.args);
    EXPECT_EQ(r.rc, 2) << c.args;
    EXPECT_NE(r.err.find(c.want), std::string::npos) << c.args << ": " << r.err;
  }
}

TEST(Habits, PagerOnlyOnATerminal) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1) for a pty";
  TempDir t("cli_habits");
  std::string paged = t.path + "/paged.txt";
  std::string diff = std::string(KSNAP_BINARY) + " diff " + example("base") + " " + example("no_licm");
  auto in_pty = [&](const std::string& flags) {
    std::string cmd = "script -qec \"env KSNAP_PAGER='cat > " + paged + "' " + diff + flags +
                      "\" /dev/null > /dev/null 2>&1";
    return std::system(cmd.c_str());
  };
  ASSERT_EQ(in_pty(""), 0);
  std::string text = read(paged);
  EXPECT_NE(text.find("ksnap diff base → no_licm"), std::string::npos) << "paged on a terminal";
  fs::remove(paged);
  ASSERT_EQ(in_pty(" --no-pager"), 0);
  EXPECT_FALSE(fs::exists(paged)) << "--no-pager";
  CmdResult piped = run("diff " + example("base") + " " + example("no_licm"), "KSNAP_PAGER='cat > " + paged + "'");
  EXPECT_EQ(piped.rc, 0);
  EXPECT_FALSE(fs::exists(paged)) << "no pager into a pipe";
  EXPECT_NE(piped.out.find("ksnap diff base → no_licm"), std::string::npos);
}

TEST(Habits, ProgressOnlyOnATerminalStderr) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1) for a pty";
  TempDir t("cli_habits");
  std::string log = t.path + "/tty.txt", out = t.path + "/out.txt";
  std::string cmd = "script -qec \"env KSNAP_PROGRESS_DELAY_MS=0 " + std::string(KSNAP_BINARY) + " diff " +
                    example("base") + " " + example("no_licm") + " --stat > " + out + "\" " + log +
                    " > /dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_TRUE(std::regex_search(read(log), std::regex(R"(ksnap: comparing kernel-stages ([0-9]+)/\1)")))
      << read(log);
  EXPECT_EQ(read(out).find("comparing"), std::string::npos) << "progress stays on stderr";
  CmdResult piped = run("diff " + example("base") + " " + example("no_licm"), "KSNAP_PROGRESS_DELAY_MS=0");
  EXPECT_EQ(piped.err, "") << "no progress when stderr is not a terminal";
}

TEST(Habits, OrderAndHeadNames) {
  std::string dir = corpus("");
  CmdResult p = run("diff " + dir + "base " + dir + "no_licm -f json");
  CmdResult s = run("diff " + dir + "base " + dir + "no_licm -f json --order size --head-names");
  ASSERT_EQ(p.rc, 0);
  ASSERT_EQ(s.rc, 0);
  json jp = json::parse(p.out), js = json::parse(s.out);
  EXPECT_EQ(jp["order"], "pipeline");
  EXPECT_EQ(js["order"], "size");
  EXPECT_EQ(jp["names"], "base");
  EXPECT_EQ(js["names"], "head");
  uint64_t prev = UINT64_MAX;
  for (const auto& g : js["groups"]) {
    EXPECT_LE(g["weight"].get<uint64_t>(), prev);
    prev = g["weight"].get<uint64_t>();
  }
  // Same changes, other spelling: some line shows HEAD's own names.
  size_t differ = 0, total = 0;
  std::map<std::string, const json*> by_key;
  for (const auto& g : jp["groups"]) by_key[g["kernel"].get<std::string>() + g["stage"].get<std::string>() + g["signature"].get<std::string>()] = &g;
  for (const auto& g : js["groups"]) {
    const json* q = by_key[g["kernel"].get<std::string>() + g["stage"].get<std::string>() + g["signature"].get<std::string>()];
    ASSERT_NE(q, nullptr);
    for (size_t h = 0; h < g["hunks"].size(); ++h)
      for (size_t i = 0; i < g["hunks"][h]["lines"].size(); ++i) {
        ++total;
        differ += g["hunks"][h]["lines"][i][1] != (*q)["hunks"][h]["lines"][i][1];
      }
  }
  EXPECT_GT(total, 0u);
  EXPECT_GT(differ, 0u);
}

}  // namespace

// git's spellings and messages (issue 19): each row is `ksnap ARGS`, the exit
// code, and a text stdout or stderr must hold.
TEST(Habits, GitSpellingsAndMistypedCommands) {
  struct Case {
    std::string args;
    int rc;
    std::string out, err;
  };
  const std::vector<Case> cases = {
      {"dif a b", 2, "", "'dif' is not a ksnap command. The most similar command is 'diff'."},
      {"store vrify", 2, "", "'vrify' is not a ksnap store command. The most similar command is 'verify'."},
      {"tune grops x", 2, "", "The most similar command is 'groups'."},
      {"qwertyuiop", 2, "", "'qwertyuiop' is not a ksnap command. See 'ksnap --help'."},
      {"-v", 0, "ksnap ", ""},
      {"--version", 0, "ksnap ", ""},
      {"help diff", 0, "Usage: ksnap diff [OPTIONS] base head", ""},
      {"help store gc", 0, "Usage: ksnap store gc [OPTIONS]", ""},
      {"diff --help", 0, "Usage: ksnap diff [OPTIONS] base head", ""},
      {"help", 0, "Usage: ksnap [OPTIONS] SUBCOMMAND", ""},
      {"diff " + example("base") + " " + example("no_licm") + " --no-color --stat", 0,
       "6 variants changed", ""},
      // A mistyped build folder: the folder first, then why it is not a commit either.
      {"diff " + example("base") + " " + example("nolicm"), 2, "",
       "ksnap: " + example("nolicm") + ": not found: no such build folder"},
  };
  for (const Case& c : cases) {
    CmdResult r = run(c.args);
    EXPECT_EQ(r.rc, c.rc) << c.args << "\n" << r.out << r.err;
    if (!c.out.empty()) EXPECT_NE(r.out.find(c.out), std::string::npos) << c.args << "\n" << r.out;
    if (!c.err.empty()) EXPECT_NE(r.err.find(c.err), std::string::npos) << c.args << "\n" << r.err;
  }
  // --no-color is --color never: no escape even where --color alone would color.
  CmdResult plain = run("diff " + example("base") + " " + example("no_licm") + " --color --no-color");
  EXPECT_EQ(plain.out.find('\x1b'), std::string::npos);
  // After `--` nothing is rewritten (a captured program's own arguments).
  CmdResult dash = run("diff -- --no-color x");
  EXPECT_EQ(dash.rc, 2);
  EXPECT_EQ(dash.err.find("--color=never"), std::string::npos) << dash.err;
}

// `record` and `log` draw progress on a terminal's stderr (like `diff`), and
// never into a pipe.
TEST(Habits, RecordAndLogShowProgressOnATerminal) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1) for a pty";
  TempDir t("cli_habits_progress");
  const std::string db = t.path + "/h.db", tty = t.path + "/tty.txt", out = t.path + "/out.txt";
  const std::string a(40, 'a'), b(40, 'b');
  auto in_pty = [&](const std::string& args) {
    std::string cmd = "script -qec \"env KSNAP_PROGRESS_DELAY_MS=0 " + std::string(KSNAP_BINARY) + " " +
                      args + " > " + out + "\" " + tty + " > /dev/null 2>&1";
    return std::system(cmd.c_str());
  };
  ASSERT_EQ(in_pty("record --store " + db + " --repo '' --commit " + a + " " + example("base")), 0);
  EXPECT_TRUE(std::regex_search(read(tty), std::regex(R"(ksnap: recording variants ([0-9]+)/\1)")))
      << read(tty);
  EXPECT_NE(read(out).find("recorded aaaaaaaaaaaa"), std::string::npos) << read(out);
  ASSERT_EQ(in_pty("record --store " + db + " --repo '' --commit " + b + " --parent " + a + " " +
                   example("no_licm")),
            0);
  ASSERT_EQ(in_pty("log --store " + db + " --repo ''"), 0);
  EXPECT_NE(read(tty).find("ksnap: walking recorded commits 2/2"), std::string::npos) << read(tty);
  EXPECT_EQ(read(out).find("walking"), std::string::npos) << "progress stays on stderr";
  CmdResult piped = run("log --store " + db + " --repo ''", "KSNAP_PROGRESS_DELAY_MS=0");
  EXPECT_EQ(piped.rc, 0);
  EXPECT_EQ(piped.err, "") << "no progress when stderr is not a terminal";
  CmdResult quiet_pipe = run("record --store " + db + " --repo '' --commit " + std::string(40, 'c') +
                                 " --parent " + b + " " + example("base"),
                             "KSNAP_PROGRESS_DELAY_MS=0");
  EXPECT_EQ(quiet_pipe.err, "");
}

// `ksnap log` of a kernel or stage no recorded commit has is an error that
// says what was meant, not an empty log with exit 0.
TEST(Habits, LogOfAnUnknownKernelOrStageSaysSo) {
  TempDir t("cli_habits_log");
  const std::string db = t.path + "/h.db";
  const std::string a(40, 'a'), b(40, 'b');
  ASSERT_EQ(run("record -q --store " + db + " --repo '' --commit " + a + " " + example("base")).rc, 0);
  ASSERT_EQ(run("record -q --store " + db + " --repo '' --commit " + b + " --parent " + a + " " +
                example("no_licm"))
                .rc,
            0);
  CmdResult ok = run("log softmax_kernel --store " + db + " --repo ''");
  EXPECT_EQ(ok.rc, 0) << ok.err;
  EXPECT_NE(ok.out.find("softmax_kernel"), std::string::npos) << ok.out;
  CmdResult typo = run("log softmax_kernl --store " + db + " --repo ''");
  EXPECT_EQ(typo.rc, 2) << typo.out;
  EXPECT_NE(typo.err.find("no recorded commit has a kernel named 'softmax_kernl' (did you mean "
                          "'softmax_kernel'?)"),
            std::string::npos)
      << typo.err;
  CmdResult none = run("log no_such_kernel_at_all --store " + db + " --repo ''");
  EXPECT_EQ(none.rc, 2);
  EXPECT_NE(none.err.find("(kernels: "), std::string::npos) << none.err;
  CmdResult stage = run("log softmax_kernel --stage tpx --store " + db + " --repo ''");
  EXPECT_EQ(stage.rc, 2) << stage.out;
  EXPECT_NE(stage.err.find("no recorded variant has a stage named 'tpx' (did you mean 'ptx'?)"),
            std::string::npos)
      << stage.err;
  // A known kernel whose IR never changed is an empty log, exit 0.
  CmdResult quiet = run("log softmax_kernel --stage ttir --store " + db + " --repo ''");
  EXPECT_EQ(quiet.rc, 0) << quiet.err;
}

// At 80 columns, two variants of one kernel never print the same name: the
// items all its changed variants share go first, then the middle.
TEST(Habits, StatNamesStayDistinctAtEightyColumns) {
  for (int width : {60, 80, 100}) {
    CmdResult r = run("diff " + example("base") + " " + example("no_licm") + " --stat",
                      "COLUMNS=" + std::to_string(width));
    ASSERT_EQ(r.rc, 0) << r.err;
    std::set<std::string> names;
    size_t rows = 0;
    for (const auto& l : lines_of(r.out)) {
      size_t bar = l.find(" | ");
      if (bar == std::string::npos) continue;
      ++rows;
      EXPECT_TRUE(names.insert(l.substr(0, bar)).second) << "width " << width << ": " << l;
    }
    EXPECT_EQ(rows, 6u) << r.out;
  }
  CmdResult r = run("diff " + example("base") + " " + example("no_licm") + " --stat", "COLUMNS=80");
  EXPECT_NE(r.out.find("matmul_kernel{…, BLOCK_SIZE_M=64, BLOCK_SIZE_N=32"), std::string::npos) << r.out;
}

/// stdout of `bash -c SCRIPT` (the script gets no shell quoting from here).
std::string bash_output(const std::string& script_path) {
  std::string out;
  FILE* p = ::popen(("bash '" + script_path + "' 2>&1").c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

// The bash completion completes command words at each level and each
// command's own options, from the binary's command tree.
TEST(Habits, BashCompletionKnowsEveryLevel) {
  TempDir t("cli_habits_completion");
  CmdResult c = run("completion bash");
  ASSERT_EQ(c.rc, 0) << c.err;
  std::ofstream(t.path + "/ksnap.bash") << c.out;
  struct Case {
    std::string words;  // COMP_WORDS, the last one being completed
    std::string want;   // COMPREPLY, space-joined ("[...]"), or words it holds
  };
  const std::vector<Case> cases = {
      {"ksnap sto", "store"},
      {"ksnap store v", "verify"},
      {"ksnap tune g", "groups"},
      {"ksnap diff --sta", "--stat --stages"},
      {"ksnap store gc --va", "--vacuum"},
      {"ksnap he", "help"},
      {"ksnap diff --no-su", "--no-summary"},  // not `diff`'s: log's
      {"ksnap log --no-su", "--no-summary"},
      {"ksnap diff base ", "case.sh ksnap.bash"},  // a positional: file names
  };
  for (const Case& k : cases) {
    std::string script = t.path + "/case.sh";
    std::ofstream(script) << "cd '" << t.path << "'\nsource ./ksnap.bash\nCOMP_WORDS=(" << k.words
                          << (k.words.back() == ' ' ? "''" : "") << ")\nCOMP_CWORD=$(("
                          << "${#COMP_WORDS[@]} - 1))\n_ksnap\necho \"[${COMPREPLY[*]}]\"\n";
    std::string got = bash_output(script);
    if (k.words.rfind("ksnap diff --no-su", 0) == 0) {
      EXPECT_EQ(got, "[]\n") << k.words;
      continue;
    }
    std::set<std::string> words;
    std::stringstream ss(got.substr(got.find('[') + 1, got.find(']') - got.find('[') - 1));
    for (std::string w; ss >> w;) words.insert(w);
    std::set<std::string> want;
    std::stringstream ws(k.want);
    for (std::string w; ws >> w;) want.insert(w);
    EXPECT_EQ(words, want) << k.words << " -> " << got;
  }
}

// The man page lists every command and option, and groff reads it without
// a warning.
TEST(Habits, ManPageCoversEveryCommand) {
  CmdResult m = run("man");
  ASSERT_EQ(m.rc, 0) << m.err;
  for (const char* cmd : {"ksnap diff", "ksnap log", "ksnap store gc", "ksnap tune groups",
                          "ksnap capture", "ksnap explain", "ksnap completion"})
    EXPECT_NE(m.out.find(std::string(".SS ") + cmd), std::string::npos) << cmd;
  EXPECT_NE(m.out.find("\\-\\-stat"), std::string::npos);
  if (std::system("command -v groff >/dev/null 2>&1") != 0) GTEST_SKIP() << "no groff";
  TempDir t("cli_habits_man");
  std::ofstream(t.path + "/ksnap.1") << m.out;
  std::ofstream(t.path + "/check.sh") << "groff -man -Tutf8 -ww -z '" << t.path << "/ksnap.1'\n";
  EXPECT_EQ(bash_output(t.path + "/check.sh"), "");
}

// The Markdown heading states the verdict: "no IR changes" when none did.
TEST(Habits, MarkdownHeadingSaysWhetherIrChanged) {
  CmdResult same = run("diff " + example("base") + " " + example("noise") + " --format markdown");
  ASSERT_EQ(same.rc, 0) << same.err;
  EXPECT_EQ(same.out.rfind("## ksnap: no IR changes `base` → `noise`", 0), 0u) << same.out;
  CmdResult changed = run("diff " + example("base") + " " + example("no_licm") + " --format markdown");
  EXPECT_EQ(changed.out.rfind("## ksnap: IR changes `base` → `no_licm`", 0), 0u) << changed.out;
}
