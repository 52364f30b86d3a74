#include "store/sqlite_db.h"

#include <sqlite3.h>

#include <utility>

#include "ksnap/support/file.h"

namespace ksnap::store {

ErrorCode error_code_for_sqlite(int rc) {
  switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return ErrorCode::kCorrupt;
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return ErrorCode::kIoError;
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
      return ErrorCode::kCorrupt;
    default:
      return ErrorCode::kInternal;
  }
}

Stmt::Stmt(Stmt&& o) noexcept : s_(std::exchange(o.s_, nullptr)), file_(std::move(o.file_)) {}
Stmt& Stmt::operator=(Stmt&& o) noexcept {
  if (this != &o) {
    if (s_) sqlite3_finalize(s_);
    s_ = std::exchange(o.s_, nullptr);
    file_ = std::move(o.file_);
  }
  return *this;
}
Stmt::~Stmt() {
  if (s_) sqlite3_finalize(s_);
}

void Stmt::bind(int i, std::string_view text) {
  sqlite3_bind_text(s_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}
void Stmt::bind_blob(int i, std::string_view bytes) {
  sqlite3_bind_blob(s_, i, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
}
void Stmt::bind(int i, int64_t v) { sqlite3_bind_int64(s_, i, v); }

Expected<bool> Stmt::step() {
  int rc = sqlite3_step(s_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  sqlite3* db = sqlite3_db_handle(s_);
  return make_error(error_code_for_sqlite(rc), std::string("history store: ") + sqlite3_errmsg(db),
                    {file_, 0, 0});
}

Status Stmt::run() {
  for (;;) {
    KSNAP_ASSIGN_OR_RETURN(bool row, step());
    if (!row) return Status::ok();
  }
}

void Stmt::reset() {
  sqlite3_reset(s_);
  sqlite3_clear_bindings(s_);
}

std::string Stmt::text(int col) const {
  const unsigned char* p = sqlite3_column_text(s_, col);
  int n = sqlite3_column_bytes(s_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}
std::string Stmt::blob(int col) const {
  const void* p = sqlite3_column_blob(s_, col);
  int n = sqlite3_column_bytes(s_, col);
  return p ? std::string(static_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}
int64_t Stmt::integer(int col) const { return sqlite3_column_int64(s_, col); }
bool Stmt::is_null(int col) const { return sqlite3_column_type(s_, col) == SQLITE_NULL; }

Db::Db(Db&& o) noexcept
    : db_(std::exchange(o.db_, nullptr)), path_(std::move(o.path_)), read_only_(o.read_only_) {}
Db& Db::operator=(Db&& o) noexcept {
  if (this != &o) {
    if (db_) sqlite3_close_v2(db_);
    db_ = std::exchange(o.db_, nullptr);
    path_ = std::move(o.path_);
    read_only_ = o.read_only_;
  }
  return *this;
}
Db::~Db() {
  if (db_) sqlite3_close_v2(db_);
}

Status Db::error(std::string_view what) const {
  int rc = db_ ? sqlite3_extended_errcode(db_) : SQLITE_CANTOPEN;
  std::string msg = "history store: " + std::string(what);
  if (db_) msg += std::string(": ") + sqlite3_errmsg(db_);
  return make_error(error_code_for_sqlite(rc), msg, {path_, 0, 0});
}

Expected<Db> Db::open_with(const std::string& path, int flags) {
  if (!(flags & SQLITE_OPEN_CREATE) && !is_regular_file(path))
    return make_error(ErrorCode::kNotFound,
                      "no history store here (record a commit first, or pass --store PATH)",
                      {path, 0, 0});
  Db db;
  db.path_ = path;
  db.read_only_ = (flags & SQLITE_OPEN_READONLY) != 0;
  int rc = sqlite3_open_v2(path.c_str(), &db.db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) return db.error("cannot open");
  sqlite3_extended_result_codes(db.db_, 1);
  sqlite3_busy_timeout(db.db_, 30000);
  return db;
}

Expected<Db> Db::open_for_writing(const std::string& path, bool create) {
  KSNAP_ASSIGN_OR_RETURN(
      Db db, open_with(path, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)));
  // Connection settings only: synchronous=FULL makes every committed record
  // durable across power loss.
  KSNAP_RETURN_IF_ERROR(db.exec("PRAGMA synchronous=FULL; PRAGMA foreign_keys=OFF;"));
  return db;
}

Expected<Db> Db::open_read_only(const std::string& path) {
  return open_with(path, SQLITE_OPEN_READONLY);
}

Expected<Db> Db::open(const std::string& path, bool create) {
  KSNAP_ASSIGN_OR_RETURN(Db db, open_for_writing(path, create));
  KSNAP_RETURN_IF_ERROR(db.use_wal());
  return db;
}

Status Db::use_wal() {
  // WAL: readers see the last committed state while a record is writing; a
  // killed writer leaves an uncommitted WAL tail that the next open ignores.
  return exec("PRAGMA journal_mode=WAL");
}

Expected<Stmt> Db::prepare(std::string_view sql) {
  sqlite3_stmt* s = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &s, nullptr);
  if (rc != SQLITE_OK) return error("cannot prepare '" + std::string(sql.substr(0, 60)) + "'");
  return Stmt(s, path_);
}

Status Db::exec(std::string_view sql) {
  std::string s(sql);
  char* err = nullptr;
  int rc = sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err);
  if (rc == SQLITE_OK) return Status::ok();
  std::string msg = err ? err : sqlite3_errstr(rc);
  sqlite3_free(err);
  return make_error(error_code_for_sqlite(rc), "history store: " + msg, {path_, 0, 0});
}

Expected<int64_t> Db::query_int(std::string_view sql) {
  KSNAP_ASSIGN_OR_RETURN(Stmt q, prepare(sql));
  KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
  if (!row) return make_error(ErrorCode::kNotFound, "no row", {path_, 0, 0});
  return q.integer(0);
}

bool Db::in_transaction() const { return db_ && sqlite3_get_autocommit(db_) == 0; }

Expected<Transaction> Transaction::begin(Db& db, bool write) {
  if (db.in_transaction()) return Transaction(&db, false);
  KSNAP_RETURN_IF_ERROR(db.exec(write ? "BEGIN IMMEDIATE" : "BEGIN"));
  return Transaction(&db, true);
}

Transaction::~Transaction() {
  if (open_) (void)db_->exec("ROLLBACK");
}

Status Transaction::commit() {
  if (!open_) return Status::ok();
  open_ = false;
  Status s = db_->exec("COMMIT");
  if (!s.is_ok()) (void)db_->exec("ROLLBACK");
  return s;
}

}  // namespace ksnap::store
