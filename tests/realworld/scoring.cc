#include "realworld/scoring.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

extern char** environ;

namespace ksnap::realworld {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Runs argv with stdout/stderr to files; returns the exit code, or 128+N
/// when killed by signal N; -1 when it could not start.
int run(const std::vector<std::string>& argv, const std::string& out, const std::string& err) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0].c_str(), &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// Cache folder of a stage path: <root>/cache/<folder>/<file>.
std::string folder_of(const std::string& path) {
  return fs::path(path).parent_path().filename().string();
}

std::string first_path(const json& v, const char* field) {
  if (!v.contains("stages") || !v["stages"].is_object()) return "";
  for (const auto& [stage, s] : v["stages"].items())
    if (s.contains(field) && s[field].is_string()) return s[field].get<std::string>();
  return "";
}

/// kernel|constexprs of a kernel|constexprs|options id.
std::string without_options(const std::string& id) { return id.substr(0, id.rfind('|')); }

std::string stage_of(const std::string& row_key) { return row_key.substr(row_key.rfind('|') + 1); }
std::string variant_of(const std::string& row_key) { return row_key.substr(0, row_key.rfind('|')); }

struct Expected {
  std::map<std::string, std::string> paired;  // BASE key -> HEAD key
  std::map<std::string, std::string> label;   // key -> id for messages
  /// BASE folders several variants share (one compile, several JIT keys):
  /// their ids; each such variant must pair with the HEAD variant of its id.
  std::map<std::string, std::set<std::string>> shared_ids;
  std::set<std::string> removed, added;
};

Expected expected_pairing(const Corpus& c, const json& p) {
  Expected e;
  if (c.by_cache_dir) {
    for (const auto& [base_dir, v] : p["variants"].items()) {
      e.paired[base_dir] = v["head_dir"].get<std::string>();
      e.label[base_dir] = v["id"].get<std::string>();
      if (v.contains("ids"))
        for (const auto& id : v["ids"]) e.shared_ids[base_dir].insert(id.get<std::string>());
    }
    for (const auto& r : p["removed"]) {
      e.removed.insert(r["base_dir"].get<std::string>());
      e.label[r["base_dir"].get<std::string>()] = r["id"].get<std::string>();
    }
    for (const auto& a : p["added"]) {
      e.added.insert(a["head_dir"].get<std::string>());
      e.label[a["head_dir"].get<std::string>()] = a["id"].get<std::string>();
    }
  } else {
    // Shared-corpus truth keys BASE ids; a variant pairs with HEAD's variant of
    // the same kernel and constexprs (options may differ: fusion_off passes
    // enable_fp_fusion explicitly).
    for (const auto& [key, row] : p["rows"].items()) {
      std::string id = variant_of(key);
      e.paired[id] = without_options(id);
      e.label[id] = id;
    }
  }
  return e;
}

void problem(PairScore* s, const std::string& what) {
  if (s->problems.size() < 200) s->problems.push_back(what);
}

}  // namespace

Corpus load_corpus(const std::string& name, const std::string& dir, const std::string& truth) {
  Corpus c;
  c.name = name;
  c.dir = dir;
  if (!fs::is_regular_file(truth)) {
    c.error = truth + ": not found";
    return c;
  }
  try {
    c.truth = json::parse(read_file(truth));
  } catch (const json::exception& e) {
    c.error = truth + ": " + e.what();
    return c;
  }
  if (!c.truth.contains("pairs") || !c.truth["pairs"].is_object()) {
    c.error = truth + ": no \"pairs\" object";
    return c;
  }
  for (const auto& [name_, p] : c.truth["pairs"].items()) {
    c.by_cache_dir = p.contains("variants");
    break;
  }
  return c;
}

std::vector<std::string> pair_names(const Corpus& c) {
  std::vector<std::string> out;
  if (!c.error.empty()) return out;
  for (const auto& [name, p] : c.truth["pairs"].items()) out.push_back(name);
  return out;
}

PairScore score_pair(const std::string& ksnap, const Corpus& c, const std::string& pair) {
  static std::atomic<int> counter{0};
  PairScore s;
  s.corpus = c.name;
  s.pair = pair;
  const json& p = c.truth["pairs"][pair];
  const std::string base = pair.substr(0, pair.find(".."));
  const std::string head = pair.substr(pair.find("..") + 2);
  std::string tmp = (fs::temp_directory_path() /
                     ("ksnap_realworld_" + std::to_string(getpid()) + "_" +
                      std::to_string(counter++)))
                        .string();
  auto t0 = std::chrono::steady_clock::now();
  s.exit_code = run({ksnap, "diff", c.dir + "/" + base, c.dir + "/" + head, "--format", "json",
                     "-o", tmp + ".json"},
                    tmp + ".out", tmp + ".err");
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string err = read_file(tmp + ".err");
  std::string out = read_file(tmp + ".json");
  for (const char* ext : {".json", ".out", ".err"}) fs::remove(tmp + ext);
  s.crashed = s.exit_code >= 128;
  if (s.exit_code != 0) {
    s.error = "exit " + std::to_string(s.exit_code) + ": " + err.substr(0, 2000);
    return s;
  }
  json j;
  try {
    j = json::parse(out);
  } catch (const json::exception& e) {
    s.error = std::string("unreadable JSON: ") + e.what();
    return s;
  }

  Expected want = expected_pairing(c, p);
  s.truth_variants = want.paired.size() + want.removed.size() + want.added.size();
  const json& rows = p["rows"];
  std::set<std::string> seen_base, seen_head;
  for (const json& v : j["variants"]) {
    ++s.variants;
    const std::string pairing = v.value("pairing", "");
    std::string kb, kh;
    if (c.by_cache_dir) {
      kb = first_path(v, "base_path").empty() ? "" : folder_of(first_path(v, "base_path"));
      kh = first_path(v, "head_path").empty() ? "" : folder_of(first_path(v, "head_path"));
    } else {
      if (pairing != "added") kb = v.value("id", "");
      if (pairing != "removed") kh = without_options(v.value("head_id", ""));
    }
    std::string label = v.value("id", "");
    const std::string signature = v.value("signature", "");
    if (!signature.empty()) label.append(" ").append(signature);
    if (!kb.empty()) seen_base.insert(kb);
    if (!kh.empty()) seen_head.insert(kh);
    if (!kb.empty() && !kh.empty()) {
      auto it = want.paired.find(kb);
      if (it == want.paired.end() || it->second != kh) {
        ++s.pairing_errors;
        std::string truth_says = it != want.paired.end() ? "pairs it with HEAD folder " + it->second
                                 : want.removed.count(kb) ? "it was removed"
                                                          : "it is unknown";
        problem(&s, "wrong pairing (" + pairing + "): " + label + " -> " + v.value("head_id", "") +
                        "; truth: " + truth_says + (want.added.count(kh) ? ", and HEAD's was added" : ""));
        continue;
      }
      auto shared = want.shared_ids.find(kb);
      if (shared != want.shared_ids.end() &&
          (!shared->second.count(v.value("id", "")) || v.value("id", "") != v.value("head_id", ""))) {
        ++s.pairing_errors;
        problem(&s, "wrong pairing (" + pairing + ") of variants sharing a compile: " + label + " -> " +
                        v.value("head_id", ""));
        continue;
      }
    } else if (!kb.empty()) {
      if (!want.removed.count(kb)) {
        ++s.pairing_errors;
        problem(&s, "reported removed, truth pairs it: " + label);
      }
      continue;
    } else if (!kh.empty()) {
      if (!want.added.count(kh)) {
        ++s.pairing_errors;
        problem(&s, "reported added, truth pairs it: " + v.value("head_id", ""));
      }
      continue;
    }
    // Paired as the truth pairs it: score every stage.
    std::set<std::string> scored;
    for (const auto& [stage, st] : v["stages"].items()) {
      const std::string key = kb + "|" + stage;
      scored.insert(stage);
      if (!rows.contains(key)) {
        problem(&s, "stage without truth: " + label + " " + stage);
        continue;
      }
      const json& row = rows[key];
      const bool reported = st.value("status", "") != "unchanged";
      if (row.value("unstable", false)) {
        ++s.unstable;
        continue;
      }
      ++s.stages_compared;
      const bool changed = row.value("changed", false);
      s.changed_truth += changed;
      s.reported_changed += reported;
      if (reported && !changed) {
        ++s.false_changes;
        problem(&s, "false change: " + label + " " + stage + " (+" +
                        std::to_string(st.value("lines_added", 0)) + " -" +
                        std::to_string(st.value("lines_removed", 0)) + ")");
      } else if (!reported && changed) {
        ++s.misses;
        problem(&s, "missed change: " + label + " " + stage);
      }
    }
    for (const auto& [key, row] : rows.items()) {
      if (variant_of(key) != kb || scored.count(stage_of(key)) || row.value("unstable", false))
        continue;
      ++s.stages_compared;
      if (row.value("changed", false)) {
        ++s.changed_truth;
        ++s.misses;
        problem(&s, "stage not reported: " + label + " " + stage_of(key));
      }
    }
  }
  for (const auto& [kb, kh] : want.paired)
    if (!seen_base.count(kb)) {
      ++s.pairing_errors;
      problem(&s, "not reported: " + want.label[kb]);
    }
  for (const auto& kb : want.removed)
    if (!seen_base.count(kb)) {
      ++s.pairing_errors;
      problem(&s, "removed variant not reported: " + want.label[kb]);
    }
  for (const auto& kh : want.added)
    if (!seen_head.count(kh)) {
      ++s.pairing_errors;
      problem(&s, "added variant not reported: " + want.label[kh]);
    }
  return s;
}

}  // namespace ksnap::realworld
