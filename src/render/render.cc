// Formats and their default report options; see include/ksnap/render/render.h.
#include "ksnap/render/render.h"

namespace ksnap::render {

bool parse_format(const std::string& s, Format* out) {
  if (s == "terminal" || s == "text") *out = Format::kTerminal;
  else if (s == "markdown" || s == "md") *out = Format::kMarkdown;
  else if (s == "json") *out = Format::kJson;
  else if (s == "html") *out = Format::kHtml;
  else if (s == "stat") *out = Format::kStat;
  else if (s == "name-only") *out = Format::kNameOnly;
  else return false;
  return true;
}

report::ReportOptions default_report_options(Format f) {
  report::ReportOptions o;
  switch (f) {
    case Format::kTerminal:
    case Format::kMarkdown:
      o.max_groups = 200;
      o.max_lines_per_group = 400;
      o.max_variants_listed = 12;
      o.max_figure_rows = 10;
      o.max_list_rows = 50;
      break;
    case Format::kHtml:
      o.max_lines_per_group = 20000;
      break;
    case Format::kJson:
    case Format::kStat:
    case Format::kNameOnly:
      break;
  }
  if (f == Format::kStat || f == Format::kNameOnly) o.show_diffs = false;
  return o;
}

std::string render(Format f, const diff::DiffResult& r, const WriteOptions& w,
                   const perf::VerdictReport* verdicts) {
  report::Report rep = report::build_report(r, verdicts, default_report_options(f));
  switch (f) {
    case Format::kTerminal: return render_terminal(rep, w);
    case Format::kMarkdown: return render_markdown(rep, w);
    case Format::kJson: return render_json(rep, w);
    case Format::kHtml: return render_html(rep, w);
    case Format::kStat: return render_stat(rep, w);
    case Format::kNameOnly: return render_name_only(rep, w);
  }
  return "";
}

}  // namespace ksnap::render
