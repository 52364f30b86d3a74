#include "ksnap/perf/perf_report_csv.h"

#include <cmath>
#include <set>

#include "ksnap/perf/csv.h"
#include "ksnap/perf/number_text.h"

namespace ksnap::perf {
namespace {

std::string file_stem(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = base.find_last_of('.');
  return (dot == std::string::npos || dot == 0) ? base : base.substr(0, dot);
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// A header split as Triton 3.x writes it: "<line> (<ylabel>)"; older
/// versions write "<line>" alone.
struct HeaderName {
  std::string base;
  std::string unit;
};

HeaderName split_header(const std::string& h) {
  if (h.size() >= 3 && h.back() == ')') {
    size_t open = h.rfind(" (");
    if (open != std::string::npos && open > 0) {
      return HeaderName{h.substr(0, open), h.substr(open + 2, h.size() - open - 3)};
    }
  }
  return HeaderName{h, ""};
}

struct LineColumn {
  size_t value = 0;
  std::string line;  ///< line name without the unit
  std::string unit;  ///< from the header, "" if none
  std::optional<size_t> lo, hi;
};

struct Layout {
  std::vector<size_t> x;  ///< column indices of x_names
  std::vector<LineColumn> lines;
};

/// A value column can start the lines when some value in it is fractional.
bool column_is_x_like(const std::vector<CsvRow>& rows, size_t col) {
  for (size_t r = 1; r < rows.size(); ++r) {
    if (col >= rows[r].fields.size()) continue;
    const std::string& f = rows[r].fields[col];
    auto v = parse_number(f);
    if (v && *v != std::floor(*v)) return false;
  }
  return true;
}

Expected<Layout> detect_layout(const std::vector<CsvRow>& rows, const std::string& file,
                               int x_columns) {
  const std::vector<std::string>& header = rows[0].fields;
  std::set<std::string> names;
  for (size_t c = 0; c < header.size(); ++c) {
    if (header[c].find_first_not_of(" \t\r") == std::string::npos) {  // empty or blank
      return make_error(ErrorCode::kParseError,
                        "header column " + std::to_string(c + 1) + " has no name",
                        SourceLocation{file, rows[0].line, 0});
    }
    if (!names.insert(header[c]).second) {
      return make_error(ErrorCode::kParseError, "header column '" + header[c] + "' appears twice",
                        SourceLocation{file, rows[0].line, 0});
    }
  }
  // Columns that are not candidate x/line columns: Diff, and <line>-min/-max.
  std::vector<HeaderName> split;
  std::set<std::string> bases;
  for (const std::string& h : header) {
    split.push_back(split_header(h));
    bases.insert(split.back().base);
  }
  std::vector<bool> auxiliary(header.size(), false);
  for (size_t c = 0; c < header.size(); ++c) {
    const std::string& b = split[c].base;
    if (header[c] == "Diff") auxiliary[c] = true;
    for (const char* suffix : {"-min", "-max"}) {
      if (ends_with(b, suffix) && bases.count(b.substr(0, b.size() - 4))) auxiliary[c] = true;
    }
  }
  std::vector<size_t> candidates;
  for (size_t c = 0; c < header.size(); ++c) {
    if (!auxiliary[c]) candidates.push_back(c);
  }
  if (candidates.size() < 2) {
    return make_error(ErrorCode::kParseError,
                      "a perf_report CSV needs at least one x column and one line column",
                      SourceLocation{file, rows[0].line, 0});
  }
  size_t nx = 0;
  if (x_columns >= 0) {
    nx = static_cast<size_t>(x_columns);
    if (nx == 0 || nx >= candidates.size()) {
      return make_error(ErrorCode::kInvalidArgument,
                        "x_columns=" + std::to_string(x_columns) + " leaves no x or no line column",
                        SourceLocation{file, rows[0].line, 0});
    }
  } else {
    while (nx < candidates.size() && column_is_x_like(rows, candidates[nx])) ++nx;
    if (nx == 0 || nx == candidates.size()) nx = 1;
  }
  Layout layout;
  layout.x.assign(candidates.begin(), candidates.begin() + nx);
  for (size_t k = nx; k < candidates.size(); ++k) {
    LineColumn lc;
    lc.value = candidates[k];
    lc.line = split[lc.value].base;
    lc.unit = split[lc.value].unit;
    for (size_t c = 0; c < header.size(); ++c) {
      if (!auxiliary[c]) continue;
      if (split[c].base == lc.line + "-min") lc.lo = c;
      if (split[c].base == lc.line + "-max") lc.hi = c;
    }
    layout.lines.push_back(lc);
  }
  return layout;
}

/// Parses a line value; nullopt for a missing one.
Expected<std::optional<double>> line_value(const CsvRow& row, size_t col, const std::string& file,
                                           const std::string& column) {
  const std::string& f = row.fields[col];
  if (is_missing_value(f)) return std::optional<double>();
  auto v = parse_number(f);
  if (!v) {
    return make_error(ErrorCode::kParseError,
                      "column '" + column + "': '" + f.substr(0, 40) + "' is not a finite number",
                      SourceLocation{file, row.line, 0});
  }
  return std::optional<double>(*v);
}

}  // namespace

Expected<BenchResults> parse_perf_report_csv(const TextBuffer& buf, const PerfReportOptions& opts) {
  KSNAP_ASSIGN_OR_RETURN(std::vector<CsvRow> rows, parse_csv(buf));
  if (rows.empty()) {
    return make_error(ErrorCode::kParseError, "empty file, expected a perf_report header row",
                      SourceLocation{buf.name(), 1, 0});
  }
  KSNAP_ASSIGN_OR_RETURN(Layout layout, detect_layout(rows, buf.name(), opts.x_columns));
  const std::vector<std::string>& header = rows[0].fields;
  const std::string name = opts.name.empty() ? file_stem(buf.name()) : opts.name;

  BenchResults out;
  out.sources.push_back(buf.name());
  for (size_t r = 1; r < rows.size(); ++r) {
    const CsvRow& row = rows[r];
    if (row.fields.size() != header.size()) {
      return make_error(ErrorCode::kParseError,
                        "row has " + std::to_string(row.fields.size()) +
                            " fields, the header has " + std::to_string(header.size()),
                        SourceLocation{buf.name(), row.line, 0});
    }
    std::vector<std::pair<std::string, std::string>> x;
    for (size_t c : layout.x) x.emplace_back(header[c], row.fields[c]);
    for (const LineColumn& lc : layout.lines) {
      KSNAP_ASSIGN_OR_RETURN(std::optional<double> v,
                             line_value(row, lc.value, buf.name(), header[lc.value]));
      if (!v) continue;
      BenchPoint p;
      auto params = x;
      params.emplace_back("line", lc.line);
      auto canon = canonical_params(std::move(params));
      if (!canon) {
        return make_error(ErrorCode::kParseError, canon.status().message(),
                          SourceLocation{buf.name(), row.line, 0});
      }
      p.id = BenchPointId{name, std::move(*canon), opts.script, ""};
      p.unit = opts.unit.empty() ? lc.unit : opts.unit;
      p.samples.push_back(*v);
      p.from_perf_report = true;
      p.where = SourceLocation{buf.name(), row.line, 0};
      if (lc.lo && lc.hi) {
        KSNAP_ASSIGN_OR_RETURN(auto lo, line_value(row, *lc.lo, buf.name(), header[*lc.lo]));
        KSNAP_ASSIGN_OR_RETURN(auto hi, line_value(row, *lc.hi, buf.name(), header[*lc.hi]));
        if (lo && hi) {
          p.spread_lo = std::min(*lo, *hi);
          p.spread_hi = std::max(*lo, *hi);
        }
      }
      KSNAP_RETURN_IF_ERROR(add_point(out, std::move(p)));
    }
  }
  return out;
}

}  // namespace ksnap::perf
