// HTML report at scale: diffs the real corpus (base vs no_licm), replicates
// the result to N variants (each copy a distinct set of kernels, so groups,
// hunks and kernel charts multiply too), and times render_html against
// render_json on it. With --out it also writes the N-variant page, which the
// browser test (tests/browser/run.sh) opens to measure the load time.
//
//   ./build/bench/html_report_bench                       # 10000 variants, 5 runs
//   ./build/bench/html_report_bench --variants 100000 --runs 1
//   ./build/bench/html_report_bench --out /tmp/report-10k.html --json /tmp/report-10k.json
//   ./build/bench/html_report_bench --runs 1 --skip-json 1 --out /tmp/report-10k.html
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ksnap/diff/engine.h"
#include "ksnap/render/render.h"
#include "ksnap/support/file.h"

namespace {

using namespace ksnap;

/// `n` variants: copies of r's variants; copy c > 0 renames kernel K to "K__c<c>".
diff::DiffResult replicate(const diff::DiffResult& r, size_t n) {
  diff::DiffResult out;
  out.base_name = r.base_name;
  out.head_name = r.head_name;
  out.base_root = r.base_root;
  out.head_root = r.head_root;
  out.warnings = r.warnings;
  out.summary = r.summary;
  for (auto& s : out.summary) s.unchanged = s.changed = s.added = s.removed = 0;
  for (size_t c = 0; out.variants.size() < n; ++c) {
    std::string suffix = c ? "__c" + std::to_string(c) : "";
    size_t voff = out.variants.size();
    size_t take = std::min(r.variants.size(), n - voff);
    std::vector<int32_t> group_map(r.groups.size(), -1);  // r's group -> out's (this copy)
    for (size_t gi = 0; gi < r.groups.size(); ++gi) {
      diff::ChangeGroup g = r.groups[gi];
      g.kernel += suffix;
      g.variants.clear();
      for (size_t vi : r.groups[gi].variants)
        if (vi < take) g.variants.push_back(vi + voff);
      if (g.variants.empty()) continue;
      group_map[gi] = static_cast<int32_t>(out.groups.size());
      out.groups.push_back(std::move(g));
    }
    for (size_t i = 0; i < take; ++i) {
      diff::VariantDiff v = r.variants[i];
      v.key.kernel += suffix;
      for (auto& s : v.stages) {
        if (s.group >= 0) s.group = group_map[s.group];
        for (auto& sum : out.summary)
          if (sum.stage == s.stage) {
            uint32_t* slot[] = {&sum.unchanged, &sum.changed, &sum.added, &sum.removed};
            ++*slot[static_cast<int>(s.status)];
          }
      }
      out.variants.push_back(std::move(v));
    }
  }
  return out;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

bool write_if_asked(const std::string& path, const std::string& text) {
  if (path.empty()) return true;
  Status s = write_file_atomic(path, text);
  if (!s.is_ok()) {
    std::fprintf(stderr, "%s\n", s.to_string().c_str());
    return false;
  }
  std::printf("wrote %s\n", path.c_str());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string corpus = KSNAP_CORPUS_DIR, out_html, out_json;
  size_t variants = 10000;
  int runs = 5;
  bool skip_json = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--corpus")
      corpus = argv[i + 1];
    else if (a == "--variants")
      variants = std::strtoul(argv[i + 1], nullptr, 10);
    else if (a == "--runs")
      runs = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--out")
      out_html = argv[i + 1];
    else if (a == "--json")
      out_json = argv[i + 1];
    else if (a == "--skip-json")
      skip_json = std::string(argv[i + 1]) == "1";
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  auto t0 = std::chrono::steady_clock::now();
  auto r = diff::diff_paths(corpus + "/base", corpus + "/no_licm");
  if (!r) {
    std::printf("skipped: cannot diff the corpus at %s: %s\n", corpus.c_str(),
                r.status().to_string().c_str());
    return 0;
  }
  std::printf("corpus diff base..no_licm: %zu variants, %zu groups, %.1f ms\n", r->variants.size(),
              r->groups.size(), ms_since(t0));
  diff::DiffResult big = replicate(*r, variants);
  size_t hunks = 0, lines = 0;
  for (const auto& g : big.groups)
    if (const diff::StageDiff* s = big.variants[g.variants[0]].stage(g.stage))
      for (const auto& h : s->hunks) {
        ++hunks;
        lines += h.lines.size();
      }
  std::printf("replicated: %zu variants, %zu groups, %zu hunks, %zu diff lines\n",
              big.variants.size(), big.groups.size(), hunks, lines);

  std::vector<double> html_ms, json_ms;
  std::string html, json;
  for (int k = 0; k < runs; ++k) {
    auto t = std::chrono::steady_clock::now();
    html = render::render(render::Format::kHtml, big);
    html_ms.push_back(ms_since(t));
    if (skip_json && out_json.empty()) continue;
    t = std::chrono::steady_clock::now();
    json = render::render(render::Format::kJson, big);
    json_ms.push_back(ms_since(t));
  }
  std::sort(html_ms.begin(), html_ms.end());
  std::sort(json_ms.begin(), json_ms.end());
  if (json_ms.empty()) json_ms.push_back(0);
  std::printf("render_html: median %.1f ms (min %.1f, %d runs), %.2f MB\n",
              html_ms[html_ms.size() / 2], html_ms.front(), runs, html.size() / 1e6);
  if (!skip_json)
    std::printf("render_json: median %.1f ms (min %.1f, %d runs), %.2f MB\n",
                json_ms[json_ms.size() / 2], json_ms.front(), runs, json.size() / 1e6);
  if (!write_if_asked(out_html, html) || !write_if_asked(out_json, json)) return 1;
  return 0;
}
