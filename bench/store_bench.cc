// Store bench: what recording a suite commit after commit costs.
//
// 50 commits of the corpus suite are recorded along one first-parent chain;
// commits 1..36 are the `base` build, commits 37..50 are `base` with one
// matmul variant's TTGIR, LLIR and PTX taken from `no_licm` (a pass change in
// one kernel). Printed: store size after commit 1, 36, 37 and 50, bytes per
// unchanged commit, the changed kernel's compressed IR, record / log /
// verify / load times, and what `ksnap log` lists (it must be commit 37
// alone: the bench exits 1 otherwise). Then a noise-only build (other paths
// and SSA names) is recorded as commit 51 to show that noise adds no blob.
//
//   ninja -C build store_bench && ./build/bench/store_bench [CORPUS_DIR]
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "ksnap/build/build.h"
#include "ksnap/diff/engine.h"
#include "ksnap/history/log.h"
#include "ksnap/store/maintenance.h"
#include "ksnap/store/store.h"

namespace fs = std::filesystem;
using namespace ksnap;

namespace {

constexpr int kCommits = 50;
constexpr int kChangedAt = 37;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string sha_of(int i) {
  char buf[41];
  std::snprintf(buf, sizeof buf, "%08x%032x", 0x5eed0000u + static_cast<unsigned>(i), i);
  return buf;
}

int64_t file_size(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 ? st.st_size : 0;
}

/// Store size as SQLite sees it (pages in use), after reopening so that the
/// WAL is checkpointed: what the file holds once the writer is gone.
int64_t store_bytes(const std::string& path) {
  auto s = store::Store::open(path);
  if (!s) return -1;
  auto st = s->stats();
  return st ? st->db_bytes : -1;
}

/// Payload bytes of the rows one commit adds (commits + parents rows and
/// their index entries), averaged: SQLite's dbstat, without page slack.
double row_bytes_per_commit(const std::string& path, int commits) {
  sqlite3* db = nullptr;
  double out = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* q = nullptr;
    const char* sql =
        "SELECT sum(payload) FROM dbstat WHERE name IN "
        "('commits', 'sqlite_autoindex_commits_1', 'parents', 'parents_parent')";
    if (sqlite3_prepare_v2(db, sql, -1, &q, nullptr) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
      out = static_cast<double>(sqlite3_column_int64(q, 0)) / commits;
    sqlite3_finalize(q);
  }
  sqlite3_close(db);
  return out;
}

template <typename T>
T require(Expected<T> e, const char* what) {
  if (!e) {
    std::fprintf(stderr, "store_bench: %s: %s\n", what, e.status().to_string().c_str());
    std::exit(2);
  }
  return std::move(*e);
}

}  // namespace

int main(int argc, char** argv) {
  std::string corpus = argc > 1 ? argv[1] : KSNAP_CORPUS_DIR;
  if (!fs::exists(corpus + "/base/manifest.json"))
    corpus = std::string(KSNAP_SOURCE_DIR) + "/examples/corpus";
  if (!fs::exists(corpus + "/base/manifest.json") ||
      !fs::exists(corpus + "/no_licm/manifest.json")) {
    std::fprintf(stderr, "store_bench: no corpus (pass its folder)\n");
    return 2;
  }
  fs::path tmp = fs::temp_directory_path() / ("ksnap-store-bench-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  const std::string changed_dir = (tmp / "changed").string();
  fs::copy(corpus + "/base", changed_dir, fs::copy_options::recursive);

  // Perturb one kernel: the first matmul variant's loop stages from no_licm.
  build::Build no_licm = require(build::load_build(corpus + "/no_licm"), "load no_licm");
  const build::Variant* mm = nullptr;
  for (const auto& v : no_licm.variants)
    if (v.kernel == "matmul_kernel") {
      mm = &v;
      break;
    }
  if (!mm) return 2;
  for (const char* stage : {"ttgir", "llir", "ptx"})
    fs::copy_file(mm->stage(stage)->path,
                  changed_dir + "/cache/" + mm->cache_dir + "/matmul_kernel." + stage,
                  fs::copy_options::overwrite_existing);

  build::Build base = require(build::load_build(corpus + "/base"), "load base");
  build::Build changed = require(build::load_build(changed_dir), "load changed");
  uint64_t suite_bytes = 0;
  for (const auto& v : base.variants)
    for (const auto& f : v.stages) suite_bytes += static_cast<uint64_t>(file_size(f.path));

  const std::string path = (tmp / "history.db").string();
  std::vector<double> unchanged_ms;
  double first_ms = 0, changed_ms = 0;
  int64_t size_after[kCommits + 2] = {0};
  store::RecordStats changed_stats;
  for (int i = 1; i <= kCommits; ++i) {
    store::Store s = require(store::Store::open(path, true), "open");
    store::RecordOptions o;
    o.sha = sha_of(i);
    if (i > 1) o.parents = {sha_of(i - 1)};
    o.date = 1733011200 + i * 3600;
    o.subject = i == kChangedAt ? "matmul: pipeline without LICM" : "commit " + std::to_string(i);
    auto t0 = std::chrono::steady_clock::now();
    store::RecordStats st = require(s.record(i >= kChangedAt ? changed : base, o), "record");
    double ms = ms_since(t0);
    if (i == 1)
      first_ms = ms;
    else if (i == kChangedAt)
      changed_ms = ms, changed_stats = st;
    else
      unchanged_ms.push_back(ms);
    if (i == 1 || i == kChangedAt - 1 || i == kChangedAt || i == kCommits) {
      s = require(store::Store::open(path), "reopen");  // closes the writer first
      size_after[i] = store_bytes(path);
    }
  }

  store::Store s = require(store::Store::open(path), "open");
  // The changed kernel's IR as stored: the blobs commit 37 added.
  auto v36 = require(s.variants(sha_of(kChangedAt - 1)), "variants 36");
  auto v37 = require(s.variants(sha_of(kChangedAt)), "variants 37");
  std::set<std::string> before;
  for (const auto& v : v36)
    for (const auto& st : v.stages) before.insert(st.blob);
  int64_t changed_stored = 0, changed_raw = 0;
  for (const auto& v : v37)
    for (const auto& st : v.stages)
      if (!before.count(st.blob)) {
        changed_stored += require(s.blob_stored_size(st.blob), "blob size");
        changed_raw += static_cast<int64_t>(require(s.blob_text(st.blob), "blob").size());
      }

  auto t0 = std::chrono::steady_clock::now();
  auto log = require(history::kernel_log(s, history::LogQuery{}), "log");
  double log_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  history::LogQuery mq;
  mq.kernel = "matmul_kernel";
  mq.stage = "ttgir";
  auto kernel_only = require(history::kernel_log(s, mq), "log");
  double log_kernel_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  auto report = require(store::verify(s), "verify");
  double verify_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  build::Build b36 = require(s.load(sha_of(kChangedAt - 1)), "load");
  double load_ms = ms_since(t0);
  build::Build b37 = require(s.load(sha_of(kChangedAt)), "load");
  t0 = std::chrono::steady_clock::now();
  auto d = require(diff::diff_builds(b36, b37), "diff");
  double diff_ms = ms_since(t0);

  std::sort(unchanged_ms.begin(), unchanged_ms.end());
  const double median_ms = unchanged_ms[unchanged_ms.size() / 2];
  const int64_t s1 = size_after[1], s36 = size_after[kChangedAt - 1], s37 = size_after[kChangedAt],
                s50 = size_after[kCommits];
  const double per_unchanged =
      static_cast<double>((s36 - s1) + (s50 - s37)) / ((kChangedAt - 2) + (kCommits - kChangedAt));

  std::printf(
      "store_bench: %d commits of %zu variants (%llu bytes of IR text per commit), "
      "commit %d changes one matmul variant (ttgir, llir, ptx from no_licm)\n",
      kCommits, base.variants.size(), static_cast<unsigned long long>(suite_bytes), kChangedAt);
  std::printf("  store size after commit 1:        %10lld bytes\n", static_cast<long long>(s1));
  std::printf("  store size after commit %d:       %10lld bytes\n", kChangedAt - 1,
              static_cast<long long>(s36));
  std::printf("  store size after commit %d:       %10lld bytes (+%lld)\n", kChangedAt,
              static_cast<long long>(s37), static_cast<long long>(s37 - s36));
  std::printf("  store size after commit %d:       %10lld bytes\n", kCommits,
              static_cast<long long>(s50));
  std::printf(
      "  bytes per unchanged commit:       %10.0f (file growth over 48 commits; "
      "%.0f bytes of row payload, the rest is SQLite page slack)\n",
      per_unchanged, row_bytes_per_commit(path, kCommits));
  std::printf("  changed kernel's IR:              %10lld bytes compressed (%lld raw, %zu blobs)\n",
              static_cast<long long>(changed_stored), static_cast<long long>(changed_raw),
              changed_stats.new_blobs);
  std::printf("  growth at commit %d / its IR:     %10.2fx\n", kChangedAt,
              static_cast<double>(s37 - s36) / static_cast<double>(changed_stored));
  std::printf("  record: first %.1f ms, unchanged median %.1f ms, changed %.1f ms\n", first_ms,
              median_ms, changed_ms);
  std::printf(
      "  log (all kernels) %.1f ms, log matmul_kernel --stage ttgir %.1f ms, verify %.1f ms "
      "(%lld blobs), load one commit %.1f ms, diff of two recorded commits %.1f ms\n",
      log_ms, log_kernel_ms, verify_ms, static_cast<long long>(report.blobs), load_ms, diff_ms);
  std::printf("  ksnap log lists %zu commit(s):\n", log.size());
  for (const auto& e : log)
    for (const auto& k : e.kernels) std::printf("    %s\n", history::format_log_line(e, k).c_str());

  bool ok = log.size() == 1 && log[0].commit.sha == sha_of(kChangedAt) && kernel_only.size() == 1 &&
            kernel_only[0].commit.sha == sha_of(kChangedAt) && report.ok() && d.any_change();

  // Noise: the same IR compiled from a moved, renamed source file.
  if (fs::exists(corpus + "/noise/manifest.json")) {
    build::Build noise = require(build::load_build(corpus + "/noise"), "load noise");
    store::RecordOptions o;
    o.sha = sha_of(kCommits + 1);
    o.parents = {sha_of(kCommits)};
    store::Store w = require(store::Store::open(path), "open");
    // Its IR equals base's (commits 1..36), spelled differently everywhere.
    store::RecordStats st = require(w.record(noise, o), "record noise");
    w = require(store::Store::open(path), "reopen");
    int64_t s51 = store_bytes(path);
    std::printf(
        "  noise-only commit (other paths, SSA names, loc tables): %zu new blobs, "
        "%zu new variant records, store +%lld bytes\n",
        st.new_blobs, st.new_variants, static_cast<long long>(s51 - s50));
  }
  std::printf("  check: log finds exactly commit %d, verify ok: %s\n", kChangedAt,
              ok ? "yes" : "NO");
  fs::remove_all(tmp);
  return ok ? 0 : 1;
}
