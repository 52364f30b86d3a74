// Perturbations generated from the real corpus files (the shared corpus, else
// the bundled example: support/corpus_dir.h). Cosmetic ones (rename
// every value, renumber and reorder every alias / metadata node, shuffle the
// #loc table, move the file) must keep the hash; real ones (insert an op,
// change a constant, change a layout) must change it, and only the touched
// lines may change shape, compared position by position.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <sstream>

#include "normalize/corpus_util.h"
#include "normalize/test_util.h"

namespace ksnap::norm {
namespace {

using ir::Dialect;
using ir::Token;
using ir::TokenKind;

/// Rebuilds `text` with some tokens replaced: `fn` returns the new text of a
/// token or nullopt to keep it.
std::string rewrite(const std::string& text, Dialect d,
                    const std::function<std::optional<std::string>(const Token&)>& fn) {
  ir::Lexer lx(text.c_str(), text.size(), d);
  std::string out;
  size_t pos = 0;
  while (true) {
    Token t = lx.next();
    if (t.kind == TokenKind::kEof || t.kind == TokenKind::kError) break;
    auto r = fn(t);
    if (!r) continue;
    size_t at = static_cast<size_t>(t.text.data() - text.c_str());
    out.append(text, pos, at - pos);
    out += *r;
    pos = at + t.text.size();
  }
  out.append(text, pos, std::string::npos);
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string l;
  while (std::getline(ss, l)) out.push_back(l);
  return out;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

/// PTX virtual register split into class and number (`%rd12` -> "rd", 12).
bool ptx_vreg(std::string_view s, std::string* cls, int* num) {
  size_t i = 1;
  while (i < s.size() && s[i] >= 'a' && s[i] <= 'z') ++i;
  if (i == 1 || i == s.size()) return false;
  for (size_t j = i; j < s.size(); ++j) {
    if (s[j] < '0' || s[j] > '9') return false;
  }
  *cls = std::string(s.substr(1, i - 1));
  if (*cls == "clock" || *cls == "pm" || *cls == "envreg") return false;
  *num = std::stoi(std::string(s.substr(i)));
  return true;
}

// ---------------------------------------------------------------- cosmetic --

std::string rename_values(const std::string& text, Dialect d) {
  std::map<std::string, std::string> names;
  auto fresh = [&](const std::string& key) -> const std::string& {
    auto it = names.find(key);
    if (it != names.end()) return it->second;
    return names[key] = "renamed" + std::to_string(names.size() * 7 + 3) + "_x";
  };
  if (d == Dialect::kPtx) {  // a permutation of the numbers of each class
    std::map<std::string, std::vector<int>> seen;
    rewrite(text, d, [&](const Token& t) -> std::optional<std::string> {
      std::string cls;
      int n;
      if (t.kind == TokenKind::kValueId && ptx_vreg(t.text, &cls, &n)) seen[cls].push_back(n);
      return std::nullopt;
    });
    std::map<std::string, std::map<int, int>> perm;
    for (auto& [cls, v] : seen) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
      for (size_t i = 0; i < v.size(); ++i) perm[cls][v[i]] = v[v.size() - 1 - i];
    }
    return rewrite(text, d, [&](const Token& t) -> std::optional<std::string> {
      std::string cls;
      int n;
      if (t.kind != TokenKind::kValueId || !ptx_vreg(t.text, &cls, &n)) return std::nullopt;
      return "%" + cls + std::to_string(perm[cls][n]);
    });
  }
  return rewrite(text, d, [&](const Token& t) -> std::optional<std::string> {
    if (t.kind == TokenKind::kValueId) {
      std::string name(t.text.substr(1));
      std::string suffix;
      size_t hash = name.find('#');
      if (d == Dialect::kMlir && hash != std::string::npos) {
        suffix = name.substr(hash);
        name = name.substr(0, hash);
      }
      return "%" + fresh(name) + suffix;
    }
    if (d == Dialect::kLlvm && t.kind == TokenKind::kLabelDef) {
      return fresh(std::string(t.text.substr(0, t.text.size() - 1))) + ":";
    }
    if (d == Dialect::kMlir && t.kind == TokenKind::kBlockId) return "^" + fresh(std::string(t.text));
    return std::nullopt;
  });
}

/// MLIR: every alias gets another number (in reverse), the alias definitions
/// at the top are reversed. LLVM: the same for `!N` and `#N`, and the
/// metadata / attributes lines are reversed.
std::string renumber_aliases(const std::string& text, Dialect d) {
  auto is_alias = [&](const Token& t) {
    if (d == Dialect::kMlir) {
      return (t.kind == TokenKind::kHashId || t.kind == TokenKind::kBangId) &&
             t.text.find('.') == std::string_view::npos &&
             t.text.data()[t.text.size()] != '<';
    }
    return (t.kind == TokenKind::kHashId || t.kind == TokenKind::kBangId) && t.text.size() > 1 &&
           std::all_of(t.text.begin() + 1, t.text.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  std::map<std::string, std::vector<std::string>> by_prefix;  // prefix -> names in order
  rewrite(text, d, [&](const Token& t) -> std::optional<std::string> {
    if (!is_alias(t)) return std::nullopt;
    std::string name(t.text);
    size_t n = name.size();
    while (n > 1 && isdigit(static_cast<unsigned char>(name[n - 1]))) --n;
    auto& v = by_prefix[name.substr(0, n)];
    if (std::find(v.begin(), v.end(), name) == v.end()) v.push_back(name);
    return std::nullopt;
  });
  std::map<std::string, std::string> to;
  for (auto& [prefix, names] : by_prefix) {
    for (size_t i = 0; i < names.size(); ++i) {
      size_t k = names.size() - 1 - i;
      to[names[i]] = prefix + (k == 0 && d == Dialect::kMlir ? "" : std::to_string(k + 100));
    }
  }
  std::string out = rewrite(text, d, [&](const Token& t) -> std::optional<std::string> {
    if (!is_alias(t)) return std::nullopt;
    return to[std::string(t.text)];
  });
  // Reverse each maximal run of definition lines.
  auto lines = split_lines(out);
  auto is_def = [&](const std::string& l) {
    if (d == Dialect::kMlir) return (starts_with(l, "#") || starts_with(l, "!")) && l.find(" = ") != std::string::npos;
    return (starts_with(l, "!") && isdigit(static_cast<unsigned char>(l[1]))) || starts_with(l, "attributes #");
  };
  for (size_t i = 0; i < lines.size();) {
    size_t j = i;
    while (j < lines.size() && is_def(lines[j])) ++j;
    if (j > i + 1) std::reverse(lines.begin() + i, lines.begin() + j);
    i = std::max(j, i + 1);
  }
  return join_lines(lines);
}

std::string shuffle_loc_table(const std::string& text) {
  auto lines = split_lines(text);
  std::vector<size_t> at;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (starts_with(lines[i], "#loc")) at.push_back(i);
  }
  std::vector<std::string> locs;
  for (size_t i : at) locs.push_back(lines[i]);
  std::reverse(locs.begin(), locs.end());
  std::rotate(locs.begin(), locs.begin() + locs.size() / 3, locs.end());
  for (size_t k = 0; k < at.size(); ++k) lines[at[k]] = locs[k];
  return join_lines(lines);
}

/// Another checkout path and every line number 5 lower in the file.
std::string move_file(const std::string& text, Dialect d) {
  const std::string from = "/tmp/runner-a/work/bench", to = "/home/ci/other/checkout/src";
  std::string s = text;
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) {
    s.replace(p, from.size(), to);
  }
  auto lines = split_lines(s);
  bool in_debug = false;
  for (std::string& l : lines) {
    if (d == Dialect::kPtx) {
      if (l.find(".section\t.debug") != std::string::npos) in_debug = true;
      if (in_debug && starts_with(l, ".b8 ")) l = ".b8 " + std::to_string((std::stoi(l.substr(4)) + 1) % 256);
      if (in_debug && starts_with(l, ".b32 ") && isdigit(static_cast<unsigned char>(l[5]))) {
        l = ".b32 " + std::to_string(std::stoi(l.substr(5)) + 3);
      }
    }
  }
  s = join_lines(lines);
  // Line numbers: MLIR `"file":L:C`, LLVM `line: L`, PTX `.loc F L C`.
  std::vector<Token> toks;
  ir::Lexer lx(s.c_str(), s.size(), d);
  for (Token t = lx.next(); t.kind != TokenKind::kEof && t.kind != TokenKind::kError; t = lx.next()) {
    toks.push_back(t);
  }
  std::vector<const Token*> bump;
  for (size_t i = 0; i + 2 < toks.size(); ++i) {
    if (d == Dialect::kMlir && toks[i].kind == TokenKind::kString && toks[i + 1].text == ":" &&
        toks[i + 2].kind == TokenKind::kInteger) {
      bump.push_back(&toks[i + 2]);
    }
    if (d == Dialect::kLlvm && (toks[i].text == "line" || toks[i].text == "scopeLine") &&
        toks[i + 1].text == ":") {
      bump.push_back(&toks[i + 2]);
    }
    if (d == Dialect::kPtx && toks[i].text == ".loc" && i + 3 < toks.size()) bump.push_back(&toks[i + 2]);
  }
  std::string out;
  size_t pos = 0;
  for (const Token* t : bump) {
    size_t at = static_cast<size_t>(t->text.data() - s.c_str());
    out.append(s, pos, at - pos);
    out += std::to_string(std::stoi(std::string(t->text)) + 5);
    pos = at + t->text.size();
  }
  out.append(s, pos, std::string::npos);
  return out;
}

// -------------------------------------------------------------------- real --

/// Index of the first line inside a function that looks like `pattern`.
size_t find_op_line(const std::vector<std::string>& lines, Dialect d, bool with_result,
                    bool with_int) {
  bool in_func = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.find("tt.func") != std::string::npos || starts_with(l, "define") ||
        l.find(".entry") != std::string::npos) {
      in_func = true;
      continue;
    }
    if (!in_func) continue;
    std::string t = l.substr(l.find_first_not_of(" \t") == std::string::npos ? 0 : l.find_first_not_of(" \t"));
    bool result = d == Dialect::kPtx ? (!t.empty() && isalpha(static_cast<unsigned char>(t[0])) && t.find('%') != std::string::npos)
                                     : (starts_with(t, "%") && t.find(" = ") != std::string::npos);
    if (with_result && !result) continue;
    if (with_int) {
      bool has_int = false;
      rewrite(t, d, [&](const Token& k) -> std::optional<std::string> {
        if (k.kind == TokenKind::kInteger && k.text[0] != '0') has_int = true;
        return std::nullopt;
      });
      if (!has_int || t.find("loc(") == 0) continue;
      if (d == Dialect::kLlvm && t.find("getelementptr") != std::string::npos) continue;
    }
    return i;
  }
  return lines.size();
}

std::string insert_op(const std::string& text, Dialect d, size_t* line) {
  auto lines = split_lines(text);
  size_t i = find_op_line(lines, d, true, false);
  *line = i;
  if (i == lines.size()) return text;
  std::string copy = lines[i];
  if (d == Dialect::kPtx) {
    size_t p = copy.find('%');
    size_t q = copy.find_first_of(",;", p);
    copy.replace(p, q - p, "%r9999");
  } else {
    size_t p = copy.find('%');
    size_t q = copy.find(' ', p);
    copy.replace(p, q - p, "%inserted_op");
  }
  lines.insert(lines.begin() + static_cast<long>(i) + 1, copy);
  return join_lines(lines);
}

std::string change_constant(const std::string& text, Dialect d, size_t* line) {
  auto lines = split_lines(text);
  size_t i = find_op_line(lines, d, true, true);
  *line = i;
  if (i == lines.size()) return text;
  bool done = false;
  lines[i] = rewrite(lines[i], d, [&](const Token& k) -> std::optional<std::string> {
    if (done || k.kind != TokenKind::kInteger || k.text[0] == '0') return std::nullopt;
    done = true;
    return std::to_string(std::stoll(std::string(k.text)) + 1);
  });
  return join_lines(lines);
}

std::string change_layout(const std::string& text, size_t* line) {
  auto lines = split_lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    size_t p = lines[i].find("sizePerThread = [");
    if (starts_with(lines[i], "#") && p != std::string::npos) {
      p += 17;
      size_t q = lines[i].find_first_of(",]", p);
      lines[i].replace(p, q - p, std::to_string(std::stoi(lines[i].substr(p, q - p)) * 2));
      *line = i;
      return join_lines(lines);
    }
  }
  *line = lines.size();
  return text;
}

// ------------------------------------------------------------------- tests --

/// Shapes in canonical order: per unit the ordered lines, then the
/// order-free definitions sorted (their file order means nothing).
std::vector<std::string> ordered_shapes(const Module& m) {
  std::vector<std::string> out;
  for (const Unit& u : m.units) {
    std::vector<std::string> free;
    for (const Line& l : u.lines) (l.order_free ? free : out).emplace_back(l.shape);
    std::sort(free.begin(), free.end());
    out.insert(out.end(), free.begin(), free.end());
  }
  return out;
}

class PerturbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& [variant, prefix] : testing::load_build("base")) {
      for (const std::string& stage : testing::corpus_stages()) {
        files_.push_back({prefix + "." + stage, stage});
      }
    }
    // Every kernel-stage truth.json knows of.
    ASSERT_EQ(files_.size(), testing::load_truth("base..noise").size());
  }

  struct File {
    std::string path, stage;
  };

  static Module module_of(const std::string& text, Dialect d, const std::string& what) {
    TextBuffer buf(what, text);
    auto m = normalize(buf, d);
    EXPECT_TRUE(m) << what << ": " << m.status().to_string();
    return m ? std::move(*m) : Module{};
  }

  /// Cosmetic: same hash for every corpus file of the given stages.
  void expect_same(const std::string& what, const std::vector<std::string>& stages,
                   const std::function<std::string(const std::string&, Dialect)>& perturb) {
    size_t checked = 0;
    for (const File& f : files_) {
      if (std::find(stages.begin(), stages.end(), f.stage) == stages.end()) continue;
      Dialect d = testing::dialect_of(f.stage);
      std::string text(testing::read_or_die(f.path).view());
      std::string p = perturb(text, d);
      ASSERT_NE(p, text) << what << " did nothing to " << f.path;
      Module a = module_of(text, d, f.path), b = module_of(p, d, f.path + " (" + what + ")");
      EXPECT_EQ(a.hash, b.hash) << what << ": " << f.path;
      EXPECT_EQ(ordered_shapes(a), ordered_shapes(b)) << what << ": " << f.path;
      ++checked;
    }
    EXPECT_GT(checked, 0u);
  }

  std::vector<File> files_;
};

TEST_F(PerturbTest, RenamingEveryValueKeepsTheHash) {
  expect_same("rename values", {"ttir", "ttgir", "llir", "ptx"}, rename_values);
}

TEST_F(PerturbTest, RenumberingAndReorderingAliasesAndMetadataKeepsTheHash) {
  expect_same("renumber aliases", {"ttir", "ttgir", "llir"}, renumber_aliases);
}

TEST_F(PerturbTest, ShufflingTheLocTableKeepsTheHash) {
  expect_same("shuffle #loc", {"ttir", "ttgir"},
              [](const std::string& t, Dialect) { return shuffle_loc_table(t); });
}

TEST_F(PerturbTest, MovingTheFileKeepsTheHash) {
  expect_same("move file", {"ttir", "ttgir", "llir", "ptx"}, move_file);
}

TEST_F(PerturbTest, RealChangesChangeTheHashAndOnlyTheTouchedShapes) {
  size_t checked = 0;
  for (const File& f : files_) {
    Dialect d = testing::dialect_of(f.stage);
    std::string text(testing::read_or_die(f.path).view());
    Module a = module_of(text, d, f.path);
    std::vector<std::string> sa = testing::shapes(a);
    struct Real {
      std::string what, text;
      size_t line;
      bool inserted;
    };
    std::vector<Real> reals;
    size_t line = 0;
    std::string ins = insert_op(text, d, &line);
    reals.push_back({"insert op", ins, line, true});
    std::string cst = change_constant(text, d, &line);
    reals.push_back({"change constant", cst, line, false});
    if (f.stage == "ttgir") {
      std::string lay = change_layout(text, &line);
      reals.push_back({"change layout", lay, line, false});
    }
    for (const Real& r : reals) {
      ASSERT_NE(r.text, text) << r.what << " found nothing to change in " << f.path;
      Module b = module_of(r.text, d, f.path + " (" + r.what + ")");
      EXPECT_NE(a.hash, b.hash) << r.what << ": " << f.path;
      std::vector<std::string> sb = testing::shapes(b);
      if (r.inserted) {
        ASSERT_EQ(sb.size(), sa.size() + 1) << r.what << ": " << f.path;
        size_t k = 0;
        while (k < sa.size() && sa[k] == sb[k]) ++k;
        for (size_t i = k; i < sa.size(); ++i) {
          EXPECT_EQ(sa[i], sb[i + 1]) << r.what << " " << f.path << " line " << i;
        }
      } else {
        ASSERT_EQ(sb.size(), sa.size()) << r.what << ": " << f.path;
        size_t differ = 0;
        for (size_t i = 0; i < sa.size(); ++i) differ += sa[i] != sb[i];
        EXPECT_EQ(differ, 1u) << r.what << ": " << f.path;
      }
      ++checked;
    }
  }
  // Two real changes a file, a third (the layout) for each TTGIR file.
  auto ttgir =
      std::count_if(files_.begin(), files_.end(), [](const File& f) { return f.stage == "ttgir"; });
  EXPECT_EQ(checked, files_.size() * 2 + static_cast<size_t>(ttgir));
}

}  // namespace
}  // namespace ksnap::norm
