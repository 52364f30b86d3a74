// Internal: a thin RAII layer over SQLite that turns every failure into a
// ksnap Status naming the store file.
//
//   KSNAP_ASSIGN_OR_RETURN(Db db, Db::open(".ksnap/history.db", /*create=*/true));
//   KSNAP_ASSIGN_OR_RETURN(Stmt q, db.prepare("SELECT tree FROM commits WHERE sha = ?"));
//   q.bind(1, sha);
//   KSNAP_ASSIGN_OR_RETURN(bool row, q.step());
//   if (row) use(q.text(0));
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ksnap/support/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace ksnap::store {

/// Marks bytes to bind as a BLOB (text binds as TEXT).
struct Blob {
  std::string_view bytes;
};

class Stmt {
 public:
  Stmt() = default;
  Stmt(sqlite3_stmt* s, std::string file) : s_(s), file_(std::move(file)) {}
  Stmt(Stmt&& o) noexcept;
  Stmt& operator=(Stmt&& o) noexcept;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt();

  /// Binds parameter `i` (1-based). Text and blobs are copied by SQLite.
  void bind(int i, std::string_view text);
  void bind_blob(int i, std::string_view bytes);
  void bind(int i, int64_t v);
  void bind(int i, Blob b) { bind_blob(i, b.bytes); }
  /// reset(), binds `args` to parameters 1..N, and runs to completion:
  ///   KSNAP_RETURN_IF_ERROR(insert.run_with(id, int64_t{3}, Blob{frame}));
  template <typename... A>
  Status run_with(const A&... args) {
    reset();
    int i = 0;
    (bind(++i, args), ...);
    return run();
  }
  /// True when a row is available, false when done; an error otherwise.
  Expected<bool> step();
  /// Runs to completion (for statements without result rows).
  Status run();
  /// Resets for re-execution with new bindings.
  void reset();

  std::string text(int col) const;
  std::string blob(int col) const;
  int64_t integer(int col) const;
  bool is_null(int col) const;

 private:
  sqlite3_stmt* s_ = nullptr;
  std::string file_;
};

class Db {
 public:
  /// Opens (and with `create`, creates) the database at `path` for writing,
  /// in WAL mode (open_for_writing() then use_wal()).
  static Expected<Db> open(const std::string& path, bool create);
  /// Opens the database for writing with a busy timeout, so that writers wait
  /// for each other, and synchronous=FULL; writes nothing to the file (the
  /// journal mode is left as it is: see use_wal()). Errors: kNotFound when
  /// the file is missing and `create` is false; kIoError / kCorrupt from SQLite.
  static Expected<Db> open_for_writing(const std::string& path, bool create);
  /// Opens an existing file with SQLITE_OPEN_READONLY: no statement through
  /// this connection can change the file (no schema, no pragma writes).
  /// Errors: kNotFound when the file is missing; kIoError / kCorrupt.
  static Expected<Db> open_read_only(const std::string& path);
  /// Switches the file to WAL mode (a write, once per file): readers then
  /// never block a writer. For writers, after the schema check.
  Status use_wal();

  Db() = default;
  Db(Db&& o) noexcept;
  Db& operator=(Db&& o) noexcept;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db();

  Expected<Stmt> prepare(std::string_view sql);
  /// Runs one or more statements without results.
  Status exec(std::string_view sql);
  /// Runs a single-value query (first column of the first row); kNotFound if no row.
  Expected<int64_t> query_int(std::string_view sql);

  const std::string& path() const { return path_; }
  bool read_only() const { return read_only_; }
  /// True inside an explicit transaction.
  bool in_transaction() const;
  /// Builds an error naming the store file from the connection's last SQLite error.
  Status error(std::string_view what) const;

 private:
  static Expected<Db> open_with(const std::string& path, int flags);

  sqlite3* db_ = nullptr;
  std::string path_;
  bool read_only_ = false;
};

/// Maps an SQLite result code to a ksnap error code.
ErrorCode error_code_for_sqlite(int rc);

/// Runs `BEGIN IMMEDIATE` (write) or `BEGIN` (read snapshot) and rolls back
/// in the destructor unless commit() succeeded. Inside an open transaction it
/// does nothing (the outer one decides), so readers compose.
class Transaction {
 public:
  static Expected<Transaction> begin(Db& db, bool write);
  Transaction(Transaction&& o) noexcept : db_(o.db_), open_(o.open_) { o.open_ = false; }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  Status commit();

 private:
  Transaction(Db* db, bool open) : db_(db), open_(open) {}
  Db* db_;
  bool open_;
};

}  // namespace ksnap::store
