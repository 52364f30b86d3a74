// Where changed variants changed first: per paired variant the earliest
// stage with a real change (diff::first_changed_stage), counted per layer of
// the compiler.
//
// Worked example: an LLVM upgrade that leaves Triton's IR alone:
//   first_changed_layers [{llvm-middle-end, 3, [llir 3]}, {llvm-backend, 41, [ptx 41]}]
//   layers_text "changed first in LLVM's middle end: 3 variants (llir 3); in
//                LLVM's backend: 41 (ptx 41)"
#include <algorithm>

#include "report/deltas.h"

namespace ksnap::report {

void add_first_changed(const diff::DiffResult& r, Report* rep) {
  rep->first_changed.assign(r.variants.size(), nullptr);
  std::vector<LayerCount> layers;
  for (size_t vi = 0; vi < r.variants.size(); ++vi) {
    const diff::StageDiff* s = diff::first_changed_stage(r.variants[vi]);
    rep->first_changed[vi] = s;
    if (!s) continue;
    diff::Layer l = diff::stage_layer(s->stage);
    auto it = std::find_if(layers.begin(), layers.end(),
                           [l](const LayerCount& c) { return c.layer == l; });
    if (it == layers.end()) it = layers.insert(layers.end(), LayerCount{l, 0, {}});
    ++it->variants;
    auto st = std::find_if(it->stages.begin(), it->stages.end(),
                           [s](const auto& p) { return p.first == s->stage; });
    if (st == it->stages.end()) st = it->stages.insert(it->stages.end(), {s->stage, 0});
    ++st->second;
  }
  // Pipeline order: layers by their enum order; stages of a layer by the
  // report's stage order (binaries after).
  std::stable_sort(layers.begin(), layers.end(),
                   [](const LayerCount& a, const LayerCount& b) { return a.layer < b.layer; });
  auto rank = [rep](const std::string& stage) {
    auto it = std::find(rep->stages.begin(), rep->stages.end(), stage);
    return it - rep->stages.begin();
  };
  for (LayerCount& c : layers)
    std::stable_sort(c.stages.begin(), c.stages.end(),
                     [&rank](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
  std::string text;
  for (size_t i = 0; i < layers.size(); ++i) {
    const LayerCount& c = layers[i];
    text += i ? "; in " : "changed first in ";
    text += diff::layer_prose(c.layer);
    text += ": " + std::to_string(c.variants) +
            (i == 0 ? (c.variants == 1 ? " variant" : " variants") : "") + " (";
    for (size_t j = 0; j < c.stages.size(); ++j)
      text += (j ? ", " : "") + c.stages[j].first + " " + std::to_string(c.stages[j].second);
    text += ")";
  }
  rep->layers_text = std::move(text);
  rep->first_changed_layers = std::move(layers);
}

}  // namespace ksnap::report
