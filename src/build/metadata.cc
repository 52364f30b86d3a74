#include "build/metadata.h"

#include <algorithm>

#include "build/json_text.h"

namespace ksnap::build {

void collect_stage_files(const std::string& vdir, const std::string& kernel, Variant* v) {
  for (const char* s : kKnownStages) {
    std::string p = vdir + "/" + kernel + "." + s;
    if (is_regular_file(p)) v->stages.push_back(StageFile{s, p, nullptr});
  }
  for (const char* s : kBinaryStages) {
    std::string p = vdir + "/" + kernel + "." + s;
    if (is_regular_file(p)) v->binaries.push_back(StageFile{s, p, nullptr});
  }
}

void sort_stages(Variant* v) {
  std::stable_sort(v->stages.begin(), v->stages.end(), [](const StageFile& a, const StageFile& b) {
    return stage_rank(a.stage) < stage_rank(b.stage);
  });
}

Status read_metadata(const std::string& path, Variant* v) {
  if (!is_regular_file(path)) return Status::ok();
  KSNAP_ASSIGN_OR_RETURN(TextBuffer buf, read_text_file(path));
  KSNAP_ASSIGN_OR_RETURN(nlohmann::json j, parse_json(buf.view(), path));
  if (!j.is_object())
    return make_error(ErrorCode::kParseError, "Triton metadata is not a JSON object", {path, 1, 1});
  // Fields that identify a build machine or a cache entry, not a compile option.
  static const char* const kSkip[] = {"hash", "extern_libs", "name", "tensordesc_meta"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    if (std::find(std::begin(kSkip), std::end(kSkip), k) != std::end(kSkip)) continue;
    const auto& val = it.value();
    if (k == "shared" || k == "tmem_size" || k == "global_scratch_size" ||
        k == "profile_scratch_size") {
      if (val.is_number_integer() && !v->resources.count(k)) v->resources[k] = val.get<int64_t>();
      continue;
    }
    if (k == "global_scratch_align" || k == "profile_scratch_align") continue;
    v->compile_options[k] = python_json(val);
  }
  return Status::ok();
}

}  // namespace ksnap::build
