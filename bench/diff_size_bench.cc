// Diff size against the limit, on the shared corpus.
//
// For each pair of builds and each changed kernel-stage this prints, summed:
//   gnu      lines GNU diff marks (`diff a b`, lines starting '<' or '>')
//   posname  line diff after naming values by position (%v0, %v1, ... in
//            order of appearance: ksnap's canonical text)
//   shape    line diff over shapes: locations dropped, every %name, alias
//            number and register number masked — a lower bound for any
//            rename-insensitive diff
//   ksnap    lines_added + lines_removed of `ksnap diff`
// and the ratio ksnap / shape (the target: <= 1.25 on every pair).
// Line diffs here are exact LCS (dynamic programming), not heuristics.
//
// Then, repetitive code: in every file of the `base` build, each run of at
// least 4 consecutive ops of one shape (up to 5 runs a file) loses its
// middle line, or has it written twice; the table gives per IR stage the
// cases, the lines GNU diff marks (always 1) and the lines ksnap shows
// (total, largest, cases over 2; the target: none over 2).
//
// Usage: diff_size_bench [CORPUS_DIR]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ksnap/diff/engine.h"
#include "ksnap/diff/structural.h"
#include "ksnap/support/hash.h"

using namespace ksnap;

namespace {

/// Lines not in an exact LCS of a and b (= added + removed).
size_t lcs_distance(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  size_t n = a.size(), m = b.size();
  std::vector<uint32_t> prev(m + 1, 0), cur(m + 1, 0);
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j)
      cur[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], cur[j - 1]);
    std::swap(prev, cur);
  }
  return n + m - 2 * prev[m];
}

std::vector<uint64_t> line_hashes(std::string_view text) {
  std::vector<uint64_t> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    out.push_back(hash64(text.substr(start, nl - start)));
    start = nl + 1;
  }
  return out;
}

size_t gnu_diff_lines(const std::string& a, const std::string& b) {
  std::string cmd = "diff '" + a + "' '" + b + "' 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return 0;
  size_t n = 0;
  char line[1 << 16];
  bool at_start = true;
  while (fgets(line, sizeof line, p)) {
    if (at_start && (line[0] == '<' || line[0] == '>')) ++n;
    size_t len = strlen(line);
    at_start = len > 0 && line[len - 1] == '\n';
  }
  pclose(p);
  return n;
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    out.emplace_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

/// 1-based source lines in the middle of runs of >= 4 consecutive ops of one
/// shape, at most `limit` per file.
std::vector<uint32_t> run_middles(const norm::Module& m, size_t limit) {
  std::vector<uint32_t> out;
  for (const auto& u : m.units) {
    for (size_t i = 0; i < u.lines.size() && out.size() < limit;) {
      size_t j = i + 1;
      while (j < u.lines.size() && u.lines[j].shape == u.lines[i].shape &&
             u.lines[j].line_no == u.lines[j - 1].line_no + 1)
        ++j;
      if (j - i >= 4 && !u.lines[i].op.empty()) out.push_back(u.lines[i + (j - i) / 2].line_no);
      i = j;
    }
  }
  return out;
}

struct RunSums {
  size_t cases = 0, gnu = 0, ksnap = 0, max = 0, over2 = 0;
};

/// Deletes or duplicates each run middle of each file and diffs.
int repetitive(const std::string& corpus) {
  const char* stages[] = {"ttir", "ttgir", "llir", "ptx"};
  std::printf("\nrepetitive code (base build): one line of a run of same-shape ops\n");
  std::printf("%-6s %-10s %6s %6s %7s %8s %10s\n", "stage", "mutation", "cases", "gnu", "ksnap",
              "largest", "over 2");
  auto build = build::load_build(corpus + "/base");
  if (!build) {
    std::fprintf(stderr, "%s\n", build.status().to_string().c_str());
    return 2;
  }
  for (const char* stage : stages) {
    ir::Dialect d;
    ir::dialect_for_stage(stage, &d);
    for (bool dup : {false, true}) {
      RunSums s;
      for (const auto& v : build->variants) {
        const build::StageFile* f = v.stage(stage);
        if (!f) continue;
        auto text = build::read_stage(*f);
        if (!text) continue;
        auto base = norm::normalize(*text, d);
        if (!base) continue;
        std::vector<std::string> lines = split_lines(text->view());
        for (uint32_t at : run_middles(*base, 5)) {
          std::vector<std::string> edited = lines;
          if (dup) edited.insert(edited.begin() + at, lines[at - 1]);
          else edited.erase(edited.begin() + (at - 1));
          std::string head_text = join_lines(edited);
          auto head = norm::normalize(TextBuffer(f->path, head_text), d);
          if (!head) continue;
          diff::StageDiff sd;
          diff::structural_diff(*base, *head, {}, &sd);
          size_t n = sd.lines_added + sd.lines_removed;
          ++s.cases;
          s.ksnap += n;
          s.max = std::max(s.max, n);
          s.over2 += n > 2;
          if (n > 2 && std::getenv("KSNAP_SHOW_RUNS"))
            std::fprintf(stderr, "%s line %u (%s): %zu lines\n", f->path.c_str(), at,
                         dup ? "duplicated" : "deleted", n);
          s.gnu += lcs_distance(line_hashes(text->view()), line_hashes(head_text));
        }
      }
      std::printf("%-6s %-10s %6zu %6zu %7zu %8zu %10zu\n", stage, dup ? "duplicate" : "delete",
                  s.cases, s.gnu, s.ksnap, s.max, s.over2);
    }
  }
  return 0;
}

struct Sums {
  size_t gnu = 0, posname = 0, shape = 0, ksnap = 0;
  size_t stages = 0, gnu_flagged = 0, ksnap_changed = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::string corpus = argc > 1 ? argv[1] : KSNAP_CORPUS_DIR;
  const char* pairs[][2] = {{"base", "noise"},
                            {"base", "no_licm"},
                            {"base", "fusion_off"},
                            {"noise", "no_licm"},
                            {"noise", "fusion_off"}};
  std::printf("%-18s %6s %11s %13s %8s %8s %7s %7s %12s\n", "pair", "stages", "gnu-flagged",
              "ksnap-changed", "gnu", "posname", "shape", "ksnap", "ksnap/shape");
  bool ok = true;
  for (auto& pr : pairs) {
    auto r = diff::diff_paths(corpus + "/" + pr[0], corpus + "/" + pr[1]);
    if (!r) {
      std::fprintf(stderr, "%s\n", r.status().to_string().c_str());
      return 2;
    }
    Sums s;
    for (const auto& v : r->variants)
      for (const auto& st : v.stages) {
        if (st.base_path.empty() || st.head_path.empty()) continue;
        ++s.stages;
        s.ksnap_changed += st.status == diff::ChangeStatus::kChanged;
        s.ksnap += st.lines_added + st.lines_removed;
        size_t g = gnu_diff_lines(st.base_path, st.head_path);
        s.gnu += g;
        s.gnu_flagged += g > 0;
        ir::Dialect d;
        ir::dialect_for_stage(st.stage, &d);
        auto bb = read_text_file(st.base_path);
        auto hb = read_text_file(st.head_path);
        auto mb = norm::normalize(*bb, d);
        auto mh = norm::normalize(*hb, d);
        std::vector<uint64_t> sa, sb;
        for (const auto& u : mb->units)
          for (const auto& l : u.lines) sa.push_back(hash64(l.shape));
        for (const auto& u : mh->units)
          for (const auto& l : u.lines) sb.push_back(hash64(l.shape));
        s.shape += lcs_distance(sa, sb);
        s.posname += lcs_distance(line_hashes(norm::canonical_text(*mb)),
                                  line_hashes(norm::canonical_text(*mh)));
      }
    double ratio = s.shape ? static_cast<double>(s.ksnap) / s.shape : (s.ksnap ? 99.0 : 1.0);
    if (ratio > 1.25) ok = false;
    std::string name = std::string(pr[0]) + ".." + pr[1];
    std::printf("%-18s %6zu %11zu %13zu %8zu %8zu %7zu %7zu %12.3f\n", name.c_str(), s.stages,
                s.gnu_flagged, s.ksnap_changed, s.gnu, s.posname, s.shape, s.ksnap, ratio);
  }
  std::printf("%s\n", ok ? "target met: ksnap <= 1.25 x shape bound on every pair"
                         : "TARGET MISSED: ksnap > 1.25 x shape bound on some pair");
  return repetitive(corpus);
}
