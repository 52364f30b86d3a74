// Kept normalized hashes: table norm_hashes (schema version 3).
//
// Worked example: commit A records matmul.ttgir as blob n:mlir:1f2e...; the
// record also writes the row (n:mlir:1f2e..., version 1, "1f2e...") — the
// hash its text has under norm::kHashVersion 1. `ksnap diff A pr-capture`
// loads the blob with StageFile::normalized_hash = 0x1f2e... and compares the
// PR's text against it without normalizing the blob's text. After an upgrade
// to kHashVersion 2 the row of version 1 is not used; the next record that
// meets the blob normalizes its text once and adds the row of version 2.
#include <cstdlib>

#include "ksnap/normalize/normalize.h"
#include "store/store_impl.h"

namespace ksnap::store {

Expected<bool> has_norm_hashes(Db& db) {
  KSNAP_ASSIGN_OR_RETURN(
      int64_t n,
      db.query_int("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='norm_hashes'"));
  return n != 0;
}

Expected<std::optional<uint64_t>> kept_hash(Db& db, const std::string& blob_id) {
  KSNAP_ASSIGN_OR_RETURN(Stmt q,
                         db.prepare("SELECT hash FROM norm_hashes WHERE blob=? AND version=?"));
  q.bind(1, blob_id);
  q.bind(2, static_cast<int64_t>(norm::kHashVersion));
  KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
  if (!row) return std::optional<uint64_t>();
  std::optional<uint64_t> h = hex16_value(q.text(0));
  if (!h)
    return make_error(ErrorCode::kCorrupt,
                      "the kept normalized hash of blob " + blob_id + " is not 16 hex digits",
                      {db.path(), 0, 0});
  return h;
}

std::string_view blob_dialect(std::string_view blob_id) {
  if (blob_id.substr(0, 2) != "n:") return {};
  size_t end = blob_id.find(':', 2);
  if (end == std::string_view::npos) return {};
  return blob_id.substr(2, end - 2);
}

}  // namespace ksnap::store
