// Prints the per-pair figures of `ksnap diff` on a corpus against its truth:
// variants, stages compared, changed, false changes, misses, pairing errors,
// crashes and time (the realworld table of docs/benchmarks.md).
//
//   realworld_figures KSNAP CORPUS_DIR [TRUTH_JSON] [--problems]
//   build/tests/realworld_figures build/ksnap tests/fixtures/realworld
//
// Exit status: 0 when every pair is clean, 1 otherwise, 2 for usage errors.
#include <cstdio>
#include <cstring>
#include <string>

#include "realworld/scoring.h"

int main(int argc, char** argv) {
  using namespace ksnap::realworld;
  bool show_problems = false;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--problems") == 0) show_problems = true;
    else args.push_back(argv[i]);
  }
  if (args.size() < 2 || args.size() > 3) {
    std::fprintf(stderr, "usage: realworld_figures KSNAP CORPUS_DIR [TRUTH_JSON] [--problems]\n");
    return 2;
  }
  Corpus c = load_corpus(args[1], args[1], args.size() == 3 ? args[2] : args[1] + "/truth.json");
  if (!c.error.empty()) {
    std::fprintf(stderr, "realworld_figures: %s\n", c.error.c_str());
    return 2;
  }
  std::printf("| pair | variants | stages compared | changed (truth) | reported changed | false | "
              "missed | unstable | pairing errors | crash | exit | seconds |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |\n");
  bool clean = true;
  PairScore total;
  size_t crashes = 0;
  for (const std::string& pair : pair_names(c)) {
    PairScore s = score_pair(args[0], c, pair);
    std::printf("| %s | %zu | %zu | %zu | %zu | %zu | %zu | %zu | %zu | %s | %d | %.2f |\n", pair.c_str(),
                s.variants, s.stages_compared, s.changed_truth, s.reported_changed, s.false_changes,
                s.misses, s.unstable, s.pairing_errors, s.crashed ? "**yes**" : "no", s.exit_code,
                s.seconds);
    clean = clean && s.exit_code == 0 && !s.false_changes && !s.misses && !s.pairing_errors;
    total.variants += s.variants;
    total.stages_compared += s.stages_compared;
    total.changed_truth += s.changed_truth;
    total.reported_changed += s.reported_changed;
    total.false_changes += s.false_changes;
    total.misses += s.misses;
    total.unstable += s.unstable;
    total.pairing_errors += s.pairing_errors;
    total.seconds += s.seconds;
    crashes += s.crashed;
    if (show_problems) {
      if (!s.error.empty()) std::fprintf(stderr, "%s: %s\n", pair.c_str(), s.error.c_str());
      for (const auto& p : s.problems) std::fprintf(stderr, "%s: %s\n", pair.c_str(), p.c_str());
    }
  }
  std::printf("| **all %zu pairs** | %zu | %zu | %zu | %zu | %zu | %zu | %zu | %zu | %zu crashed | | %.2f |\n",
              pair_names(c).size(), total.variants, total.stages_compared, total.changed_truth,
              total.reported_changed, total.false_changes, total.misses, total.unstable,
              total.pairing_errors, crashes, total.seconds);
  return clean ? 0 : 1;
}
