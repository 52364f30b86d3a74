// The diff engine: pair variants, then compare every (variant, stage) on a
// pool of worker threads. Per stage, cheapest test first:
//   byte-identical files          -> unchanged (nothing normalized);
//   equal normalized hashes       -> unchanged (no diff built); a side whose
//                                    source kept its hash (StageFile::
//                                    normalized_hash: a recorded commit) is
//                                    not normalized for this test, and HEAD
//                                    bytes equal to what a recorded file had
//                                    (StageFile::raw_hash) are unchanged, and
//                                    so are HEAD bytes any record read
//                                    whose kept hash matches
//                                    (Build::known_texts);
//   otherwise                     -> normalize both, structural diff.
// A stage that cannot be read, normalized or diffed never fails the run: it
// gets StageDiff::fallback (the reason, with file:line for malformed IR) and
// a status decided by bytes or hashes.
// Binary artifacts (cubin, hsaco, zebin, binary .spv) are never parsed: their
// bytes are hashed and sized into VariantDiff::binaries, e.g.
//   cubin  changed  base 37544 B 9f3c...  head 37800 B 41aa...
#include "ksnap/diff/engine.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <unordered_set>

#include "diff/binary_figures.h"
#include "ksnap/diff/pairing.h"
#include "ksnap/diff/statistics.h"
#include "ksnap/diff/structural.h"
#include "ksnap/support/file.h"
#include "ksnap/support/guarded.h"
#include "ksnap/support/hash.h"

namespace ksnap::diff {
using ::ksnap::Status;

namespace {

struct Task {
  size_t variant;
  size_t stage_slot;
  const build::StageFile* base;
  const build::StageFile* head;
  bool binary = false;  ///< Slot in VariantDiff::binaries, compared by bytes.
  /// Texts BASE's source has seen (Build::known_texts), or null.
  const build::KnownTexts* known = nullptr;
  /// The stage files belong to builds this diff consumes (diff_builds of
  /// rvalues): once compared, their paths move into the StageDiff.
  bool owned = false;
};

/// Moves an owned task's paths into its StageDiff (they are no longer read).
/// The builds are the consuming diff_builds' own, so the stage files are
/// not const objects: only the Task's view of them is.
void move_paths(const Task& t, StageDiff* sd) {
  if (t.base) sd->base_path = std::move(const_cast<build::StageFile*>(t.base)->path);
  if (t.head) sd->head_path = std::move(const_cast<build::StageFile*>(t.head)->path);
}

/// Hash and size of a binary artifact's bytes.
Status hash_bytes(const build::StageFile& f, uint64_t* hash, int64_t* size) {
  if (f.text) {
    *hash = hash64(*f.text);
    *size = static_cast<int64_t>(f.text->size());
    return Status::ok();
  }
  KSNAP_ASSIGN_OR_RETURN(std::string bytes, read_binary_file(f.path));
  *hash = hash64(bytes);
  *size = static_cast<int64_t>(bytes.size());
  return Status::ok();
}

Status compare_binary(const Task& t, StageDiff* sd) {
  sd->binary = true;
  if (t.base) {
    sd->base_path = t.base->path;
    KSNAP_RETURN_IF_ERROR(hash_bytes(*t.base, &sd->base_hash, &sd->bytes.first));
  }
  if (t.head) {
    sd->head_path = t.head->path;
    KSNAP_RETURN_IF_ERROR(hash_bytes(*t.head, &sd->head_hash, &sd->bytes.second));
  }
  if (!t.base || !t.head) {
    sd->status = t.base ? ChangeStatus::kRemoved : ChangeStatus::kAdded;
  } else {
    bool same = sd->base_hash == sd->head_hash && sd->bytes.first == sd->bytes.second;
    sd->status = same ? ChangeStatus::kUnchanged : ChangeStatus::kChanged;
  }
  return Status::ok();
}

Expected<norm::Module> load_module(const build::StageFile& f, const norm::NormalizeOptions& o) {
  ir::Dialect d;
  if (!ir::dialect_for_stage(f.stage, &d))
    return make_error(ErrorCode::kUnsupported, "no lexer for stage '" + f.stage + "'",
                      {f.path, 0, 0});
  KSNAP_ASSIGN_OR_RETURN(TextBuffer buf, build::read_stage(f));
  auto m = norm::normalize(buf, d, o);
  if (!m) return m.status().with_file(f.path);
  return m;
}

uint32_t line_count(const norm::Module& m) {
  uint32_t n = 0;
  for (const auto& u : m.units) n += static_cast<uint32_t>(u.lines.size());
  return n;
}

void fill_ir_resources(const norm::Module* b, const norm::Module* h, StageDiff* sd) {
  if (b)
    for (const auto& [k, v] : b->resources) sd->resources[k] = {v, -1};
  if (h)
    for (const auto& [k, v] : h->resources) {
      auto it = sd->resources.find(k);
      if (it == sd->resources.end())
        sd->resources[k] = {-1, v};
      else
        it->second.second = v;
    }
}

/// Report statistics of the normalized modules (either may be null).
void fill_statistics(const norm::Module* b, const norm::Module* h, StageDiff* sd) {
  for (const auto* m : {b, h}) {
    if (!m) continue;
    for (const auto& [k, v] : stage_statistics(*m, sd->stage)) {
      auto& fp = sd->stats.try_emplace(k, FigurePair{-1, -1}).first->second;
      (m == b ? fp.first : fp.second) = v;
    }
  }
}

/// "BASE x.llir:12:3: parse error: unterminated string" for one side's error.
std::string side_error(bool base, const Status& s) {
  return std::string(base ? "BASE " : "HEAD ") + s.to_string();
}

/// Marks a paired stage whose input failed on one or both sides: changed (the
/// bytes differ or could not be compared), with both sides' errors and `then`.
void input_failed(const Task& t, const Status& b, const Status& h, const char* then,
                  StageDiff* sd) {
  sd->status = ChangeStatus::kChanged;
  std::string why;
  if (!b.is_ok()) why = side_error(true, b.with_file(t.base->path));
  if (!h.is_ok()) why += (why.empty() ? "" : "; ") + side_error(false, h.with_file(t.head->path));
  sd->fallback = why + "; " + then;
  sd->input_error = true;
}

/// A stage present on one side only: added or removed whatever its text;
/// a file that cannot be read or normalized gives no counts and says why.
void one_sided_task(const Task& t, const DiffOptions& opts, StageDiff* sd) {
  bool base = t.base != nullptr;
  const build::StageFile& f = base ? *t.base : *t.head;
  sd->status = base ? ChangeStatus::kRemoved : ChangeStatus::kAdded;
  auto m = load_module(f, opts.normalize);
  if (!m) {
    sd->fallback = side_error(base, m.status()) + "; not normalized, no line counts";
    sd->input_error = true;
    return;
  }
  (base ? sd->lines_removed : sd->lines_added) = line_count(*m);
  (base ? sd->base_hash : sd->head_hash) = m->hash;
  for (const auto& [op, n] : norm::op_counts(*m)) sd->op_deltas[op] = base ? -n : n;
  fill_ir_resources(base ? &*m : nullptr, base ? nullptr : &*m, sd);
  fill_statistics(base ? &*m : nullptr, base ? nullptr : &*m, sd);
}

/// Compares one stage of a paired variant. Never fails: a stage that cannot
/// be read, normalized or diffed gets `fallback` (the reason, with the
/// file:line of malformed input) and a status decided by what could be
/// compared (bytes, then normalized hashes).
/// A stage whose BASE side is a recorded commit's (its text in memory, with
/// the recorded file's raw hash and/or a kept normalized hash) is decided by
/// HEAD alone when it is unchanged, BASE's text neither copied nor
/// normalized: HEAD's bytes equal the blob's text or the recorded file's
/// bytes (unchanged under any rules), or HEAD normalizes to the kept hash
/// (default rules only); two recorded sides compare kept hashes. Returns
/// false when the stage needs the general path, leaving HEAD's text in
/// `head` when it was read.
bool decided_without_base_text(const Task& t, const DiffOptions& opts, ir::Dialect d,
                               std::optional<Expected<TextBuffer>>* head, StageDiff* sd) {
  const build::StageFile& base = *t.base;
  const bool kept = base.normalized_hash && opts.normalize == norm::NormalizeOptions{};
  if (!base.text || (!kept && base.raw_hash.empty())) return false;
  if (kept && t.head->normalized_hash && *t.head->normalized_hash == *base.normalized_hash) {
    sd->base_hash = sd->head_hash = *base.normalized_hash;  // two recorded commits
    sd->status = ChangeStatus::kUnchanged;
    return true;
  }
  head->emplace(build::read_stage(*t.head));
  const Expected<TextBuffer>& hb = **head;
  if (!hb) return false;
  const std::string& base_text = *base.text;
  if (base_text.size() == hb->size() && std::string_view(base_text) == hb->view()) {
    sd->status = ChangeStatus::kUnchanged;  // the bytes BASE had (NUL-checked as HEAD's)
    return true;
  }
  // XXH3-128 of HEAD's bytes, only when something can be looked up by it.
  const std::string head_raw =
      base.raw_hash.empty() && !(kept && t.known) ? std::string() : hash128_hex(hb->view());
  if (!base.raw_hash.empty() && head_raw == base.raw_hash) {
    sd->status = ChangeStatus::kUnchanged;
    return true;
  }
  if (!kept) return false;
  // HEAD's bytes as some record read them (any commit, any variant): their
  // hash under these rules is known, so they need no normalizing to match.
  if (t.known) {  // (head_raw is set: kept && t.known)
    std::optional<uint64_t> seen = t.known->normalized_hash(head_raw, ir::dialect_name(d));
    if (seen && *seen == *base.normalized_hash) {
      sd->base_hash = sd->head_hash = *seen;
      sd->status = ChangeStatus::kUnchanged;
      return true;
    }
    if (seen) return false;  // changed: the general path normalizes both sides
  }
  auto hh = norm::normalized_hash(*hb, d);
  if (!hh || *hh != *base.normalized_hash) return false;
  sd->base_hash = *base.normalized_hash;
  sd->head_hash = *hh;
  sd->status = ChangeStatus::kUnchanged;
  return true;
}

void run_task(const Task& t, const DiffOptions& opts, StageDiff* sd) {
  if (!t.owned) {  // an owned stage file's path moves in once it is compared
    if (t.base) sd->base_path = t.base->path;
    if (t.head) sd->head_path = t.head->path;
  }
  if (!t.base || !t.head) return one_sided_task(t, opts, sd);
  ir::Dialect d;
  const bool lexed = ir::dialect_for_stage(t.base->stage, &d);
  std::optional<Expected<TextBuffer>> head_read;
  if (lexed && decided_without_base_text(t, opts, d, &head_read, sd)) return;
  auto bb = build::read_stage(*t.base);
  auto hb = head_read ? std::move(*head_read) : build::read_stage(*t.head);
  if (!bb || !hb) {
    // Nothing to compare: reported as changed, never silently unchanged.
    return input_failed(t, bb.status(), hb.status(), "not compared", sd);
  }
  if (bb->view() == hb->view()) {
    // Byte-identical: unchanged, nothing normalized (identical input cannot
    // hold a change; a malformed file is reported when it differs).
    sd->status = ChangeStatus::kUnchanged;
    return;
  }
  if (!lexed) {
    sd->status = ChangeStatus::kChanged;
    sd->fallback = "no normalizer for stage '" + t.base->stage + "'; compared by bytes";
    return;
  }
  // A hash the source kept (the history store) stands in for normalizing
  // that side again, when it was made with the same (default) rules.
  const bool default_rules = opts.normalize == norm::NormalizeOptions{};
  auto kept = [&](const build::StageFile& f) { return default_rules && f.normalized_hash; };
  auto hash_of = [&](const build::StageFile& f, const TextBuffer& text) -> Expected<uint64_t> {
    if (kept(f)) return *f.normalized_hash;
    return norm::normalized_hash(text, d, opts.normalize);
  };
  // A big file (1 MiB or more) is seldom diffed unchanged: BASE's module is
  // built at once (its hash comes with it) and its text freed, and HEAD is
  // scanned once, for its hash and, when that differs, its module. A small
  // file is hashed only and normalized again if it differs: most small stage
  // files of a suite are unchanged, and the scan that can build a module
  // costs more than hashing alone (5% when measured, before the hash-only
  // scan passed over MLIR's and PTX's location lines unlexed; more since),
  // building the module about 30% more. One scan alive at a time: a big
  // pair holds BASE's module, HEAD's scan and HEAD's module at its peak, as
  // before. A side whose hash the source kept is never scanned for it.
  constexpr size_t kScanOnceBytes = size_t{1} << 20;
  auto scan_once = [&](const build::StageFile& f, const TextBuffer& text) {
    return !kept(f) && text.size() >= kScanOnceBytes;
  };
  std::optional<Expected<norm::Module>> base_module;
  Expected<uint64_t> hbase = uint64_t{0};
  if (!scan_once(*t.base, *bb)) {
    hbase = hash_of(*t.base, *bb);
  } else {
    base_module.emplace(norm::normalize(*bb, d, opts.normalize));
    if (*base_module) {
      hbase = (*base_module)->hash;
      std::move(*bb).release();
    } else {
      hbase = base_module->status();
    }
  }
  std::optional<Expected<norm::Normalization>> head_scan;
  Expected<uint64_t> hhead = uint64_t{0};
  if (!scan_once(*t.head, *hb)) {
    hhead = hash_of(*t.head, *hb);
  } else {
    head_scan.emplace(norm::Normalization::run(*hb, d, opts.normalize));
    if (*head_scan) hhead = (*head_scan)->hash();
    else hhead = head_scan->status();
  }
  if (!hbase || !hhead) {
    return input_failed(t, hbase.status(), hhead.status(), "not normalized, compared by bytes", sd);
  }
  sd->base_hash = *hbase;
  sd->head_hash = *hhead;
  if (*hbase == *hhead) {
    sd->status = ChangeStatus::kUnchanged;
    return;
  }
  sd->status = ChangeStatus::kChanged;
  // HEAD's module first (from its scan, if kept), then BASE's (if not
  // built yet): one scan alive at a time. Each side's text goes as soon as
  // its module holds what it needs (the module copies its lines).
  Expected<norm::Module> mh = head_scan ? Expected<norm::Module>(std::move(**head_scan).module())
                                        : norm::normalize(*hb, d, opts.normalize);
  head_scan.reset();
  std::move(*hb).release();
  Expected<norm::Module> mb =
      base_module ? std::move(*base_module) : norm::normalize(*bb, d, opts.normalize);
  base_module.reset();
  std::move(*bb).release();
  if (!mb || !mh) {  // cannot happen when the hashes succeeded; stated if it does
    return input_failed(t, mb.status(), mh.status(), "compared by normalized hash", sd);
  }
  structural_diff(*mb, *mh, StructuralOptions{opts.kept_context}, sd);
  // The normalizer's own fallbacks are stated like the diff's.
  for (const norm::Module* m : {&*mb, &*mh}) {
    if (m->fallback.empty()) continue;
    if (!sd->fallback.empty()) sd->fallback += "; ";
    sd->fallback += (m == &*mb ? "BASE " : "HEAD ") + m->file + ": " + m->fallback;
  }
  sd->op_deltas = op_count_deltas(*mb, *mh);
  fill_ir_resources(&*mb, &*mh, sd);
  fill_statistics(&*mb, &*mh, sd);
}

/// run_task, and a stage that still fails (out of memory on a huge input)
/// keeps its status decided by bytes, with the reason.
void run_task_guarded(const Task& t, const DiffOptions& opts, StageDiff* sd) {
  try {
    run_task(t, opts, sd);
  } catch (const std::exception& e) {
    StageDiff fresh;
    fresh.stage = sd->stage;
    fresh.base_path = sd->base_path;
    fresh.head_path = sd->head_path;
    fresh.status = !t.base   ? ChangeStatus::kAdded
                   : !t.head ? ChangeStatus::kRemoved
                             : ChangeStatus::kChanged;
    fresh.fallback = std::string("not compared: ") + e.what();
    *sd = std::move(fresh);
  }
}

/// Jaccard similarity of line-shape sets of the first stage both variants
/// have; used only to pair bare-cache variants.
struct SimilarityCtx {
  norm::NormalizeOptions opts;
  std::map<const build::Variant*, std::unordered_set<uint64_t>> cache;
  const std::unordered_set<uint64_t>& shapes(const build::Variant& v, const std::string& stage) {
    auto it = cache.find(&v);
    if (it != cache.end()) return it->second;
    std::unordered_set<uint64_t>& s = cache[&v];
    if (const build::StageFile* f = v.stage(stage)) {
      auto m = load_module(*f, opts);
      if (m)
        for (const auto& u : m->units)
          for (const auto& l : u.lines) s.insert(hash64(l.shape));
    }
    return s;
  }
};

double similarity(const build::Variant& b, const build::Variant& h, void* p) {
  auto* ctx = static_cast<SimilarityCtx*>(p);
  std::string stage;
  for (const auto& s : b.stages)
    if (h.stage(s.stage)) {
      stage = s.stage;
      break;
    }
  if (stage.empty()) return 0;
  const auto& x = ctx->shapes(b, stage);
  const auto& y = ctx->shapes(h, stage);
  if (x.empty() && y.empty()) return 1;
  size_t inter = 0;
  for (uint64_t k : x) inter += y.count(k);
  return static_cast<double>(inter) / static_cast<double>(x.size() + y.size() - inter);
}

using GroupKey = std::tuple<std::string, std::string, std::string, uint64_t, bool>;

GroupKey group_key(const VariantDiff& v, const StageDiff& s) {
  return {v.key.kernel, v.source, s.stage, s.change_signature, s.unstable};
}

void build_groups(DiffResult* r) {
  std::map<GroupKey, size_t> index;
  for (size_t vi = 0; vi < r->variants.size(); ++vi) {
    VariantDiff& v = r->variants[vi];
    for (StageDiff& s : v.stages) {
      if (s.status != ChangeStatus::kChanged) continue;
      auto [it, fresh] = index.emplace(group_key(v, s), r->groups.size());
      if (fresh) {
        ChangeGroup g;
        g.kernel = v.key.kernel;
        g.source = v.source;
        g.label = v.label;
        g.stage = s.stage;
        g.signature = s.change_signature;
        g.unstable = s.unstable;
        g.lines_added = s.lines_added;
        g.lines_removed = s.lines_removed;
        r->groups.push_back(g);
      }
      ChangeGroup& g = r->groups[it->second];
      g.variants.push_back(vi);
      g.weight += s.lines_added + s.lines_removed;
    }
  }
  std::vector<size_t> order(r->groups.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const ChangeGroup &x = r->groups[a], &y = r->groups[b];
    if (x.unstable != y.unstable) return y.unstable;  // real changes first
    return x.weight > y.weight;
  });
  std::vector<ChangeGroup> sorted;
  std::vector<int32_t> new_index(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    new_index[order[k]] = static_cast<int32_t>(k);
    sorted.push_back(std::move(r->groups[order[k]]));
  }
  r->groups = std::move(sorted);
  for (VariantDiff& v : r->variants)
    for (StageDiff& s : v.stages) {
      if (s.status != ChangeStatus::kChanged) continue;
      auto it = index.find(group_key(v, s));
      s.group = new_index[it->second];
    }
}

/// Fills VariantDiff::label: the kernel name, plus the shortest tail of
/// the source that tells apart kernels sharing that name
/// (build::kernel_labels). `variant_of` gives a variant defined in each
/// source (its kind decides the spelling).
/// Frees what a build variant holds of its identity but its kernel name
/// (an owned build's HEAD variant once its result has read it).
void release_identity(build::Variant* v) {
  std::string().swap(v->qualname);
  std::string().swap(v->source_file);
  std::string().swap(v->key);
  std::string().swap(v->signature);
  std::map<std::string, std::string>().swap(v->constexprs);
  std::map<std::string, std::string>().swap(v->options);
}

/// An owned build's launch figures of pair `p` once copied into its
/// VariantDiff::resources: freed, with the cache folder's name (read by
/// nothing later). add_binary_figures reads them back from the result (a
/// side's map left empty); a map holding a -1, which FigurePair cannot tell
/// from "absent", is kept.
void release_launch_figures(const VariantPair& p, build::Build* base, build::Build* head) {
  for (build::Variant* side : {p.base >= 0 ? &base->variants[p.base] : nullptr,
                               p.head >= 0 ? &head->variants[p.head] : nullptr}) {
    if (!side) continue;
    std::string().swap(side->cache_dir);
    if (std::none_of(side->resources.begin(), side->resources.end(),
                     [](const auto& kv) { return kv.second == -1; }))
      std::map<std::string, int64_t>().swap(side->resources);
  }
}

/// `variant_of`: source -> index of a result variant whose key is a
/// variant defined there.
void label_kernels(const std::map<std::string, size_t>& variant_of, DiffResult* r) {
  std::vector<build::KernelSource> kernels;
  for (const VariantDiff& v : r->variants) {
    auto it = variant_of.find(v.source);
    kernels.push_back({v.key.kernel, v.source,
                       it == variant_of.end() ? nullptr : &r->variants[it->second].key});
  }
  auto label = build::kernel_labels(kernels);
  for (VariantDiff& v : r->variants) {
    auto it = label.find({v.key.kernel, v.source});
    v.label = it != label.end() ? it->second : v.key.kernel;
  }
}

/// Stage names of the pair's binary artifacts (kBinaryStages order, then
/// others such as a binary `spv`), limited to `wanted` when it is not empty.
std::vector<std::string> binary_stage_names(const build::Variant* b, const build::Variant* h,
                                            const std::vector<std::string>& wanted) {
  auto rank = [](const std::string& n) {
    int i = 0;
    for (const char* k : build::kBinaryStages) {
      if (n == k) return i;
      ++i;
    }
    return i;
  };
  std::vector<std::string> names;
  for (const build::Variant* side : {b, h}) {
    if (!side) continue;
    for (const build::StageFile& f : side->binaries) {
      if (std::find(names.begin(), names.end(), f.stage) != names.end()) continue;
      if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), f.stage) == wanted.end())
        continue;
      names.push_back(f.stage);
    }
  }
  std::sort(names.begin(), names.end(), [&](const std::string& x, const std::string& y) {
    return std::make_pair(rank(x), x) < std::make_pair(rank(y), y);
  });
  return names;
}

/// Queues the comparison of binary artifact `stage` of a pair, if either has it.
void add_binary(const build::Variant* b, const build::Variant* h, const std::string& stage,
                size_t vi, VariantDiff* v, std::vector<Task>* tasks) {
  const build::StageFile* bf = b ? b->binary(stage) : nullptr;
  const build::StageFile* hf = h ? h->binary(stage) : nullptr;
  if (!bf && !hf) return;
  StageDiff sd;
  sd.stage = stage;
  v->binaries.push_back(sd);
  Task t{vi, v->binaries.size() - 1, bf, hf};
  t.binary = true;
  tasks->push_back(t);
}

/// The entry of `head.not_rebuilt` that names `base_variant` (a recompile
/// of it that failed: capture::names_variant). Null when none does.
const build::NotRebuilt* not_rebuilt_match(const build::Build& head,
                                           const build::Variant& base_variant) {
  for (const build::NotRebuilt& n : head.not_rebuilt)
    if (capture::names_variant(n, base_variant)) return &n;
  return nullptr;
}

}  // namespace

namespace {

/// diff_builds; with `owned` (the builds themselves, non-const, when the
/// caller gave them away) paths move into the result and each variant's
/// text stage files are freed once its last text stage is compared.
Expected<DiffResult> diff_builds_impl(const build::Build& base, const build::Build& head,
                                      const DiffOptions& opts, build::Build* owned_base,
                                      build::Build* owned_head) {
  const bool owned = owned_base && owned_head;
  DiffResult r;
  r.base_name = base.name;
  r.head_name = head.name;
  r.base_root = base.root;
  r.head_root = head.root;

  std::vector<std::string> stages = opts.stages;
  if (stages.empty()) {
    std::set<int> ranks;
    for (const auto* b : {&base, &head})
      for (const auto& v : b->variants)
        for (const auto& s : v.stages)
          if (s.stage != "source") ranks.insert(build::stage_rank(s.stage));
    for (int k : ranks) stages.push_back(build::kKnownStages[k]);
  }
  if (base.kind == build::BuildKind::kTritonCache || head.kind == build::BuildKind::kTritonCache)
    r.warnings.push_back(
        "a bare Triton cache has no constexprs: variants were paired by metadata and IR "
        "similarity (marked inferred)");

  SimilarityCtx sim{opts.normalize, {}};
  std::vector<VariantPair> pairs = pair_variants(base, head, similarity, &sim);
  auto wanted = [&](const std::string& kernel) {
    return opts.kernels.empty() ||
           std::find(opts.kernels.begin(), opts.kernels.end(), kernel) != opts.kernels.end();
  };
  std::vector<Task> tasks;
  // source -> the result variant whose key is a variant defined there.
  std::map<std::string, size_t> variant_of;
  r.variants.reserve(pairs.size());  // exact sizes: at 100,000 variants slack is megabytes
  // Owned builds: the identity a result keeps moves out of its build
  // variant, and the other side's is freed once read (take_identity).
  auto take_identity = [&](const VariantPair& p, VariantDiff* v) {
    build::Variant* b = p.base >= 0 && owned ? &owned_base->variants[p.base] : nullptr;
    build::Variant* h = p.head >= 0 && owned ? &owned_head->variants[p.head] : nullptr;
    if (!owned) {
      v->key = (p.base >= 0 ? base.variants[p.base] : head.variants[p.head]).identity();
      return;
    }
    build::Variant& any = b ? *b : *h;
    v->key = std::move(static_cast<capture::VariantKey&>(any));
    // What is read of a build variant after this (binary_figures.cc's
    // variant_resources): its kernel name, resources and binaries.
    any.kernel = v->key.kernel;
    if (b && h) release_identity(h);
  };
  for (const VariantPair& p : pairs) {
    const build::Variant* b = p.base >= 0 ? &base.variants[p.base] : nullptr;
    const build::Variant* h = p.head >= 0 ? &head.variants[p.head] : nullptr;
    const build::Variant& any = b ? *b : *h;
    if (!wanted(any.kernel)) continue;
    VariantDiff v;
    v.source = p.source;
    if (h && h->source() != v.source) v.head_source = h->source();
    variant_of.emplace(p.source, r.variants.size());
    v.head_id = h ? h->id() : "";
    v.pairing = p.kind;
    v.base_index = p.base;
    v.head_index = p.head;
    if (p.kind == Pairing::kRemoved) {
      if (const build::NotRebuilt* n = not_rebuilt_match(head, *b)) {
        v.pairing = Pairing::kNotRebuilt;
        v.not_rebuilt = n->phase + (n->reason.empty() ? "" : ": " + n->reason);
        take_identity(p, &v);
        r.variants.push_back(std::move(v));  // nothing to compare
        continue;
      }
    }
    if (b && h) v.option_changes = option_changes(*b, *h);
    for (const auto* side : {b, h}) {
      if (!side) continue;
      for (const auto& [k, val] : side->resources) {
        auto& fp = v.resources.try_emplace(k, FigurePair{-1, -1}).first->second;
        (side == b ? fp.first : fp.second) = val;
      }
    }
    if (owned) release_launch_figures(p, owned_base, owned_head);
    const build::Variant* bm = h ? h : b;
    v.benchmark_points = bm->benchmark_points;
    v.benchmark_script = bm->benchmark_script;
    if (v.benchmark_points.empty() && b) v.benchmark_points = b->benchmark_points;
    if (owned) {  // read by nothing else
      for (auto* side : {p.base >= 0 ? &owned_base->variants[p.base] : nullptr,
                         p.head >= 0 ? &owned_head->variants[p.head] : nullptr})
        if (side) {
          std::vector<std::string>().swap(side->benchmark_points);
          std::string().swap(side->benchmark_script);
        }
    }
    size_t vi = r.variants.size();
    v.stages.reserve(static_cast<size_t>(std::count_if(
        stages.begin(), stages.end(),
        [&](const std::string& st) { return (b && b->stage(st)) || (h && h->stage(st)); })));
    for (const std::string& st : stages) {
      const build::StageFile* bf = b ? b->stage(st) : nullptr;
      const build::StageFile* hf = h ? h->stage(st) : nullptr;
      if (!bf && !hf) continue;
      StageDiff sd;
      sd.stage = st;
      // Known nondeterminism of either side; kept only if the stage changed.
      sd.unstable = (b && b->unstable(st)) || (h && h->unstable(st));
      v.stages.push_back(sd);
      tasks.push_back({vi, v.stages.size() - 1, bf, hf, false, base.known_texts.get(), owned});
    }
    for (const std::string& st : binary_stage_names(b, h, opts.stages))
      add_binary(b, h, st, vi, &v, &tasks);
    take_identity(p, &v);
    r.variants.push_back(std::move(v));
  }
  label_kernels(variant_of, &r);

  // Owned builds: text tasks left per variant of each side; the last one
  // done frees that variant's text stage files.
  std::vector<std::atomic<uint32_t>> left_base(owned ? base.variants.size() : 0);
  std::vector<std::atomic<uint32_t>> left_head(owned ? head.variants.size() : 0);
  if (owned) {
    for (const Task& t : tasks) {
      if (t.binary) continue;
      const VariantDiff& v = r.variants[t.variant];
      if (t.base) left_base[static_cast<size_t>(v.base_index)].fetch_add(1);
      if (t.head) left_head[static_cast<size_t>(v.head_index)].fetch_add(1);
    }
  }
  auto release = [&](const Task& t) {
    const VariantDiff& v = r.variants[t.variant];
    if (t.base && left_base[static_cast<size_t>(v.base_index)].fetch_sub(1) == 1)
      std::vector<build::StageFile>().swap(owned_base->variants[v.base_index].stages);
    if (t.head && left_head[static_cast<size_t>(v.head_index)].fetch_sub(1) == 1)
      std::vector<build::StageFile>().swap(owned_head->variants[v.head_index].stages);
  };

  unsigned jobs = opts.jobs ? opts.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, std::max<size_t>(1, tasks.size()));
  std::atomic<size_t> next{0};
  std::mutex progress_mu;
  size_t done = 0;
  auto tick = [&] {  // one task done: progress (done/total) when asked for
    if (!opts.progress) return;
    std::lock_guard<std::mutex> lock(progress_mu);
    opts.progress(++done, tasks.size());
  };
  auto worker = [&] {
    while (true) {
      size_t k = next.fetch_add(1);
      if (k >= tasks.size()) return;
      const Task& t = tasks[k];
      VariantDiff& vd = r.variants[t.variant];
      if (!t.binary) {
        run_task_guarded(t, opts, &vd.stages[t.stage_slot]);
        if (owned) {
          move_paths(t, &vd.stages[t.stage_slot]);
          release(t);
        }
        tick();
        continue;
      }
      StageDiff* bd = &vd.binaries[t.stage_slot];
      Status s = guarded([&] { return compare_binary(t, bd); }, "comparing " + bd->stage);
      tick();
      if (!s.is_ok()) {  // an artifact that cannot be read: stated, the run goes on
        bd->status = !t.base   ? ChangeStatus::kAdded
                     : !t.head ? ChangeStatus::kRemoved
                               : ChangeStatus::kChanged;
        bd->fallback = s.to_string() + "; not compared";
        bd->input_error = true;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < jobs; ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  for (VariantDiff& v : r.variants)
    for (StageDiff& s : v.stages) s.unstable = s.unstable && s.status == ChangeStatus::kChanged;
  add_binary_figures(base, head, jobs, &r);
  if (owned) {  // nothing reads them again: freed before the report is made
    std::vector<build::Variant>().swap(owned_base->variants);
    std::vector<build::Variant>().swap(owned_head->variants);
  }

  build_groups(&r);
  for (const std::string& st : stages) {
    StageSummary s;
    s.stage = st;
    for (const VariantDiff& v : r.variants)
      if (const StageDiff* sd = v.stage(st)) {
        switch (sd->status) {
          case ChangeStatus::kUnchanged:
            ++s.unchanged;
            break;
          case ChangeStatus::kChanged:
            ++(sd->unstable ? s.unstable : s.changed);
            break;
          case ChangeStatus::kAdded:
            ++s.added;
            break;
          case ChangeStatus::kRemoved:
            ++s.removed;
            break;
        }
      }
    r.summary.push_back(s);
  }
  return r;
}

}  // namespace

Expected<DiffResult> diff_builds(const build::Build& base, const build::Build& head,
                                 const DiffOptions& opts) {
  return diff_builds_impl(base, head, opts, nullptr, nullptr);
}

Expected<DiffResult> diff_builds(build::Build&& base, build::Build&& head,
                                 const DiffOptions& opts) {
  return diff_builds_impl(base, head, opts, &base, &head);
}

Expected<DiffResult> diff_paths(const std::string& base, const std::string& head,
                                const DiffOptions& opts) {
  // The two manifests (and every variant's metadata) load concurrently.
  auto load = [](const std::string& path) {
    return guarded([&] { return build::load_build(path); }, "loading '" + path + "'");
  };
  Expected<build::Build> b = Status();
  std::thread loader([&] { b = load(base); });  // no exception may leave a thread
  Expected<build::Build> h = load(head);
  loader.join();
  if (!b) return b.status();
  if (!h) return h.status();
  return diff_builds(std::move(*b), std::move(*h), opts);
}

}  // namespace ksnap::diff
