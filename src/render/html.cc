// HTML renderer: one self-contained page (no network, no external URL: CSS
// and script are embedded, a Content-Security-Policy forbids any fetch) that
// opens from a CI artifact or file://.
//
// Layout of the page:
//   <header>   base → head
//   #summary   static HTML from C++ (html_summary.h): per-stage table, totals,
//              per-kernel SVG charts, ranked resource and op-count deltas
//   #changes   change groups, added/removed variants: built by the script,
//              lazily (headers as they scroll into view, hunks when opened)
//   #variants  every variant with its per-stage status, lazily
//   #ksnap-data the data island (html_data.h), JSON made safe for <script>
//
// Worked example: `ksnap diff base no_licm --format html -o report.html`
// writes ~1 MB for the 19-variant corpus; opening it shows the summary
// figures of `--format json` and "42 of 42 changes" in the toolbar.
#include <string>

#include "ksnap/render/render.h"
#include "render/html_data.h"
#include "render/html_summary.h"
#include "render/verdicts.h"
#include "render/html_text.h"

namespace ksnap::render {

namespace {

constexpr char kCss[] =
#include "render/html_assets/report_css.inc"
    ;

constexpr char kScript[] =
#include "render/html_assets/report_js.inc"
    ;

constexpr char kToolbar[] = R"(<div class="toolbar" id="toolbar">
<label>kernel <select id="f-kernel" aria-label="kernel filter"></select></label>
<label>stage <select id="f-stage" aria-label="stage filter"></select></label>
<label>status <select id="f-status" aria-label="status filter"><option value="">any status</option>
<option value="changed">changed</option><option value="added">added</option>
<option value="removed">removed</option><option value="unchanged">unchanged</option></select></label>
<input type="search" id="f-search" placeholder="search kernels, variants, IR text" aria-label="search">
<span class="views" role="group" aria-label="diff view"><button id="view-unified" aria-pressed="true">unified</button><button id="view-split" aria-pressed="false">side by side</button></span>
<span id="f-count"></span><span id="f-pos"></span>
<span class="keys"><kbd>j</kbd>/<kbd>k</kbd> hunk · <kbd>n</kbd>/<kbd>p</kbd> change · <kbd>o</kbd> open · <kbd>v</kbd> view · <kbd>/</kbd> search</span>
</div>)";

}  // namespace

namespace {

/// Static table of benchmark-noise verdicts (small: one row per point).
std::string verdicts_html(const perf::VerdictReport& v) {
  std::string out = "<section id=\"verdicts\"><h2>Benchmark verdicts</h2>\n<p>" +
                    html::escape_html(verdict_counts_text(v)) +
                    "</p>\n<table class=\"verdicts\"><thead><tr><th>verdict</th><th>point</th>"
                    "<th>details</th></tr></thead><tbody>\n";
  for (const auto& p : v.points)
    out += std::string("<tr data-verdict=\"") + perf::verdict_id(p.kind) + "\"><td>" +
           html::escape_html(perf::verdict_name(p.kind)) + "</td><td class=\"code\">" +
           html::escape_html(p.perf.label) + "</td><td>" +
           html::escape_html(perf::describe(p, v.options)) + "</td></tr>\n";
  return out + "</tbody></table></section>\n";
}

}  // namespace

std::string render_html(const diff::DiffResult& r, const RenderOptions& o) {
  html::DataLimits limits;
  limits.max_lines_per_group = o.show_diffs ? limits.max_lines_per_group : 0;
  std::string data = html::script_safe_json(html::report_data(r, limits));
  std::string base = html::escape_html(r.base_name), head = html::escape_html(r.head_name);

  std::string out;
  out.reserve(data.size() + sizeof kCss + sizeof kScript + 64 * 1024);
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n";
  out += "<meta name=\"generator\" content=\"ksnap\">\n";
  out += "<title>ksnap diff " + base + " → " + head + "</title>\n<style>";
  out += kCss;
  out += "</style>\n</head>\n<body>\n<header><h1>ksnap diff <span class=\"code\">" + base +
         "</span> → <span class=\"code\">" + head + "</span></h1></header>\n<main>\n";
  out += html::summary_html(r);
  if (o.verdicts) out += verdicts_html(*o.verdicts);
  out += "\n<section id=\"changes-section\"><h2>Changes</h2>\n";
  out += kToolbar;
  out +=
      "\n<div id=\"changes\"></div><p id=\"changes-empty\" class=\"dim\" hidden>No change "
      "matches the filters.</p></section>\n";
  out +=
      "<section id=\"variants-section\"><h2>Variants</h2><table id=\"variants\"><thead "
      "id=\"variants-head\"></thead><tbody id=\"variant-rows\"></tbody></table></section>\n";
  out +=
      "<noscript><p>The change groups and the variant table need JavaScript; the summary "
      "above is complete without it.</p></noscript>\n</main>\n";
  out += "<script type=\"application/json\" id=\"ksnap-data\">";
  out += data;
  out += "</script>\n<script>";
  out += kScript;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace ksnap::render
