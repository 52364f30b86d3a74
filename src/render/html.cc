// HTML writer: one self-contained page (no network, no external URL: CSS
// and script are embedded, a Content-Security-Policy forbids any fetch and
// lets only the embedded style and script apply, by hash) that opens from a
// CI artifact or file://.
//
// Layout of the page, in reading order:
//   <header>     base → head
//   #summary     static HTML from the model (html_summary.h): headline,
//                totals, notes, statistics, option changes — short, so that
//                the first change group shows in the first screen
//   #verdicts    benchmark verdicts, when given
//   #changes     change groups in the report's order, then variants on one
//                side only: built by the script lazily (headers as they
//                scroll into view, hunks when opened)
//   #overview    per-stage table, per-kernel charts with a legend, rankings
//   #variants    every variant with its per-stage status (scrolls inside
//                its own box, never the page)
//   #ksnap-data  the data island: render_json's JSON (docs/diff-json.md)
//                with lexer token runs per diff line, made safe for <script>
//
// Worked example: `ksnap diff base no_licm --format html -o report.html`
// writes a page whose data island parses to the same object as
// `--format json` plus "tokens" on each diff line.
#include <string>

#include "ksnap/render/render.h"
#include "ksnap/support/sha256.h"
#include "render/html_summary.h"
#include "render/html_text.h"
#include "render/json.h"
#include "render/text_blocks.h"

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

/// The page's Content-Security-Policy: nothing is fetched, and the only
/// style and script that apply are the page's own <style> and <script>,
/// pinned by the SHA-256 of the exact bytes written between their tags
/// (kCss, kScript). Anything a report's data could smuggle in — an inline
/// handler, a second <script>, a style attribute — has no hash and does not
/// run. The data island is type application/json: never executed.
const std::string& content_security_policy() {
  static const std::string kPolicy =
      "default-src 'none'; style-src 'sha256-" + sha256_base64(kCss) + "'; script-src 'sha256-" +
      sha256_base64(kScript) + "'; img-src data:; base-uri 'none'; form-action 'none'";
  return kPolicy;
}

}  // namespace

namespace {

/// Static table of benchmark-noise verdicts (small: one row per point).
std::string verdicts_html(const report::Report& r) {
  const perf::VerdictReport& v = *r.verdicts;
  std::string out = "<section id=\"verdicts\"><h2>Benchmark verdicts</h2>\n<p>" +
                    html::escape_html(verdict_counts_text(v)) +
                    "</p>\n<div class=\"scroll\"><table "
                    "class=\"verdicts\"><thead><tr><th>verdict</th><th>point</th>"
                    "<th>details</th></tr></thead><tbody>\n";
  for (size_t i : r.verdict_order) {
    const perf::PointVerdict& p = v.points[i];
    out += std::string("<tr data-verdict=\"") + perf::verdict_id(p.kind) + "\"><td>" +
           html::escape_html(perf::verdict_name(p.kind)) + "</td><td class=\"code\">" +
           html::escape_html(p.perf.label) + "</td><td>" +
           html::escape_html(perf::describe(p, v.options)) + "</td></tr>\n";
  }
  return out + "</tbody></table></div></section>\n";
}

}  // namespace

std::string render_html(const report::Report& r, const WriteOptions&) {
  std::string data = html::script_safe_json(write_json(r, /*tokens=*/true));
  std::string base = html::escape_html(r.result->base_name),
              head = html::escape_html(r.result->head_name);

  std::string out;
  out.reserve(data.size() + sizeof kCss + sizeof kScript + 64 * 1024);
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<meta http-equiv=\"Content-Security-Policy\" content=\"" + content_security_policy() +
         "\">\n";
  out += "<meta name=\"generator\" content=\"ksnap\">\n";
  out += "<title>ksnap diff " + base + " → " + head + "</title>\n<style>";
  out += kCss;
  out += "</style>\n</head>\n<body>\n<header><h1>ksnap diff <span class=\"code\">" + base +
         "</span> → <span class=\"code\">" + head + "</span></h1></header>\n<main>\n";
  out += html::summary_html(r);
  if (r.verdicts) out += verdicts_html(r);
  out += "\n<section id=\"changes-section\"><h2>Changes</h2>\n";
  out += kToolbar;
  out +=
      "\n<div id=\"changes\"></div><p id=\"changes-empty\" class=\"dim\" hidden>No change "
      "matches the filters.</p></section>\n";
  out += html::overview_html(r);
  out +=
      "<section id=\"variants-section\"><h2>Variants</h2><div class=\"scroll\" id=\"variants-box\">"
      "<table id=\"variants\"><thead id=\"variants-head\"></thead><tbody "
      "id=\"variant-rows\"></tbody>"
      "</table></div></section>\n";
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
