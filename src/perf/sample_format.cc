#include "ksnap/perf/sample_format.h"

#include <cmath>

#include "ksnap/perf/csv.h"
#include "ksnap/perf/number_text.h"
#include "ksnap/support/json.h"
#include "perf/json_param.h"

namespace ksnap::perf {
namespace {

/// The fields of one point before validation, from either syntax.
struct RawPoint {
  std::string name;
  std::vector<std::pair<std::string, std::string>> params;
  std::string params_text;  ///< "k=v;k=v" form, parsed in finish_point
  std::optional<std::vector<double>> samples;
  std::optional<double> mean, std, n;
  std::string script, kernel, unit;
  SourceLocation where;
};

Status error_at(const SourceLocation& where, std::string msg) {
  return make_error(ErrorCode::kParseError, std::move(msg), where);
}

Status finish_point(RawPoint raw, const SampleFormatOptions& opts, BenchResults& out) {
  if (raw.name.empty()) return error_at(raw.where, "benchmark point without a name");
  if (!raw.params_text.empty()) {
    auto parsed = parse_param_string(raw.params_text);
    if (!parsed) return error_at(raw.where, parsed.status().message());
    raw.params.insert(raw.params.end(), parsed->begin(), parsed->end());
  }
  auto params = canonical_params(std::move(raw.params));
  if (!params) return error_at(raw.where, params.status().message());
  BenchPoint p;
  p.id = BenchPointId{std::move(raw.name), std::move(*params),
                      raw.script.empty() ? opts.script : raw.script, std::move(raw.kernel)};
  p.unit = std::move(raw.unit);
  p.where = raw.where;
  if (raw.samples && !raw.samples->empty()) {
    p.samples = std::move(*raw.samples);
  } else if (raw.mean || raw.std || raw.n) {
    if (!raw.mean || !raw.std || !raw.n) {
      return error_at(raw.where, "mean, std and n must be given together");
    }
    if (*raw.std < 0) return error_at(raw.where, "std must not be negative");
    if (*raw.n < 1 || *raw.n != std::floor(*raw.n) || *raw.n > 1e12) {
      return error_at(raw.where, "n must be a positive integer");
    }
    p.summary = SampleSummary{*raw.mean, *raw.std, static_cast<uint64_t>(*raw.n)};
  } else {
    return error_at(raw.where,
                    "point " + format_point_label(p.id) + " has neither samples nor mean,std,n");
  }
  Status added = add_point(out, std::move(p));
  if (!added) return error_at(added.location(), added.message());
  return Status::ok();
}

// ---------------------------------------------------------------- CSV

Expected<std::optional<double>> csv_number(const std::string& field, const char* column,
                                           const SourceLocation& where) {
  if (is_missing_value(field)) return std::optional<double>();
  auto v = parse_number(field);
  if (!v) {
    return error_at(where, std::string("column '") + column + "': '" + field.substr(0, 40) +
                               "' is not a finite number");
  }
  return std::optional<double>(*v);
}

}  // namespace

Expected<BenchResults> parse_sample_csv(const TextBuffer& buf, const SampleFormatOptions& opts) {
  CsvOptions csv_opts;
  csv_opts.comments = true;
  KSNAP_ASSIGN_OR_RETURN(std::vector<CsvRow> rows, parse_csv(buf, csv_opts));
  if (rows.empty()) {
    return error_at(SourceLocation{buf.name(), 1, 0}, "empty file, expected a header row");
  }
  const CsvRow& header = rows[0];
  const SourceLocation header_at{buf.name(), header.line, 0};
  enum Role { kName, kParams, kSamples, kMean, kStd, kN, kScript, kKernel, kUnit, kExtra };
  std::vector<Role> roles;
  bool has_name = false, has_samples = false, has_mean = false;
  for (const std::string& h : header.fields) {
    Role r = kExtra;
    if (h == "name")
      r = kName, has_name = true;
    else if (h == "params")
      r = kParams;
    else if (h == "samples")
      r = kSamples, has_samples = true;
    else if (h == "mean")
      r = kMean, has_mean = true;
    else if (h == "std")
      r = kStd;
    else if (h == "n")
      r = kN;
    else if (h == "script")
      r = kScript;
    else if (h == "kernel")
      r = kKernel;
    else if (h == "unit")
      r = kUnit;
    else if (h.empty())
      return error_at(header_at, "header has an empty column name");
    roles.push_back(r);
  }
  if (!has_name) return error_at(header_at, "header has no 'name' column");
  if (!has_samples && !has_mean) {
    return error_at(header_at, "header needs a 'samples' column or 'mean','std','n' columns");
  }
  BenchResults out;
  out.sources.push_back(buf.name());
  for (size_t r = 1; r < rows.size(); ++r) {
    const CsvRow& row = rows[r];
    RawPoint raw;
    raw.where = SourceLocation{buf.name(), row.line, 0};
    if (row.fields.size() != header.fields.size()) {
      return error_at(raw.where, "row has " + std::to_string(row.fields.size()) +
                                     " fields, the header has " +
                                     std::to_string(header.fields.size()));
    }
    for (size_t c = 0; c < roles.size(); ++c) {
      const std::string& f = row.fields[c];
      switch (roles[c]) {
        case kName:
          raw.name = f;
          break;
        case kParams:
          raw.params_text = f;
          break;
        case kSamples: {
          auto s = parse_sample_list(f);
          if (!s) return error_at(raw.where, s.status().message());
          raw.samples = std::move(*s);
          break;
        }
        case kMean: {
          KSNAP_ASSIGN_OR_RETURN(raw.mean, csv_number(f, "mean", raw.where));
          break;
        }
        case kStd: {
          KSNAP_ASSIGN_OR_RETURN(raw.std, csv_number(f, "std", raw.where));
          break;
        }
        case kN: {
          KSNAP_ASSIGN_OR_RETURN(raw.n, csv_number(f, "n", raw.where));
          break;
        }
        case kScript:
          raw.script = f;
          break;
        case kKernel:
          raw.kernel = f;
          break;
        case kUnit:
          raw.unit = f;
          break;
        case kExtra:
          if (!f.empty()) raw.params.emplace_back(header.fields[c], f);
          break;
      }
    }
    KSNAP_RETURN_IF_ERROR(finish_point(std::move(raw), opts, out));
  }
  return out;
}

// ---------------------------------------------------------------- JSON

namespace {

/// The number at `n` (finite: the parser refuses 1e999 as a number overflow).
Status number_at(const json::Node& n, const std::string& what, double* out) {
  if (!n.present() || !n.value().is_number()) return n.error(what + " is not a number");
  *out = n.value().get<double>();
  return Status::ok();
}

/// Reads the point at `obj`, which starts at `where`.
Status json_point(const json::Node& obj, SourceLocation where, const SampleFormatOptions& opts,
                  BenchResults& out) {
  if (!obj.is_object()) {
    return obj.error(std::string("expected a benchmark point object, found ") +
                     json::kind_name(obj.value()));
  }
  RawPoint raw;
  raw.where = std::move(where);
  for (auto it = obj.value().begin(); it != obj.value().end(); ++it) {
    const std::string& key = it.key();
    const json::Node v = obj[key];
    const json::Value& jv = v.value();
    auto want_string = [&](std::string& dst) -> Status {
      if (!jv.is_string()) return v.error("'" + key + "' must be a string");
      dst = jv.get_ref<const std::string&>();
      return Status::ok();
    };
    auto want_number = [&](std::optional<double>& dst) -> Status {
      double x = 0;
      KSNAP_RETURN_IF_ERROR(number_at(v, "'" + key + "'", &x));
      dst = x;
      return Status::ok();
    };
    if (key == "name") {
      KSNAP_RETURN_IF_ERROR(want_string(raw.name));
    } else if (key == "params") {
      if (jv.is_string()) {
        raw.params_text = jv.get_ref<const std::string&>();
      } else if (jv.is_object()) {
        for (auto p = jv.begin(); p != jv.end(); ++p) {
          if (!is_json_scalar(p.value()))
            return v[p.key()].error("params '" + p.key() + "' must be a scalar");
          raw.params.emplace_back(p.key(), json_param_text(p.value()));
        }
      } else {
        return v.error("'params' must be an object or a \"k=v;k=v\" string");
      }
    } else if (key == "samples") {
      if (jv.is_string()) {
        auto s = parse_sample_list(jv.get_ref<const std::string&>());
        if (!s) return v.error(s.status().message());
        raw.samples = std::move(*s);
      } else if (jv.is_array()) {
        std::vector<double> s(jv.size());
        for (size_t k = 0; k < jv.size(); ++k)
          KSNAP_RETURN_IF_ERROR(number_at(v[k], "sample " + std::to_string(k + 1), &s[k]));
        raw.samples = std::move(s);
      } else {
        return v.error("'samples' must be an array of numbers");
      }
    } else if (key == "mean") {
      KSNAP_RETURN_IF_ERROR(want_number(raw.mean));
    } else if (key == "std") {
      KSNAP_RETURN_IF_ERROR(want_number(raw.std));
    } else if (key == "n") {
      KSNAP_RETURN_IF_ERROR(want_number(raw.n));
    } else if (key == "script") {
      KSNAP_RETURN_IF_ERROR(want_string(raw.script));
    } else if (key == "kernel") {
      KSNAP_RETURN_IF_ERROR(want_string(raw.kernel));
    } else if (key == "unit") {
      KSNAP_RETURN_IF_ERROR(want_string(raw.unit));
    } else if (is_json_scalar(jv)) {
      raw.params.emplace_back(key, json_param_text(jv));
    } else if (!jv.is_null()) {
      return v.error("unknown member '" + key + "' is not a scalar");
    }
  }
  return finish_point(std::move(raw), opts, out);
}

}  // namespace

Expected<BenchResults> parse_sample_json(const TextBuffer& buf, const SampleFormatOptions& opts) {
  KSNAP_ASSIGN_OR_RETURN(std::vector<json::Document> docs,
                         json::Document::parse_sequence(buf.view(), buf.name()));
  if (docs.empty()) {
    return error_at(SourceLocation{buf.name(), 1, 0}, "empty file, expected benchmark points");
  }
  BenchResults out;
  out.sources.push_back(buf.name());
  // One array of points, or {"results": [...]}, or one point per document.
  json::Node points = docs[0].root();
  if (docs.size() == 1 && points.is_object() && points["results"].present()) {
    points = points["results"];
    if (!points.is_array()) return points.error("'results' must be an array");
  }
  if (docs.size() == 1 && points.is_array()) {
    // Located in one pass: Node::location() per item would rescan the array.
    std::vector<SourceLocation> at = points.item_locations();
    if (at.size() != points.size()) return points.error("could not locate the benchmark points", ErrorCode::kInternal);
    for (size_t i = 0; i < points.size(); ++i)
      KSNAP_RETURN_IF_ERROR(json_point(points[i], std::move(at[i]), opts, out));
    return out;
  }
  for (const json::Document& d : docs)
    KSNAP_RETURN_IF_ERROR(json_point(d.root(), d.root().location(), opts, out));
  return out;
}

}  // namespace ksnap::perf
