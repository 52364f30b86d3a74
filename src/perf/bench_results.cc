#include "ksnap/perf/bench_results.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <unordered_map>

namespace ksnap::perf {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool needs_escape(char c) { return c == ',' || c == '[' || c == ']' || c == '=' || c == '\\'; }

void append_escaped(std::string& out, std::string_view s) {
  for (char c : s) {
    if (needs_escape(c)) out.push_back('\\');
    out.push_back(c);
  }
}

/// Pools two summaries (exact for mean and the unbiased variance).
SampleSummary pool(const SampleSummary& a, const SampleSummary& b) {
  SampleSummary out;
  out.n = a.n + b.n;
  if (out.n == 0) return out;
  const double na = static_cast<double>(a.n), nb = static_cast<double>(b.n);
  out.mean = (na * a.mean + nb * b.mean) / (na + nb);
  double ss = (na > 1 ? (na - 1) * a.std * a.std : 0) + (nb > 1 ? (nb - 1) * b.std * b.std : 0) +
              na * (a.mean - out.mean) * (a.mean - out.mean) +
              nb * (b.mean - out.mean) * (b.mean - out.mean);
  out.std = out.n > 1 ? std::sqrt(ss / (static_cast<double>(out.n) - 1)) : 0;
  return out;
}

}  // namespace

std::string normalize_param_value(std::string_view value) {
  value = trim(value);
  std::string low = lower(value);
  if (low == "true" || low == "false") return low;
  double d = 0;
  const char* end = value.data() + value.size();
  auto res = std::from_chars(value.data(), end, d);
  if (value.empty() || res.ec != std::errc() || res.ptr != end || !std::isfinite(d)) {
    return std::string(value);
  }
  auto integral = [](double x) { return x == std::floor(x) && std::fabs(x) < 9.0e15; };
  auto integer_text = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.0f", x);
    return std::string(buf[0] == '-' && x == 0 ? "0" : buf);
  };
  if (integral(d)) return integer_text(d);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.15g", d);
  // Idempotent: 1111111111111111.4 rounds to "1.11111111111111e+15", which
  // is the integer 1111111111111110 and must be spelled as one already
  // (found by bench_fuzz: labels that did not parse back to themselves).
  double r = d;
  std::from_chars(buf, buf + std::strlen(buf), r);
  if (integral(r)) return integer_text(r);
  return buf;
}

Expected<ParamList> canonical_params(std::vector<std::pair<std::string, std::string>> raw) {
  ParamList out;
  out.reserve(raw.size());
  for (auto& [k, v] : raw) {
    // A blank name (a header cell of spaces) would make a label that
    // parse_point_label cannot read back.
    if (trim(k).empty()) return make_error(ErrorCode::kInvalidArgument, "parameter without a name");
    out.emplace_back(std::string(trim(k)), normalize_param_value(v));
  }
  std::sort(out.begin(), out.end());
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i].first == out[i - 1].first) {
      return make_error(ErrorCode::kInvalidArgument,
                        "parameter '" + out[i].first + "' given twice");
    }
  }
  return out;
}

Expected<ParamList> parse_param_string(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> raw;
  size_t i = 0;
  while (i <= text.size()) {
    size_t j = text.find_first_of(";,", i);
    if (j == std::string_view::npos) j = text.size();
    std::string_view item = trim(text.substr(i, j - i));
    if (!item.empty()) {
      size_t eq = item.find('=');
      if (eq == std::string_view::npos || trim(item.substr(0, eq)).empty()) {
        return make_error(ErrorCode::kInvalidArgument,
                          "parameter '" + std::string(item) + "' is not key=value");
      }
      raw.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
    }
    i = j + 1;
  }
  return canonical_params(std::move(raw));
}

std::string format_point_label(const std::string& name, const ParamList& params) {
  std::string out;
  append_escaped(out, name);
  if (params.empty()) return out;
  out.push_back('[');
  for (size_t i = 0; i < params.size(); ++i) {
    if (i) out.push_back(',');
    append_escaped(out, params[i].first);
    out.push_back('=');
    append_escaped(out, params[i].second);
  }
  out.push_back(']');
  return out;
}

Expected<std::pair<std::string, ParamList>> parse_point_label(std::string_view label) {
  auto bad = [&](const std::string& why) {
    return make_error(ErrorCode::kInvalidArgument,
                      "bad benchmark point label '" + std::string(label) + "': " + why);
  };
  std::string name;
  size_t i = 0;
  // Name: up to an unescaped '['.
  while (i < label.size() && label[i] != '[') {
    if (label[i] == '\\') {
      if (++i >= label.size()) return bad("dangling '\\'");
    } else if (needs_escape(label[i])) {
      return bad(std::string("unescaped '") + label[i] + "' in the name");
    }
    name.push_back(label[i++]);
  }
  if (name.empty()) return bad("empty benchmark name");
  std::vector<std::pair<std::string, std::string>> raw;
  if (i < label.size()) {
    ++i;  // '['
    std::string key, value, *cur = &key;
    bool closed = false;
    while (i < label.size()) {
      char c = label[i++];
      if (c == '\\') {
        if (i >= label.size()) return bad("dangling '\\'");
        cur->push_back(label[i++]);
      } else if (c == '=' && cur == &key) {
        cur = &value;
      } else if (c == ',' || c == ']') {
        if (cur != &value || trim(key).empty()) return bad("parameter without key=value");
        raw.emplace_back(key, value);
        key.clear();
        value.clear();
        cur = &key;
        if (c == ']') {
          closed = true;
          break;
        }
      } else if (needs_escape(c)) {
        return bad(std::string("unescaped '") + c + "'");
      } else {
        cur->push_back(c);
      }
    }
    if (!closed) return bad("missing ']'");
    if (i != label.size()) return bad("text after ']'");
  }
  auto params = canonical_params(std::move(raw));
  if (!params) return bad(params.status().message());
  return std::make_pair(std::move(name), std::move(*params));
}

MetricDirection direction_for_unit(std::string_view unit, MetricDirection fallback) {
  std::string u = lower(trim(unit));
  if (u.empty()) return fallback;
  if (u.find("/s") != std::string::npos || u.find("flop") != std::string::npos ||
      u.find("per sec") != std::string::npos) {
    return MetricDirection::kHigherIsBetter;
  }
  static const char* const kTimes[] = {"s",         "sec", "ms",     "us",
                                       "\xc2\xb5s", "ns",  "cycles", "cycle"};
  for (const char* t : kTimes) {
    if (u == t) return MetricDirection::kLowerIsBetter;
  }
  return fallback;
}

Status add_point(BenchResults& results, BenchPoint point) {
  std::string label = format_point_label(point.id);
  auto it = results.by_label.find(label);
  if (it != results.by_label.end()) {
    BenchPoint& have = results.points[it->second];
    if (have.summary.has_value() != point.summary.has_value()) {
      return make_error(ErrorCode::kInvalidArgument,
                        "benchmark point " + label +
                            " is given both as samples and as mean/std/n (first at line " +
                            std::to_string(have.where.line) + ")",
                        point.where);
    }
    if (have.summary) {
      have.summary = pool(*have.summary, *point.summary);
    } else {
      if (have.run_sizes.empty())
        have.run_sizes.push_back(static_cast<uint32_t>(have.samples.size()));
      if (point.run_sizes.empty()) {
        have.run_sizes.push_back(static_cast<uint32_t>(point.samples.size()));
      } else {
        have.run_sizes.insert(have.run_sizes.end(), point.run_sizes.begin(), point.run_sizes.end());
      }
      have.samples.insert(have.samples.end(), point.samples.begin(), point.samples.end());
    }
    have.runs += point.runs;
    if (!point.spread_lo || !have.spread_lo) {
      have.spread_lo.reset();
      have.spread_hi.reset();
    }
    if (have.id.script.empty()) have.id.script = point.id.script;
    if (have.id.kernel.empty()) have.id.kernel = point.id.kernel;
    if (have.unit.empty()) have.unit = point.unit;
    return Status::ok();
  }
  results.by_label.emplace(std::move(label), results.points.size());
  results.points.push_back(std::move(point));
  return Status::ok();
}

std::vector<std::span<const double>> runs_of(const BenchPoint& p) {
  std::vector<std::span<const double>> out;
  const std::span<const double> all(p.samples);
  if (p.run_sizes.empty()) {
    if (!all.empty()) out.push_back(all);
    return out;
  }
  size_t at = 0;
  for (uint32_t n : p.run_sizes) {
    if (at + n > all.size()) break;  // inconsistent sizes: stop at the data
    out.push_back(all.subspan(at, n));
    at += n;
  }
  return out;
}

const BenchPoint* BenchResults::find(const std::string& label) const {
  auto it = by_label.find(label);
  return it == by_label.end() ? nullptr : &points[it->second];
}

Expected<BenchResults> merge_results(std::vector<BenchResults> parts) {
  BenchResults out;
  for (BenchResults& part : parts) {
    out.sources.insert(out.sources.end(), part.sources.begin(), part.sources.end());
    for (BenchPoint& p : part.points) KSNAP_RETURN_IF_ERROR(add_point(out, std::move(p)));
  }
  return out;
}

}  // namespace ksnap::perf
