// libFuzzer target for the diff engine on two files: the first byte picks
// the dialect (stage ttir, llir, ptx, amdgcn, spv) and the normalize rules
// that are off, the rest is "BASE \0 HEAD". Both go through diff_builds as
// one variant of two in-memory builds, exactly as `ksnap diff` compares a
// stage: normalize both, then the structural diff. Single-file targets
// never reach the structural diff with two different modules.
// Checks: no crash; identical texts are unchanged with no hunks; the
// added/removed lines in the hunks add up to lines_added/lines_removed; the
// structural diff of the two modules gives the same output and symbol map
// with its equal-unit shortcut as without (StructuralOptions).
#include <cstdint>
#include <memory>
#include <string>

#include "diff/stage_dump.h"
#include "fuzz_util.h"
#include "ksnap/diff/engine.h"
#include "ksnap/diff/structural.h"
#include "ksnap/ir/lexer.h"
#include "ksnap/normalize/normalize.h"

using ksnap::fuzz::check;

namespace {

ksnap::build::Build one_variant(const char* name, const char* stage, std::string text) {
  ksnap::build::Build b;
  b.name = name;
  b.kind = ksnap::build::BuildKind::kMemory;
  ksnap::build::Variant v;
  v.kernel = "k";
  ksnap::build::StageFile file;
  file.stage = stage;
  file.path = std::string(name) + "/k." + stage;
  file.text = std::make_shared<const std::string>(std::move(text));
  v.stages.push_back(std::move(file));
  b.variants.push_back(std::move(v));
  return b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ksnap;
  if (size == 0) return 0;
  static const char* const kStages[] = {"ttir", "llir", "ptx", "amdgcn", "spv"};
  const char* stage = kStages[data[0] % 5];
  unsigned off = data[0] / 5;
  auto parts = fuzz::split_parts(data + 1, size - 1, 2);
  diff::DiffOptions o;
  o.jobs = 1;
  o.stages = {stage};
  o.normalize.rename_values = !(off & 1);
  o.normalize.rename_blocks = !(off & 2);
  o.normalize.rename_aliases = !(off & 4);
  o.normalize.drop_locations = !(off & 8);
  o.normalize.drop_comments = !(off & 16);
  o.normalize.max_line_bytes = 4096;
  const bool same = parts[0] == parts[1];
  ir::Dialect dialect;
  if (ir::dialect_for_stage(stage, &dialect)) {
    auto mb = norm::normalize(TextBuffer("base", parts[0]), dialect, o.normalize);
    auto mh = norm::normalize(TextBuffer("head", parts[1]), dialect, o.normalize);
    if (mb && mh) {
      diff::StageDiff fast, full;
      std::vector<int32_t> fast_map, full_map;
      diff::StructuralOptions so;
      diff::structural_diff(*mb, *mh, so, &fast, &fast_map);
      so.equal_units_by_position = false;
      diff::structural_diff(*mb, *mh, so, &full, &full_map);
      check(fast_map == full_map);
      check(testing::dump_structural(fast) == testing::dump_structural(full));
    }
  }
  auto r = diff::diff_builds(one_variant("base", stage, std::move(parts[0])),
                             one_variant("head", stage, std::move(parts[1])), o);
  if (!r) return 0;  // malformed IR in either file: a located error
  for (const auto& v : r->variants) {
    for (const auto& sd : v.stages) {
      if (same) check(sd.status == diff::ChangeStatus::kUnchanged && sd.hunks.empty());
      uint32_t added = 0, removed = 0;
      for (const auto& h : sd.hunks)
        for (const auto& l : h.lines) {
          added += l.kind == diff::LineKind::kAdded;
          removed += l.kind == diff::LineKind::kRemoved;
        }
      if (sd.fallback.empty() && !sd.hunks.empty())
        check(added == sd.lines_added && removed == sd.lines_removed);
    }
  }
  return 0;
}
