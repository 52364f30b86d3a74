#include "ksnap/tune/controls.h"

#include <cstdlib>

namespace ksnap::tune {

const char* policy_name(Policy p) {
  switch (p) {
    case Policy::kOnline: return "online";
    case Policy::kAheadOfTime: return "ahead";
    case Policy::kAtLoad: return "load";
  }
  return "?";
}

Expected<Policy> parse_policy(std::string_view t) {
  if (t == "online") return Policy::kOnline;
  if (t == "ahead" || t == "aot" || t == "ahead_of_time") return Policy::kAheadOfTime;
  if (t == "load" || t == "at_load") return Policy::kAtLoad;
  return make_error(ErrorCode::kInvalidArgument,
                    "unknown policy '" + std::string(t) + "' (online | ahead | load)");
}

std::string EnvControls::force_for(const std::string& group) const {
  if (force.empty()) return "";
  if (force.find(':') == std::string::npos) return force;
  size_t pos = 0;
  while (pos <= force.size()) {
    size_t comma = force.find(',', pos);
    std::string item = force.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t colon = item.find(':');
    if (colon != std::string::npos && item.substr(0, colon) == group) return item.substr(colon + 1);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return "";
}

Expected<EnvControls> read_env_controls(const GetEnv& getenv_fn) {
  auto get = [&](const char* k) -> const char* {
    return getenv_fn ? getenv_fn(k) : std::getenv(k);
  };
  auto bad = [](const char* var, const std::string& why) {
    return make_error(ErrorCode::kInvalidArgument, std::string(var) + ": " + why);
  };
  EnvControls c;
  if (const char* v = get("KSNAP_TUNE_DISABLE")) {
    std::string s = v;
    c.disable = !(s.empty() || s == "0" || s == "false" || s == "no");
  }
  if (const char* v = get("KSNAP_TUNE_FORCE")) c.force = v;
  if (const char* v = get("KSNAP_TUNE_CACHE")) c.cache_path = std::string(v) == "off" ? "" : v;
  if (const char* v = get("KSNAP_TUNE_REPORT")) c.report_path = v;
  if (const char* v = get("KSNAP_TUNE_LOG")) c.commit_log_path = v;
  if (const char* v = get("KSNAP_TUNE_POLICY")) {
    auto p = parse_policy(v);
    if (!p) return bad("KSNAP_TUNE_POLICY", p.status().message());
    c.policy = *p;
  }
  if (const char* v = get("KSNAP_TUNE_TIE_TOLERANCE")) {
    char* end = nullptr;
    double d = std::strtod(v, &end);
    if (!end || *end || !(d >= 0 && d < 1)) return bad("KSNAP_TUNE_TIE_TOLERANCE", "want a number in [0, 1)");
    c.tie_tolerance = d;
  }
  if (const char* v = get("KSNAP_TUNE_BUDGET")) {
    char* end = nullptr;
    long n = std::strtol(v, &end, 10);
    if (!end || *end || n < 1) return bad("KSNAP_TUNE_BUDGET", "want a positive integer");
    c.budget_per_variant = static_cast<size_t>(n);
  }
  if (const char* v = get("KSNAP_TUNE_ESTIMATOR")) {
    auto e = parse_estimator(v);
    if (!e) return bad("KSNAP_TUNE_ESTIMATOR", e.status().message());
    c.estimator = *e;
  }
  return c;
}

}  // namespace ksnap::tune
