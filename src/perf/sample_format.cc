#include "ksnap/perf/sample_format.h"

#include <cmath>
#include <cstdio>

#include "ksnap/perf/csv.h"
#include "ksnap/perf/json.h"
#include "ksnap/perf/number_text.h"

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

std::string scalar_text(const JsonValue& v) {
  switch (v.kind) {
    case JsonValue::Kind::kString:
      return v.string;
    case JsonValue::Kind::kBool:
      return v.boolean ? "true" : "false";
    case JsonValue::Kind::kNumber: {
      char buf[40];
      std::snprintf(buf, sizeof(buf), "%.17g", v.number);
      return normalize_param_value(buf);
    }
    default:
      return "";
  }
}

bool is_scalar(const JsonValue& v) {
  return v.kind == JsonValue::Kind::kString || v.kind == JsonValue::Kind::kBool ||
         v.kind == JsonValue::Kind::kNumber;
}

Status json_point(const JsonValue& obj, const std::string& file, const SampleFormatOptions& opts,
                  BenchResults& out) {
  SourceLocation where{file, obj.line, 0};
  if (!obj.is_object()) {
    return error_at(
        where, std::string("expected a benchmark point object, found ") + json_kind_name(obj.kind));
  }
  RawPoint raw;
  raw.where = where;
  for (const JsonMember& member : obj.members) {
    // Named references, not a structured binding: lambdas capture them (clang 14).
    const std::string& key = member.key;
    const JsonValue& v = member.value;
    SourceLocation at{file, v.line, 0};
    auto want_string = [&](std::string& dst) -> Status {
      if (!v.is_string()) return error_at(at, "'" + key + "' must be a string");
      dst = v.string;
      return Status::ok();
    };
    auto want_number = [&](std::optional<double>& dst) -> Status {
      if (!v.is_number()) return error_at(at, "'" + key + "' must be a number");
      dst = v.number;
      return Status::ok();
    };
    if (key == "name") {
      KSNAP_RETURN_IF_ERROR(want_string(raw.name));
    } else if (key == "params") {
      if (v.is_string()) {
        raw.params_text = v.string;
      } else if (v.is_object()) {
        for (const auto& [pk, pv] : v.members) {
          if (!is_scalar(pv)) return error_at(at, "params '" + pk + "' must be a scalar");
          raw.params.emplace_back(pk, scalar_text(pv));
        }
      } else {
        return error_at(at, "'params' must be an object or a \"k=v;k=v\" string");
      }
    } else if (key == "samples") {
      if (v.is_string()) {
        auto s = parse_sample_list(v.string);
        if (!s) return error_at(at, s.status().message());
        raw.samples = std::move(*s);
      } else if (v.is_array()) {
        std::vector<double> s;
        s.reserve(v.items.size());
        for (size_t k = 0; k < v.items.size(); ++k) {
          if (!v.items[k].is_number()) {
            return error_at(SourceLocation{file, v.items[k].line, 0},
                            "sample " + std::to_string(k + 1) + " is not a number");
          }
          s.push_back(v.items[k].number);
        }
        raw.samples = std::move(s);
      } else {
        return error_at(at, "'samples' must be an array of numbers");
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
    } else if (is_scalar(v)) {
      raw.params.emplace_back(key, scalar_text(v));
    } else if (v.kind != JsonValue::Kind::kNull) {
      return error_at(at, "unknown member '" + key + "' is not a scalar");
    }
  }
  return finish_point(std::move(raw), opts, out);
}

}  // namespace

Expected<BenchResults> parse_sample_json(const TextBuffer& buf, const SampleFormatOptions& opts) {
  KSNAP_ASSIGN_OR_RETURN(std::vector<JsonValue> docs, parse_json_sequence(buf));
  if (docs.empty()) {
    return error_at(SourceLocation{buf.name(), 1, 0}, "empty file, expected benchmark points");
  }
  const std::vector<JsonValue>* points = &docs;
  if (docs.size() == 1 && docs[0].is_array()) {
    points = &docs[0].items;
  } else if (docs.size() == 1 && docs[0].is_object() && docs[0].find("results")) {
    const JsonValue* results = docs[0].find("results");
    if (!results->is_array()) {
      return error_at(SourceLocation{buf.name(), results->line, 0}, "'results' must be an array");
    }
    points = &results->items;
  }
  BenchResults out;
  out.sources.push_back(buf.name());
  for (const JsonValue& p : *points) KSNAP_RETURN_IF_ERROR(json_point(p, buf.name(), opts, out));
  return out;
}

}  // namespace ksnap::perf
