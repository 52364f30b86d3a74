// Internal: the JSON form of a variant record and of a tree, and their ids.
//
// A record is every build::Variant field except stage texts, plus
//   "stages": [{"stage": "ttgir", "blob": "n:mlir:1f..", "path": "cache/X/k.ttgir"}, ...]
// Its id is the XXH3-128 of its compact dump (nlohmann sorts keys), so equal
// variants of two commits share one record.
#pragma once

#include <string>
#include <vector>

#include "ksnap/build/build.h"
#include "ksnap/store/store.h"

namespace ksnap::store {

/// The compact JSON text of a record.
std::string encode_variant(const build::Variant& v, const std::vector<StoredStage>& stages);

/// Parses a record; errors (kCorrupt) name `what`.
Expected<StoredVariant> decode_variant(const std::string& json_text, const std::string& id,
                                       const std::string& what);

/// Id of a record or tree from its canonical text.
std::string content_id(const std::string& text);

/// Canonical text of a tree: its header fields and ordered variant ids.
std::string tree_text(const std::string& name, const std::string& triton_version,
                      const std::string& arch, int format_version,
                      const std::vector<std::string>& variant_ids);

}  // namespace ksnap::store
