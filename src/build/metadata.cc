#include "build/metadata.h"

#include <algorithm>

#include "ksnap/capture/json_text.h"
#include "ksnap/support/figures.h"

namespace ksnap::build {

namespace {

/// The guarded path of `rel`, "" when nothing is there; other errors pass.
Expected<std::string> existing_file(PathGuard& guard, const std::string& rel) {
  auto p = guard.resolve(rel, PathGuard::kFile);
  if (!p && p.status().code() == ErrorCode::kNotFound) return std::string();
  if (!p) return make_error(p.status().code(), p.status().message(), {guard.root(), 0, 0});
  return p;
}

}  // namespace

Status collect_stage_files(PathGuard& guard, const std::string& vdir, const std::string& kernel,
                           Variant* v) {
  auto add = [&](const char* stage, std::vector<StageFile>* to) -> Status {
    KSNAP_ASSIGN_OR_RETURN(std::string p, existing_file(guard, vdir + "/" + kernel + "." + stage));
    if (!p.empty()) to->push_back(StageFile{stage, std::move(p), nullptr, {}, {}});
    return Status::ok();
  };
  for (const char* s : kKnownStages) KSNAP_RETURN_IF_ERROR(add(s, &v->stages));
  for (const char* s : kBinaryStages) KSNAP_RETURN_IF_ERROR(add(s, &v->binaries));
  // Exact capacity: a build holds these for every variant (5 stages leave
  // room for 8 otherwise, about 400 bytes a variant).
  v->stages.shrink_to_fit();
  v->binaries.shrink_to_fit();
  return Status::ok();
}

void sort_stages(Variant* v) {
  std::stable_sort(v->stages.begin(), v->stages.end(), [](const StageFile& a, const StageFile& b) {
    return stage_rank(a.stage) < stage_rank(b.stage);
  });
}

Status read_metadata(PathGuard& guard, const std::string& rel, Variant* v) {
  KSNAP_ASSIGN_OR_RETURN(std::string path, existing_file(guard, rel));
  if (path.empty()) return Status::ok();
  KSNAP_ASSIGN_OR_RETURN(TextBuffer buf, read_text_file(path));
  KSNAP_ASSIGN_OR_RETURN(json::Document doc, json::Document::parse(buf.view(), path));
  json::Node root = doc.root();
  KSNAP_RETURN_IF_ERROR(root.expect_object(json::Need::kRequired));
  // Fields that identify a build machine or a cache entry, not a compile option.
  static const char* const kSkip[] = {"hash", "extern_libs", "name", "tensordesc_meta"};
  for (auto it = root.value().begin(); it != root.value().end(); ++it) {
    const std::string& k = it.key();
    if (std::find(std::begin(kSkip), std::end(kSkip), k) != std::end(kSkip)) continue;
    if (k == "shared" || k == "tmem_size" || k == "global_scratch_size" ||
        k == "profile_scratch_size") {
      int64_t n = 0;
      KSNAP_RETURN_IF_ERROR(root[k].read(&n));
      if (it.value().is_null()) continue;
      if (!figure_in_range(n))
        return root[k].error(figure_range_message(k, n));
      if (!v->resources.count(k)) v->resources[k] = n;
      continue;
    }
    if (k == "global_scratch_align" || k == "profile_scratch_align") continue;
    v->compile_options[k] = capture::python_json(it.value());
  }
  return Status::ok();
}

}  // namespace ksnap::build
