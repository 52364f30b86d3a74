// Perturbations and mutations generated from real IR nobody here wrote:
// Triton's and Intel's lit tests (tests/fixtures/lit), the shared Triton
// corpus (else its subset bundled in examples/corpus), the project's GPU
// capture (and tests/fixtures/realworld when it is there). The generators are
// tests/diff/perturb.h (plain text scanning, no normalizer code). For every
// file:
//   - each cosmetic perturbation (and all of them at once) is unchanged;
//   - a real mutation alone and under each cosmetic perturbation shows
//     exactly the mutated lines, and no -/+ pair that reads identical;
//   - one line deleted or written twice in a run of same-shape ops shows at
//     most 2 lines.
// Each test prints its figures per IR kind (docs/benchmarks.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "diff/perturb.h"
#include "diff/stage_dump.h"
#include "ksnap/diff/structural.h"
#include "ksnap/normalize/normalize.h"
#include "ksnap/support/file.h"
#include "normalize/lit_util.h"
#include "support/corpus_dir.h"

namespace fs = std::filesystem;

namespace ksnap::diff {
namespace {

namespace pt = testing::perturb;
using pt::Kind;

struct Source {
  std::string name;
  std::string text;
  Kind kind;
};

ir::Dialect dialect_of(Kind k) {
  switch (k) {
    case Kind::kMlir: return ir::Dialect::kMlir;
    case Kind::kLlvm: return ir::Dialect::kLlvm;
    case Kind::kPtx: return ir::Dialect::kPtx;
    case Kind::kAmdgcn: return ir::Dialect::kAmdgcn;
  }
  return ir::Dialect::kMlir;
}

bool kind_of(const fs::path& p, Kind* k) {
  std::string ext = p.extension().string();
  if (ext == ".ttir" || ext == ".ttgir" || ext == ".mlir") *k = Kind::kMlir;
  else if (ext == ".llir" || ext == ".ll") *k = Kind::kLlvm;
  else if (ext == ".ptx") *k = Kind::kPtx;
  else if (ext == ".amdgcn") *k = Kind::kAmdgcn;
  else return false;
  return true;
}

/// Every IR file under `dir` (distinct contents only), in path order.
std::vector<Source> files_under(const std::string& dir) {
  std::vector<fs::path> paths;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    Kind k;
    if (it->is_regular_file() && kind_of(it->path(), &k)) paths.push_back(it->path());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<Source> out;
  std::set<std::string> seen;
  for (const fs::path& p : paths) {
    auto buf = read_text_file(p.string());
    if (!buf) continue;
    std::string text(buf->view());
    if (!seen.insert(text).second) continue;
    Kind k;
    kind_of(p, &k);
    out.push_back({p.string().substr(dir.size() + 1), std::move(text), k});
  }
  return out;
}

/// Figures per IR kind.
struct Tally {
  size_t files = 0;
  size_t cosmetic = 0, cosmetic_ok = 0;
  size_t mutations = 0, mutations_ok = 0;
  size_t runs = 0, runs_ok = 0;
  uint32_t runs_max_lines = 0;
  std::map<uint32_t, size_t> run_lines;  // changed lines -> cases
};

class PerturbRun {
 public:
  void run(const std::vector<Source>& sources) {
    for (const Source& s : sources) one(s);
  }

  /// Prints the figures and fails on the first failures.
  void report(const std::string& corpus) const {
    std::cout << "perturbation figures for " << corpus << "\n";
    std::cout << "  kind    files  cosmetic ok/total  mutation ok/total  run<=2 ok/total  run max lines\n";
    for (const auto& [kind, t] : tally_) {
      std::cout << "  " << kind << std::string(8 - kind.size(), ' ') << t.files << "  " << t.cosmetic_ok
                << "/" << t.cosmetic << "  " << t.mutations_ok << "/" << t.mutations << "  "
                << t.runs_ok << "/" << t.runs << "  " << t.runs_max_lines << "\n";
    }
    // KSNAP_PERTURB_SHOW=N shows N failures (default 25).
    const char* show = std::getenv("KSNAP_PERTURB_SHOW");
    size_t limit = show ? std::strtoul(show, nullptr, 10) : 25;
    size_t shown = 0;
    for (const std::string& f : failures_) {
      if (++shown > limit) break;
      ADD_FAILURE() << f;
    }
    if (failures_.size() > limit) ADD_FAILURE() << failures_.size() - limit << " more failures";
  }

  const std::map<std::string, Tally>& tally() const { return tally_; }

 private:
  static std::optional<norm::Module> normalized(const std::string& name, const std::string& text, Kind k,
                                                std::string* error) {
    auto m = norm::normalize(TextBuffer(name, text), dialect_of(k));
    if (!m) {
      *error = m.status().to_string();
      return std::nullopt;
    }
    return std::move(*m);
  }

  static std::string describe(const StageDiff& sd) {
    std::string out;
    for (const Hunk& h : sd.hunks)
      for (const DiffLine& l : h.lines) {
        if (l.kind == LineKind::kContext) continue;
        out += (l.kind == LineKind::kAdded ? "\n    + " : "\n    - ") + l.text + "  [" +
               std::to_string(l.kind == LineKind::kAdded ? l.head_line : l.base_line) + "]";
      }
    return out;
  }

  /// A -/+ pair that reads identical (noise that leaked), or "".
  static std::string identical_pair(const StageDiff& sd) {
    std::multiset<std::string> removed;
    for (const Hunk& h : sd.hunks)
      for (const DiffLine& l : h.lines)
        if (l.kind == LineKind::kRemoved) removed.insert(l.text);
    for (const Hunk& h : sd.hunks)
      for (const DiffLine& l : h.lines)
        if (l.kind == LineKind::kAdded && removed.count(l.text)) return l.text;
    return "";
  }

  void one(const Source& s) {
    Tally& t = tally_[pt::kind_name(s.kind)];
    ++t.files;
    std::string err;
    auto base = normalized(s.name, s.text, s.kind, &err);
    if (!base) {
      failures_.push_back(s.name + ": does not normalize: " + err);
      return;
    }
    std::vector<pt::Noise> noises = pt::noises(s.kind);
    // Cosmetic: unchanged.
    for (const pt::Noise& n : noises) {
      std::string p = n.apply(s.text);
      if (p == s.text) continue;  // nothing of that kind in this file
      ++t.cosmetic;
      auto m = normalized(s.name, p, s.kind, &err);
      if (!m) {
        failures_.push_back(s.name + " [" + n.name + "]: does not normalize: " + err);
        continue;
      }
      if (m->hash == base->hash) {
        ++t.cosmetic_ok;
        continue;
      }
      StageDiff sd;
      structural_diff(*base, *m, StructuralOptions{0}, &sd);
      failures_.push_back(s.name + " [" + n.name + "]: cosmetic perturbation reads as a change" +
                          describe(sd));
    }
    // Real mutations, alone and under each kind of noise.
    struct Real {
      const char* name;
      std::optional<pt::Mutation> m;
    } reals[] = {{"constant", pt::change_constant(s.text, s.kind)},
                 {"insert", pt::insert_op(s.text, s.kind)}};
    for (const Real& r : reals) {
      if (!r.m) continue;
      check_mutation(s, *base, r.name, *r.m, nullptr, t);
      for (const pt::Noise& n : noises) check_mutation(s, *base, r.name, *r.m, &n, t);
    }
    // Repetitive code.
    for (bool dup : {false, true}) {
      auto m = pt::run_mutation(s.text, s.kind, dup);
      if (!m) continue;
      check_run(s, *base, dup ? "run duplicate" : "run delete", *m, nullptr, t);
      check_run(s, *base, dup ? "run duplicate" : "run delete", *m, &noises.back(), t);
    }
  }

  bool diff_of(const Source& s, const norm::Module& base, const std::string& head_text,
               const std::string& what, StageDiff* sd) {
    std::string err;
    auto head = normalized(s.name, head_text, s.kind, &err);
    if (!head) {
      failures_.push_back(s.name + " [" + what + "]: does not normalize: " + err);
      return false;
    }
    if (head->hash == base.hash) {
      failures_.push_back(s.name + " [" + what + "]: the change reads as no change");
      return false;
    }
    std::vector<int32_t> map, full_map;
    structural_diff(base, *head, StructuralOptions{1}, sd, &map);
    // The equal-unit shortcut changes nothing: the full alignment of every
    // unit gives the same output, byte for byte, and the same symbol map.
    StructuralOptions full_opts{1};
    full_opts.equal_units_by_position = false;
    StageDiff full;
    structural_diff(base, *head, full_opts, &full, &full_map);
    if (map != full_map)
      failures_.push_back(s.name + " [" + what + "]: the equal-unit shortcut changed the symbol map");
    else if (testing::dump_structural(full) != testing::dump_structural(*sd))
      failures_.push_back(s.name + " [" + what + "]: the equal-unit shortcut changed the diff:\n" +
                          testing::dump_structural(*sd) + "full alignment:\n" +
                          testing::dump_structural(full));
    return true;
  }

  /// HEAD: the mutation under the noise (if any); its name; its diff.
  struct Case {
    std::string head, what;
    StageDiff sd;
    bool ok = false;
  };
  Case diff_case(const Source& s, const norm::Module& base, const char* name,
                 const pt::Mutation& m, const pt::Noise* noise) {
    Case c;
    c.head = noise ? noise->apply(m.text) : m.text;
    c.what = std::string(name) + (noise ? std::string(" + ") + noise->name : "");
    c.ok = diff_of(s, base, c.head, c.what, &c.sd);
    return c;
  }

  void check_mutation(const Source& s, const norm::Module& base, const char* name,
                      const pt::Mutation& m, const pt::Noise* noise, Tally& t) {
    ++t.mutations;
    Case c = diff_case(s, base, name, m, noise);
    if (!c.ok) return;
    const std::string& head = c.head;
    const std::string& what = c.what;
    const StageDiff& sd = c.sd;
    std::vector<uint32_t> removed, added;
    for (const Hunk& h : sd.hunks)
      for (const DiffLine& l : h.lines) {
        if (l.kind == LineKind::kRemoved) removed.push_back(l.base_line);
        if (l.kind == LineKind::kAdded) added.push_back(l.head_line);
      }
    std::vector<uint32_t> want_removed, want_added;
    if (m.removed_line) want_removed.push_back(m.removed_line);
    if (m.added_line) want_added.push_back(m.added_line);
    std::string same = identical_pair(sd);
    if (same_lines(s.text, removed, want_removed, s.kind) && same_lines(head, added, want_added, s.kind) &&
        same.empty() && sd.fallback.empty()) {
      ++t.mutations_ok;
      return;
    }
    failures_.push_back(s.name + " [" + what + "]: want -" + std::to_string(m.removed_line) + " +" +
                        std::to_string(m.added_line) + ", got" + describe(sd) +
                        (same.empty() ? "" : "\n    identical pair: " + same) + sd.fallback);
    dump(s, head, what);
  }

  /// The reported lines are the wanted ones, or lines that differ from them
  /// only in names: which of two identical ops was inserted is anyone's guess.
  static bool same_lines(const std::string& text, const std::vector<uint32_t>& got,
                         const std::vector<uint32_t>& want, Kind k) {
    if (got == want) return true;
    if (got.size() != want.size()) return false;
    std::vector<std::string> lines = pt::lines_of(text);
    for (size_t i = 0; i < got.size(); ++i) {
      if (got[i] == 0 || want[i] == 0 || got[i] > lines.size() || want[i] > lines.size()) return false;
      if (pt::run_shape(lines[got[i] - 1], k, false) != pt::run_shape(lines[want[i] - 1], k, false))
        return false;
    }
    return true;
  }

  void check_run(const Source& s, const norm::Module& base, const char* name,
                 const pt::Mutation& m, const pt::Noise* noise, Tally& t) {
    ++t.runs;
    Case c = diff_case(s, base, name, m, noise);
    if (!c.ok) return;
    const std::string& head = c.head;
    const std::string& what = c.what;
    const StageDiff& sd = c.sd;
    uint32_t n = sd.lines_added + sd.lines_removed;
    ++t.run_lines[n];
    t.runs_max_lines = std::max(t.runs_max_lines, n);
    if (n >= 1 && n <= 2) {
      ++t.runs_ok;
      return;
    }
    failures_.push_back(s.name + " [" + what + "]: " + std::to_string(n) + " lines" + describe(sd));
    dump(s, head, what);
  }

  /// KSNAP_PERTURB_DUMP=DIR writes both sides of each failure there.
  void dump(const Source& s, const std::string& head, const std::string& what) {
    const char* dir = std::getenv("KSNAP_PERTURB_DUMP");
    if (!dir) return;
    std::string stem = std::string(dir) + "/" + std::to_string(failures_.size());
    (void)write_file_atomic(stem + ".base", s.text);
    (void)write_file_atomic(stem + ".head", head);
    (void)write_file_atomic(stem + ".what", s.name + " [" + what + "]\n");
  }

  std::map<std::string, Tally> tally_;
  std::vector<std::string> failures_;
};

TEST(PerturbDiffTest, LitTestsOfTritonAndIntelXpu) {
  std::vector<Source> sources;
  for (testing::LitModule& m : testing::lit_modules())
    sources.push_back({m.name(), std::move(m.text), Kind::kMlir});
  ASSERT_GT(sources.size(), 4000u);
  PerturbRun r;
  r.run(sources);
  r.report("tests/fixtures/lit");
}

TEST(PerturbDiffTest, SharedTritonCorpus) {
  std::vector<Source> sources = files_under(testing::corpus_dir());
  // At least every kernel-stage of base and of noise (which differ in each).
  ASSERT_GE(sources.size(), 2 * testing::corpus_truth()["pairs"]["base..noise"]["rows"].size());
  PerturbRun r;
  r.run(sources);
  r.report(testing::corpus_name());
}

TEST(PerturbDiffTest, GpuCaptureFixture) {
  std::vector<Source> sources = files_under(std::string(KSNAP_SOURCE_DIR) + "/tests/fixtures/gpu_capture");
  ASSERT_GT(sources.size(), 10u);
  PerturbRun r;
  r.run(sources);
  r.report("tests/fixtures/gpu_capture");
}

TEST(PerturbDiffTest, RealworldFixture) {
  std::string dir = std::string(KSNAP_SOURCE_DIR) + "/tests/fixtures/realworld";
  if (!fs::exists(dir)) GTEST_SKIP() << "tests/fixtures/realworld not there (yet)";
  std::vector<Source> sources = files_under(dir);
  PerturbRun r;
  r.run(sources);
  r.report("tests/fixtures/realworld");
  // Every IR kind of the corpus (NVIDIA and gfx942) gets real mutations and
  // run edits, not only cosmetic noise.
  for (const char* kind : {"mlir", "llvm", "ptx", "amdgcn"}) {
    auto it = r.tally().find(kind);
    ASSERT_NE(it, r.tally().end()) << kind;
    EXPECT_GT(it->second.mutations, 0u) << kind;
    EXPECT_GT(it->second.runs, 0u) << kind;
  }
}

// Any folder of IR files (the untrimmed real-world captures, for one): set
// KSNAP_PERTURB_DIR. Skipped otherwise; the figures go to docs/benchmarks.md.
TEST(PerturbDiffTest, FolderFromEnvironment) {
  const char* dir = std::getenv("KSNAP_PERTURB_DIR");
  if (!dir || !*dir) GTEST_SKIP() << "KSNAP_PERTURB_DIR not set";
  std::vector<Source> sources = files_under(dir);
  ASSERT_FALSE(sources.empty()) << dir;
  PerturbRun r;
  r.run(sources);
  r.report(dir);
}


// Two modules that have nothing to do with each other (the crash:
// module-level text changed and functions that do not pair): every pair of
// neighbouring lit modules, and every stage of two different kernels of the
// shared corpus. No crash, no fallback, and a change always shows lines.
TEST(PerturbDiffTest, UnrelatedModulesDiffWithoutCrash) {
  std::vector<Source> sources;
  for (testing::LitModule& m : testing::lit_modules())
    sources.push_back({m.name(), std::move(m.text), Kind::kMlir});
  std::string corpus = KSNAP_CORPUS_DIR;
  if (fs::exists(corpus + "/truth.json")) {
    for (Source& s : files_under(corpus + "/base")) sources.push_back(std::move(s));
  }
  size_t pairs = 0, changed = 0;
  std::optional<norm::Module> prev;
  std::optional<Kind> prev_kind;
  for (const Source& s : sources) {
    auto m = norm::normalize(TextBuffer(s.name, s.text), dialect_of(s.kind));
    ASSERT_TRUE(m) << s.name;
    if (prev && prev_kind == s.kind) {
      for (bool swap : {false, true}) {
        const norm::Module& a = swap ? *m : *prev;
        const norm::Module& b = swap ? *prev : *m;
        StageDiff sd;
        structural_diff(a, b, StructuralOptions{1}, &sd);
        ++pairs;
        EXPECT_TRUE(sd.fallback.empty()) << s.name << ": " << sd.fallback;
        if (a.hash != b.hash) {
          ++changed;
          EXPECT_GT(sd.lines_added + sd.lines_removed, 0u) << s.name << " (swapped: " << swap << ")";
        }
      }
    }
    prev = std::move(*m);
    prev_kind = s.kind;
  }
  EXPECT_GT(pairs, 8000u);
  std::cout << pairs << " pairs of unrelated modules diffed, " << changed << " with changes\n";
}

}  // namespace
}  // namespace ksnap::diff
