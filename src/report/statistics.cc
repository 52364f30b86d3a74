// fossil-db-style statistics of a diff result, per stage.
//
// Worked example (two paired variants, PTX changed in both):
//   variant A: instructions 100 -> 90, ptx.reg.b32 40 -> 40
//   variant B: instructions 200 -> 210, ptx.reg.b32 60 -> 64
// gives for stage "ptx": affected 2 of 2;
//   instructions  helped 1, hurt 1, 300 -> 300 (+0.00%)
//   ptx.reg.b32   helped 0, hurt 1, 100 -> 104 (+4.00%)
// Sums run over the affected variants only (those whose stage changed), so a
// change to 3 variants of 10,000 reads as what it is, not as 0.01%.
#include "report/statistics.h"

#include <algorithm>
#include <map>

#include "ksnap/build/build.h"
#include "ksnap/diff/statistics.h"
#include "ksnap/support/figures.h"

namespace ksnap::report {

namespace {

bool paired(const diff::VariantDiff& v) {
  return v.pairing != diff::Pairing::kAdded && v.pairing != diff::Pairing::kRemoved;
}

bool real_change(const diff::StageDiff& s) {
  return s.status == diff::ChangeStatus::kChanged && !s.unstable;
}

/// Rank of a statistic in a stage's table: instruction count, classes in
/// their fixed order, registers, shared memory, then code size.
int stat_rank(const std::string& name) {
  if (name == "instructions") return 0;
  if (name.rfind("class.", 0) == 0) {
    int k = 1;
    for (const char* c : diff::kInstructionClasses) {
      if (name.substr(6) == c) return k;
      ++k;
    }
    return 20;
  }
  if (name == "n_regs") return 30;
  if (name == "n_spills") return 31;
  if (name.find("reg") != std::string::npos) return 32;
  if (name.find("shared") != std::string::npos) return 40;
  if (name == "lines") return 50;
  if (name == "bytes") return 51;
  return 45;
}

/// Adds (base, head) of one variant to the statistic `name` of `acc`.
void add(std::map<std::string, Statistic>* acc, const std::string& name, diff::FigurePair p) {
  Statistic& s = (*acc)[name];
  s.name = name;
  if (p.first < 0 || p.second < 0) return;
  ++s.counted;
  s.base = saturating_add(s.base, p.first);
  s.head = saturating_add(s.head, p.second);
  s.helped += p.second < p.first;
  s.hurt += p.second > p.first;
}

StageStatistics finish(std::string stage, size_t affected, size_t total,
                       std::map<std::string, Statistic> acc) {
  StageStatistics out;
  out.stage = std::move(stage);
  out.affected = affected;
  out.total = total;
  for (auto& [name, s] : acc)
    if (s.helped || s.hurt || (name == "instructions" && s.counted)) out.rows.push_back(s);
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const Statistic& a, const Statistic& b) {
    return stat_rank(a.name) < stat_rank(b.name);
  });
  return out;
}

}  // namespace

std::vector<StageStatistics> compute_statistics(const diff::DiffResult& r,
                                                const std::vector<std::string>& stages) {
  std::vector<StageStatistics> out;
  // Figures of the loaded kernel: affected when any stage changed for real or
  // a figure differs.
  {
    std::map<std::string, Statistic> acc;
    size_t affected = 0, total = 0;
    bool any_figure = false;
    for (const auto& v : r.variants) {
      if (!paired(v)) continue;
      ++total;
      any_figure |= !v.resources.empty();
      bool hit = std::any_of(v.stages.begin(), v.stages.end(), real_change);
      for (const auto& [k, p] : v.resources) hit |= p.first >= 0 && p.second >= 0 && p.first != p.second;
      if (!hit) continue;
      ++affected;
      for (const auto& [k, p] : v.resources) add(&acc, k, p);
    }
    if (any_figure && affected) out.push_back(finish("binary", affected, total, std::move(acc)));
  }
  for (const std::string& st : stages) {
    std::map<std::string, Statistic> acc;
    size_t affected = 0, total = 0;
    for (const auto& v : r.variants) {
      if (!paired(v)) continue;
      const diff::StageDiff* s = v.stage(st);
      if (!s || s->status == diff::ChangeStatus::kAdded || s->status == diff::ChangeStatus::kRemoved)
        continue;
      ++total;
      if (!real_change(*s)) continue;
      ++affected;
      for (const auto& [k, p] : s->stats) add(&acc, k, p);
      for (const auto& [k, p] : s->resources) add(&acc, k, p);
      if (s->binary) add(&acc, "bytes", s->bytes);
    }
    if (affected) out.push_back(finish(st, affected, total, std::move(acc)));
  }
  // Binary artifacts (cubin, hsaco, ...): code size in bytes, where it changed.
  std::vector<std::string> binaries;
  for (const auto& v : r.variants)
    for (const auto& b : v.binaries)
      if (std::find(binaries.begin(), binaries.end(), b.stage) == binaries.end()) binaries.push_back(b.stage);
  for (const std::string& st : binaries) {
    std::map<std::string, Statistic> acc;
    size_t affected = 0, total = 0;
    for (const auto& v : r.variants) {
      if (!paired(v)) continue;
      for (const auto& b : v.binaries) {
        if (b.stage != st || b.status == diff::ChangeStatus::kAdded || b.status == diff::ChangeStatus::kRemoved)
          continue;
        ++total;
        if (b.status != diff::ChangeStatus::kChanged || b.unstable) continue;
        ++affected;
        add(&acc, "bytes", b.bytes);
      }
    }
    if (affected) out.push_back(finish(st, affected, total, std::move(acc)));
  }
  return out;
}

std::optional<double> Statistic::percent() const {
  if (base == 0) return std::nullopt;
  return 100.0 * static_cast<double>(head - base) / static_cast<double>(base);
}

}  // namespace ksnap::report
