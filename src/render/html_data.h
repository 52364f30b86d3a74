// Internal: the HTML report's data island — one JSON value, embedded in a
// <script type="application/json" id="ksnap-data"> element, from which the
// page's script renders filters, change groups and the variant table lazily.
// The layout is documented in docs/html-report.md ("Data island"); in short:
//
//   {"schema":"ksnap-html-data","version":1,"base":"base","head":"no_licm",
//    "stages":["ttir","ttgir","llir","ptx"],  "kernels":["_attn_fwd", ...],
//    "classes":["","k","o",...],               // token class index -> CSS suffix
//    "variants":[{"k":0,"l":"{BLOCK_M=128}","p":"exact","s":"ucc.",
//                 "g":[-1,3,7,-1],"n":[[0,0],[4,2],[9,9],[0,0]],
//                 "r":[["n_regs",207,210]],"o":[["enable_fp_fusion","true","false"]]}, ...],
//    "groups":[{"k":0,"s":1,"v":[4,5,6],"a":4,"r":2,"w":6,"ops":[["ttg.local_load",2]],
//               "res":[["ptx.reg.b32",40,42]],"py":[85,86],"cut":0,
//               "h":[["unit",bs,bc,hs,hc,[pyb],[pyh],
//                     [[kind,text,base_line,head_line,py_line,"runs",[hl]], ...]]]}]}
//
// Line kind: 0 context, 1 added, 2 removed. "runs": html_tokens.h runs_text
// (class letter + UTF-16 length per run); hl: word-level highlights as UTF-16
// [begin, end, ...]. "g"/"n" only for changed variants; "cut" only when > 0.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ksnap/diff/result.h"

namespace ksnap::render::html {

/// Stage names in pipeline order: DiffResult::summary's, then any other stage
/// a variant has, in first-seen order.
std::vector<std::string> stage_order(const diff::DiffResult& r);

/// One char per stage of `stages` for a variant: 'u' unchanged, 'c' changed,
/// 'a' added, 'r' removed, '.' no such stage.
std::string status_chars(const diff::VariantDiff& v, const std::vector<std::string>& stages);

struct DataLimits {
  /// Diff lines embedded per group; the rest are counted in the group's "cut".
  size_t max_lines_per_group = 20000;
};

/// The data island's JSON text (see the file comment). Written directly, not
/// through a JSON tree: 10,000 variants make ~600k lines. Invalid UTF-8 bytes
/// are written as U+FFFD; the text is not yet safe inside <script> (see
/// html_text.h script_safe_json).
std::string report_data(const diff::DiffResult& r, const DataLimits& limits = {});

}  // namespace ksnap::render::html
