// recompile.json: the variants `ksnap recompile` could not rebuild.
//
// Worked example. `ksnap recompile cap -o out --timeout 60` rebuilt 26 of 27
// variants; out/recompile.json holds
//   {"format": "ksnap-recompile-report", "format_version": 1, ...,
//    "failed": [{"variant": "attn_fwd[BLOCK_M=128]#1f2e", "kernel": "attn_fwd",
//                "key": "[('*fp16', 'D'), ...]{...}", "qualname": "suite.attn_fwd",
//                "phase": "timeout", "error": "killed after 60 s"}],
//    "skipped": []}
// and read_recompile_report gives {{{attn_fwd, suite.attn_fwd, key}, "timeout",
// "killed after 60 s"}}; load_capture keeps it as Build::not_rebuilt, and
// `ksnap diff cap out` reports that variant as not rebuilt instead of removed.
#include <string>
#include <vector>

#include "ksnap/capture/recompile.h"
#include "ksnap/support/file.h"
#include "ksnap/support/json.h"

namespace ksnap::capture {

namespace {

/// The last non-blank line of an error text (a traceback's message).
std::string last_line(const std::string& text) {
  size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  size_t nl = text.find_last_of('\n', end);
  size_t begin = nl == std::string::npos ? 0 : nl + 1;
  return text.substr(begin, end + 1 - begin);
}

/// Reads `report[list]`: one NotRebuilt per item; `phase` when the item has none.
Status read_list(const json::Node& report, const char* list, const char* phase,
                 std::vector<NotRebuilt>* out) {
  using json::Need;
  json::Node items = report[list];
  KSNAP_RETURN_IF_ERROR(items.expect_array());
  for (size_t i = 0; i < items.size(); ++i) {
    json::Node item = items[i];
    KSNAP_RETURN_IF_ERROR(item.expect_object(Need::kRequired));
    NotRebuilt n;
    KSNAP_RETURN_IF_ERROR(item["kernel"].read(&n.variant.kernel, Need::kRequired));
    KSNAP_RETURN_IF_ERROR(item["qualname"].read(&n.variant.qualname));
    KSNAP_RETURN_IF_ERROR(item["key"].read(&n.variant.key));
    if (!n.variant.key.empty()) n.variant.signature = signature_of_key(n.variant.key);
    n.phase = phase;
    KSNAP_RETURN_IF_ERROR(item["phase"].read(&n.phase));
    std::string error;
    KSNAP_RETURN_IF_ERROR(item["error"].read(&error));
    KSNAP_RETURN_IF_ERROR(item["reason"].read(&error));
    n.reason = last_line(error);
    out->push_back(std::move(n));
  }
  return Status::ok();
}

}  // namespace

Expected<std::vector<NotRebuilt>> read_recompile_report(const std::string& path) {
  KSNAP_ASSIGN_OR_RETURN(TextBuffer buf, read_text_file(path));
  return parse_recompile_report(buf.view(), path);
}

Expected<std::vector<NotRebuilt>> parse_recompile_report(std::string_view text,
                                                         const std::string& name) {
  using json::Need;
  KSNAP_ASSIGN_OR_RETURN(json::Document doc, json::Document::parse(text, name));
  json::Node root = doc.root();
  KSNAP_RETURN_IF_ERROR(root.expect_object(Need::kRequired));
  std::string format;
  KSNAP_RETURN_IF_ERROR(root["format"].read(&format, Need::kRequired));
  if (format != "ksnap-recompile-report")
    return root["format"].error(
        "\"format\" is " + json::dump(json::text(format)) + ", expected \"ksnap-recompile-report\"",
        ErrorCode::kUnsupported);
  int64_t version = 0;
  KSNAP_RETURN_IF_ERROR(root["format_version"].read(&version, Need::kRequired));
  if (version < 1 || version > kRecompileReportVersion)
    return root["format_version"].error(
        "recompile report format_version " + std::to_string(version) +
            " is not one this ksnap reads (1 to " + std::to_string(kRecompileReportVersion) + ")",
        ErrorCode::kUnsupported);
  std::vector<NotRebuilt> out;
  KSNAP_RETURN_IF_ERROR(read_list(root, "failed", "failed", &out));
  KSNAP_RETURN_IF_ERROR(read_list(root, "skipped", "skipped", &out));
  return out;
}

bool names_variant(const NotRebuilt& n, const VariantKey& v) {
  const VariantKey& r = n.variant;
  if (r.kernel != v.kernel || r.key.empty() || r.key != v.key) return false;
  return r.qualname.empty() || v.qualname.empty() || r.qualname == v.qualname;
}

}  // namespace ksnap::capture
