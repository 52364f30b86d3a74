// Pairing cost (diff::pair_variants) on a 10,000-variant pair, with and
// without kernel sources to match.
//
// The pair replicates the shared corpus's 19 variants 527 times in memory
// (replica k gets the constexpr REPLICA=k; BASE from `base`, HEAD from
// `noise`). Three shapes of identity:
//   unknown    no qualname/source_file (corpus manifests): one source per kernel;
//   one file   every kernel in one __main__ script, BASE /ci/a/bench/suite.py and
//              HEAD /ci/b/bench/suite.py (another checkout: matched by path tail);
//   527 files  replica k in script s<k>.py, BASE under /ci/a, HEAD under /ci/b:
//              527 sources of each kernel name to match (a pathological suite).
// Prints the CPU time of pair_variants (best of 5) and the number of exact pairs.
//
// Usage: pairing_bench [CORPUS_DIR]
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string>

#include "ksnap/build/build.h"
#include "ksnap/diff/pairing.h"

using namespace ksnap;

int main(int argc, char** argv) {
  const std::string corpus = argc > 1 ? argv[1] : KSNAP_CORPUS_DIR;
  auto b = build::load_build(corpus + "/base");
  auto h = build::load_build(corpus + "/noise");
  if (!b || !h) {
    std::fprintf(stderr, "pairing_bench: %s\n",
                 (b ? h.status() : b.status()).to_string().c_str());
    return 2;
  }
  enum Shape { kUnknown, kOneFile, kManyFiles };
  for (Shape shape : {kUnknown, kOneFile, kManyFiles}) {
    build::Build base = *b, head = *h;
    base.variants.clear();
    head.variants.clear();
    for (int k = 0; k < 527; ++k)
      for (size_t i = 0; i < b->variants.size() && i < h->variants.size(); ++i) {
        build::Variant v = b->variants[i], w = h->variants[i];
        v.constexprs["REPLICA"] = w.constexprs["REPLICA"] = std::to_string(k);
        if (shape != kUnknown) {
          std::string file = "suite.py";
          if (shape == kManyFiles) file = std::string("s").append(std::to_string(k)).append(".py");
          v.qualname = w.qualname = "__main__." + v.kernel;
          v.source_file = std::string("/ci/a/bench/").append(file);
          w.source_file = std::string("/ci/b/bench/").append(file);
        }
        base.variants.push_back(std::move(v));
        head.variants.push_back(std::move(w));
      }
    double best_ms = 1e300;
    size_t exact = 0;
    for (int rep = 0; rep < 5; ++rep) {
      std::clock_t c0 = std::clock();
      std::vector<diff::VariantPair> pairs = diff::pair_variants(base, head);
      std::clock_t c1 = std::clock();
      best_ms = std::min(best_ms, 1000.0 * static_cast<double>(c1 - c0) / CLOCKS_PER_SEC);
      exact = static_cast<size_t>(std::count_if(pairs.begin(), pairs.end(), [](const auto& p) {
        return p.kind == diff::Pairing::kExact;
      }));
    }
    const char* name = shape == kUnknown ? "unknown" : shape == kOneFile ? "one file" : "527 files";
    std::printf("%-10s %zu variants: %zu exact pairs, pair_variants %.1f ms CPU (best of 5)\n",
                name, base.variants.size(), exact, best_ms);
  }
  return 0;
}
