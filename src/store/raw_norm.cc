// Normalized hashes of raw texts: table raw_norm (schema version 4).
//
// Worked example: commit A records matmul.llir (raw XXH3-128 9f3c...), whose
// text normalizes to 1f2e... under norm::kHashVersion 2: the record writes
// the row (9f3c..., "llvm", 2, "1f2e..."). Later a PR's capture has exactly
// those bytes again, for a variant that `ksnap diff B pr` pairs with commit
// B's matmul.llir (kept hash 1f2e...): the diff hashes the PR file's bytes,
// finds the row and decides "unchanged" without normalizing them. A row of
// another version is never used (the rules changed; the text may hash
// differently now); the next record that reads the text writes this
// version's row.
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

#include "ksnap/normalize/normalize.h"
#include "store/store_impl.h"

namespace ksnap::store {

bool is_hex16(std::string_view h) {
  if (h.size() != 16) return false;
  for (char c : h)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::optional<uint64_t> hex16_value(const std::string& h) {
  if (!is_hex16(h)) return std::nullopt;
  return std::strtoull(h.c_str(), nullptr, 16);
}

namespace {

constexpr const char* kRawNormQuery =
    "SELECT hash FROM raw_norm WHERE raw_hash=? AND dialect=? AND version=?";

/// Binds a raw_norm lookup of this kHashVersion to `q`.
void bind_lookup(Stmt& q, std::string_view raw_hash, std::string_view dialect) {
  q.bind(1, raw_hash);
  q.bind(2, dialect);
  q.bind(3, static_cast<int64_t>(norm::kHashVersion));
}

/// Read-only connections of its own, so that it outlives the Store that
/// made it and never writes. Each lookup takes a free connection (opening
/// one when every connection is in use) and runs without a lock: the diff
/// engine's workers look up concurrently instead of queueing on one
/// statement. There are at most as many connections as concurrent callers.
class StoreKnownTexts final : public build::KnownTexts {
 public:
  explicit StoreKnownTexts(Db db) : path_(db.path()) {
    std::unique_ptr<Lookup> l = Lookup::make(std::move(db));
    if (l) {
      free_.push_back(std::move(l));
    } else {
      failed_ = true;
    }
  }

  std::optional<uint64_t> normalized_hash(std::string_view raw_hash,
                                          std::string_view dialect) const override {
    std::unique_ptr<Lookup> l = take();
    if (!l) return std::nullopt;  // no connection: normalize instead
    l->q.reset();
    bind_lookup(l->q, raw_hash, dialect);
    auto row = l->q.step();
    std::optional<uint64_t> h;
    if (row && *row) h = hex16_value(l->q.text(0));  // a damaged row: normalize instead (verify names it)
    put(std::move(l));
    return h;
  }

 private:
  /// One connection and its prepared lookup.
  struct Lookup {
    Db db;
    Stmt q;
    static std::unique_ptr<Lookup> make(Db db) {
      auto q = db.prepare(kRawNormQuery);
      if (!q) return nullptr;
      return std::unique_ptr<Lookup>(new Lookup{std::move(db), std::move(*q)});
    }
  };

  /// A free connection, or a new one; null when none can be opened (then
  /// never tried again: every later lookup answers "unknown" at once).
  std::unique_ptr<Lookup> take() const {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        std::unique_ptr<Lookup> l = std::move(free_.back());
        free_.pop_back();
        return l;
      }
      if (failed_) return nullptr;
    }
    auto db = Db::open_read_only(path_);
    std::unique_ptr<Lookup> l = db ? Lookup::make(std::move(*db)) : nullptr;
    if (!l) {
      std::lock_guard<std::mutex> lock(mu_);
      failed_ = true;
    }
    return l;
  }

  void put(std::unique_ptr<Lookup> l) const {
    if (!l) return;
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(std::move(l));
  }

  std::string path_;
  mutable std::mutex mu_;
  mutable std::vector<std::unique_ptr<Lookup>> free_;
  mutable bool failed_ = false;
};

}  // namespace

Expected<bool> has_raw_norm(Db& db) {
  KSNAP_ASSIGN_OR_RETURN(
      int64_t n,
      db.query_int("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='raw_norm'"));
  return n != 0;
}

Expected<std::optional<uint64_t>> raw_norm_hash(Db& db, const std::string& raw_hash,
                                                std::string_view dialect) {
  KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare(kRawNormQuery));
  bind_lookup(q, raw_hash, dialect);
  KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
  if (!row) return std::optional<uint64_t>();
  std::optional<uint64_t> h = hex16_value(q.text(0));
  if (!h)
    return make_error(ErrorCode::kCorrupt,
                      "the normalized hash of raw text " + raw_hash + " is not 16 hex digits",
                      {db.path(), 0, 0});
  return h;
}

Expected<std::shared_ptr<const build::KnownTexts>> open_known_texts(const std::string& path) {
  KSNAP_ASSIGN_OR_RETURN(Db db, Db::open_read_only(path));
  return std::shared_ptr<const build::KnownTexts>(
      std::make_shared<StoreKnownTexts>(std::move(db)));
}

}  // namespace ksnap::store
