// Names never decide equality (issue 8 item 2): identity comes from
// definitions. Each case takes a real corpus file, renames in a way that a
// compiler might (names reused in sibling regions, or the reverse), and
// checks the hash stays; a real change next to it must still change it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <string>

#include "normalize/test_util.h"

namespace fs = std::filesystem;

namespace ksnap::norm {
namespace {

using ir::Dialect;
using testing::hash_ok;

/// The first (by path) `kernel.ext` of the bundled example's base build.
std::string example_text(const std::string& kernel, const std::string& ext) {
  std::vector<std::string> found;
  for (auto& p : fs::recursive_directory_iterator(std::string(KSNAP_EXAMPLE_DIR) + "/base/cache"))
    if (p.path().filename() == kernel + "." + ext) found.push_back(p.path());
  std::sort(found.begin(), found.end());
  if (found.empty()) return "";
  auto b = read_text_file(found.front());
  return b ? std::string(b->view()) : "";
}

/// Replaces `from` by `to` in the lines [first line containing `begin`,
/// first later line containing `end`].
std::string replace_between(const std::string& text, const std::string& begin,
                            const std::string& end, const std::string& from, const std::string& to) {
  size_t b = text.find(begin);
  size_t e = text.find(end, b);
  EXPECT_NE(b, std::string::npos) << begin;
  EXPECT_NE(e, std::string::npos) << end;
  std::string mid = text.substr(b, e - b);
  for (size_t p = mid.find(from); p != std::string::npos; p = mid.find(from, p + to.size()))
    mid.replace(p, from.size(), to);
  return text.substr(0, b) + mid + text.substr(e);
}

std::string regex_replace_all(const std::string& text, const std::string& re,
                              const std::string& fmt) {
  return std::regex_replace(text, std::regex(re), fmt);
}

struct Case {
  const char* name;
  std::string base, head;
  Dialect dialect;
  bool equal;
};

void check(const Case& c) {
  ASSERT_FALSE(c.base.empty()) << c.name;
  ASSERT_NE(c.base, c.head) << c.name << ": the edit must change the text";
  uint64_t a = hash_ok(c.base, c.dialect), b = hash_ok(c.head, c.dialect);
  if (c.equal) {
    EXPECT_EQ(a, b) << c.name;
  } else {
    EXPECT_NE(a, b) << c.name;
  }
}

// The softmax of issue 8: two sibling `tt.reduce` regions whose block
// arguments Triton names from name-locations. Under TRITON_DISABLE_LINE_INFO
// the names change; the second region may reuse the first one's names.
TEST(NamesTest, SiblingRegionsThatReuseNamesAreEqual) {
  std::string soft = example_text("softmax_kernel", "ttgir");
  ASSERT_NE(soft.find("%denominator_38"), std::string::npos);
  std::string reuse = replace_between(soft, "%denominator = \"tt.reduce\"", "}) :",
                                      "%denominator_", "%row_minus_max_");
  std::string reuse_first = replace_between(soft, "%row_minus_max = \"tt.reduce\"",
                                            "}) :", "%row_minus_max_", "%denominator_");
  // A real change in the reused region: the combiner adds an argument to itself.
  std::string wrong = std::regex_replace(
      reuse, std::regex("(arith.addf %row_minus_max_38, )%row_minus_max_39"), "$1%row_minus_max_38");
  Case cases[] = {
      {"region 2 reuses region 1's names", soft, reuse, Dialect::kMlir, true},
      {"region 1 reuses region 2's names", soft, reuse_first, Dialect::kMlir, true},
      {"both reuse, swapped", reuse, reuse_first, Dialect::kMlir, true},
      {"a real change inside the reused region", reuse, wrong, Dialect::kMlir, false},
  };
  for (const Case& c : cases) check(c);
}

// A whole loop whose values got other names, some of them names that
// values of closed regions had in BASE (legal: those are out of scope).
TEST(NamesTest, ALoopWhoseValuesGotOtherNamesIncludingOutOfScopeOnes) {
  std::string soft = example_text("softmax_kernel", "ttgir");
  // The values the loop body defines after both reductions closed.
  const std::string after = "}) : (tensor<256xf32, #blocked>) -> f32 loc(#loc48)";
  size_t b = soft.find(after), e = soft.find("} {tt.num_stages", b);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  std::string body = soft.substr(b, e - b);
  std::vector<std::string> defs;
  std::regex def_re(R"(\n\s*(%[A-Za-z_][A-Za-z0-9_]*) = )");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), def_re);
       it != std::sregex_iterator(); ++it)
    defs.push_back((*it)[1].str());
  ASSERT_GT(defs.size(), 10u);
  // The reductions' block arguments and results: out of scope here.
  const std::vector<std::string> reused = {"%row_minus_max_38", "%row_minus_max_39",
                                           "%row_minus_max_40", "%denominator_38",
                                           "%denominator_39", "%denominator_40"};
  std::map<std::string, std::string> to;
  for (size_t i = 0; i < defs.size(); ++i)
    to[defs[i]] = i < reused.size() ? reused[i] : "%in_loop_" + std::to_string(i);
  std::string renamed_body;
  std::regex name_re(R"(%[A-Za-z_][A-Za-z0-9_]*)");
  size_t last = 0;
  for (auto it = std::sregex_iterator(body.begin(), body.end(), name_re);
       it != std::sregex_iterator(); ++it) {
    renamed_body.append(body, last, it->position() - last);
    auto t = to.find(it->str());
    renamed_body += t == to.end() ? it->str() : t->second;
    last = it->position() + it->length();
  }
  renamed_body.append(body, last, std::string::npos);
  std::string renamed = soft.substr(0, b) + renamed_body + soft.substr(e);
  // The same renaming, and one operand that now names the other value.
  std::string wrong = std::regex_replace(renamed, std::regex("arith.divf %numerator, "),
                                         "arith.divf %row_minus_max_28, ");
  Case cases[] = {
      {"loop values renamed, some to out-of-scope names", soft, renamed, Dialect::kMlir, true},
      {"and one operand changed", renamed, wrong, Dialect::kMlir, false},
  };
  for (const Case& c : cases) check(c);
}

// LLVM loop passes name blocks `.lr.ph`, `._crit_edge`, `.._crit_edge_crit_edge`;
// labels may also be quoted or hold '-'. All are labels: renamed, never ops.
TEST(NamesTest, LlvmLabelsWithDotsQuotesAndDashes) {
  std::string soft = example_text("softmax_kernel", "llir");
  ASSERT_NE(soft.find("\n.lr.ph"), std::string::npos);
  auto rename = [](const std::string& t, const std::string& from, const std::string& to) {
    std::string out = regex_replace_all(t, "\\n" + from + ":", "\n" + to + ":");
    return regex_replace_all(out, "%" + from + "\\b", "%" + to);
  };
  std::string dotted = rename(rename(soft, "\\.lr\\.ph", "loop.preheader"), "\\._crit_edge",
                              "\"exit-block.1\"");
  std::string dashed = rename(soft, "\\.lr\\.ph", "for.body-lr.ph");
  Case cases[] = {
      {"dotted labels renamed", soft, dotted, Dialect::kLlvm, true},
      {"a label with a dash", soft, dashed, Dialect::kLlvm, true},
  };
  for (const Case& c : cases) check(c);
  for (const std::string& t : {soft, dotted, dashed}) {
    Module m = testing::norm_ok(t, Dialect::kLlvm);
    for (const auto& [op, n] : op_counts(m)) {
      EXPECT_EQ(op.find(':'), std::string::npos) << op;
      EXPECT_EQ(op.find("lr"), std::string::npos) << op;
      EXPECT_NE(op.front(), '.') << op;
      EXPECT_NE(op.front(), '"') << op;
    }
    const Line* l = testing::find_line(m, "preds");
    EXPECT_EQ(l, nullptr);  // the `; preds =` comments are gone
  }
}

}  // namespace
}  // namespace ksnap::norm
