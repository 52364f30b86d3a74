#include "ksnap/diff/result.h"

namespace ksnap::diff {

const char* status_name(ChangeStatus s) {
  switch (s) {
    case ChangeStatus::kUnchanged: return "unchanged";
    case ChangeStatus::kChanged: return "changed";
    case ChangeStatus::kAdded: return "added";
    case ChangeStatus::kRemoved: return "removed";
  }
  return "?";
}

const char* pairing_name(Pairing p) {
  switch (p) {
    case Pairing::kExact: return "exact";
    case Pairing::kOptionsDiffer: return "options_differ";
    case Pairing::kInferred: return "inferred";
    case Pairing::kAdded: return "added";
    case Pairing::kRemoved: return "removed";
    case Pairing::kNotRebuilt: return "not_rebuilt";
  }
  return "?";
}

bool VariantDiff::changed() const {
  for (const auto& s : stages)
    if (s.status != ChangeStatus::kUnchanged) return true;
  return pairing == Pairing::kAdded || pairing == Pairing::kRemoved;
}

bool VariantDiff::real_change() const {
  for (const auto& s : stages)
    if (s.status != ChangeStatus::kUnchanged && !s.unstable) return true;
  return pairing == Pairing::kAdded || pairing == Pairing::kRemoved;
}

const StageDiff* VariantDiff::stage(const std::string& name) const {
  for (const auto& s : stages)
    if (s.stage == name) return &s;
  return nullptr;
}

bool DiffResult::any_change() const {
  for (const auto& v : variants)
    if (v.changed()) return true;
  return false;
}

bool DiffResult::any_real_change() const {
  for (const auto& v : variants)
    if (v.real_change()) return true;
  return false;
}

size_t DiffResult::unstable_stage_count() const {
  size_t n = 0;
  for (const auto& v : variants)
    for (const auto& s : v.stages) n += s.status != ChangeStatus::kUnchanged && s.unstable;
  return n;
}

size_t DiffResult::changed_stage_count() const {
  size_t n = 0;
  for (const auto& v : variants)
    for (const auto& s : v.stages) n += s.status != ChangeStatus::kUnchanged;
  return n;
}

}  // namespace ksnap::diff
