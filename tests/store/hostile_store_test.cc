// The history store against damaged or hostile data (issue 15 items 5, 6, 9):
//   - a damaged blob row is a located error on every read path (load,
//     blob_text, verify), never an exception or an allocation of what the
//     row claims;
//   - `store gc` running while a record plans never costs that record its
//     variant records or blobs (real threads, many rounds);
//   - a store opened read-only is never written: not an empty file, not a
//     store of a newer schema (whose journal mode the old code switched to
//     WAL), not a version-1 store.
// The CLI side is tests/cli/hostile_store_cli_test.cc.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <thread>

#include "ksnap/build/build.h"
#include "ksnap/store/maintenance.h"
#include "ksnap/store/store.h"
#include "ksnap/support/hash.h"
#include "store/codec.h"
#include "store/hostile_util.h"
#include "store/test_util.h"

namespace fs = std::filesystem;

namespace ksnap::store {
namespace {

using testing::corpus_build;
using testing::ScratchDir;

const std::string kShaA(40, 'a'), kShaB(40, 'b');

using testing::file_state;
using testing::FileState;
using testing::run_sql;

class HostileStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (corpus_build("base").empty() || corpus_build("no_licm").empty())
      GTEST_SKIP() << "no corpus";
    auto b = build::load_build(corpus_build("base"));
    auto o = build::load_build(corpus_build("no_licm"));
    ASSERT_TRUE(b && o);
    base_ = std::move(*b);
    other_ = std::move(*o);
    path_ = dir_.file("h.db");
    auto s = Store::open(path_, true);
    ASSERT_TRUE(s) << s.status().to_string();
    ASSERT_TRUE(s->record(base_, testing::commit(kShaA)));
    ASSERT_TRUE(s->record(other_, testing::commit(kShaB, {kShaA})));
  }
  /// A blob of commit B that commit A does not have (no_licm changed it).
  std::string changed_blob() {
    auto s = Store::open_read_only(path_);
    EXPECT_TRUE(s);
    auto a = s->variants(kShaA), b = s->variants(kShaB);
    EXPECT_TRUE(a && b);
    std::set<std::string> in_a;
    for (const auto& v : *a)
      for (const auto& st : v.stages) in_a.insert(st.blob);
    for (const auto& v : *b)
      for (const auto& st : v.stages)
        if (!in_a.count(st.blob) && st.stage == "ttgir") return st.blob;
    ADD_FAILURE() << "no blob changed";
    return "";
  }

  ScratchDir dir_;
  std::string path_;
  build::Build base_, other_;
};

TEST_F(HostileStoreTest, ADamagedBlobIsALocatedErrorOnEveryReadPath) {
  const std::string id = changed_blob();
  auto s0 = Store::open_read_only(path_);
  ASSERT_TRUE(s0);
  auto text = s0->blob_text(id);
  ASSERT_TRUE(text) << text.status().to_string();
  std::string same_size_other = *text;
  same_size_other[same_size_other.size() / 2] ^= 0x01;
  struct Case {
    const char* name;
    int64_t raw_size;
    std::string frame;
    const char* message;
  };
  const std::string no_size = testing::frame_without_size(*text);
  const int64_t size = static_cast<int64_t>(text->size());
  const Case cases[] = {
      {"size -1", -1, no_size, "stored size -1 is not in"},
      {"size 64 GiB", int64_t{64} << 30, no_size, "stored size 68719476736"},
      {"size 4 GiB", int64_t{4} << 30, no_size, "expected 4294967296"},
      {"fewer bytes", size + 7, no_size, "decompressed to"},
      {"more bytes", size, testing::frame_without_size(*text + "x"), "more than the stored size"},
      {"other text", size, compress(same_size_other, 3), "content hash differs"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ScratchDir copy;
    const std::string path = copy.file("h.db");
    fs::copy_file(path_, path);
    run_sql(path,
            "UPDATE blobs SET raw_size = " + std::to_string(c.raw_size) +
                ", data = ? WHERE id = '" + id + "'",
            &c.frame);
    auto s = Store::open_read_only(path);
    ASSERT_TRUE(s) << s.status().to_string();
    // load: the commit, the kernel and stage, the blob, the store file.
    auto b = s->load(kShaB);
    ASSERT_FALSE(b);
    EXPECT_EQ(b.status().code(), ErrorCode::kCorrupt);
    const std::string m = b.status().message();
    EXPECT_EQ(m.rfind("commit bbbbbbbbbbbb, ", 0), 0u) << m;
    EXPECT_NE(m.find(" stage ttgir: blob " + id + ": "), std::string::npos) << m;
    EXPECT_NE(m.find(c.message), std::string::npos) << m;
    EXPECT_EQ(b.status().location().file, path);
    // The other commit does not name the blob and loads.
    EXPECT_TRUE(s->load(kShaA));
    auto t = s->blob_text(id);
    ASSERT_FALSE(t);
    EXPECT_NE(t.status().message().find(c.message), std::string::npos) << t.status().message();
    // verify: one problem naming the blob, not an error.
    auto r = verify(*s);
    ASSERT_TRUE(r) << r.status().to_string();
    ASSERT_EQ(r->problems.size(), 1u);
    EXPECT_EQ(r->problems[0].rfind("blob " + id + ": ", 0), 0u) << r->problems[0];
  }
}

TEST_F(HostileStoreTest, ADamagedVariantRecordNamesTheCommitAndRecord) {
  const std::string frame = testing::frame_without_size("{}");
  for (const char* size : {"-1", "68719476736", "2", "3"}) {
    SCOPED_TRACE(size);
    ScratchDir copy;
    const std::string path = copy.file("h.db");
    fs::copy_file(path_, path);
    run_sql(path, std::string("UPDATE variants SET size = ") + size + ", data = ?", &frame);
    auto s = Store::open_read_only(path);
    ASSERT_TRUE(s);
    auto v = s->variants(kShaB);
    ASSERT_FALSE(v);
    EXPECT_EQ(v.status().code(), ErrorCode::kCorrupt);
    EXPECT_EQ(v.status().message().rfind("commit bbbbbbbbbbbb: variant record ", 0), 0u)
        << v.status().message();
    EXPECT_EQ(v.status().location().file, path);
  }
}

TEST_F(HostileStoreTest, LoadStopsAtItsDecompressionBudget) {
  auto s = Store::open_read_only(path_);
  ASSERT_TRUE(s);
  LoadOptions o;
  o.max_text_bytes = 1000;
  auto b = s->load(kShaA, o);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(b.status().message().find("decompression budget of 1000 bytes"), std::string::npos)
      << b.status().message();
  EXPECT_TRUE(s->load(kShaA));
}

// Issue 15 item 6. Commit A is recorded then forgotten: its tree, records
// and blobs are unreferenced, so gc deletes them. Commit B records the same
// capture: its plan finds all of them stored. gc is started at offsets swept
// from "long before the record" to "after it started", so that in some
// rounds it commits between the record's plan and its write transaction;
// the old record then wrote a commit whose tree named the deleted records
// (verify: one problem per variant). Every round must end with a clean
// store and a whole commit B.
TEST_F(HostileStoreTest, GcDuringRecordNeverLosesACommit) {
  using Clock = std::chrono::steady_clock;
  // How long a record of an already stored capture, and a gc of a forgotten
  // one, take here.
  Clock::duration record_time{}, gc_time{};
  {
    ScratchDir d;
    auto s = Store::open(d.file("t.db"), true);
    ASSERT_TRUE(s);
    ASSERT_TRUE(s->record(base_, testing::commit(kShaA)));
    auto t0 = Clock::now();
    ASSERT_TRUE(s->record(base_, testing::commit(kShaB)));
    record_time = Clock::now() - t0;
    ASSERT_TRUE(s->forget(kShaA).is_ok() && s->forget(kShaB).is_ok());
    t0 = Clock::now();
    ASSERT_TRUE(gc(*s, false));
    gc_time = Clock::now() - t0;
  }
  constexpr int kRounds = 40;
  // gc's start minus the record's: from -(gc + record) to +record/2.
  const Clock::duration from = -(gc_time + record_time), span = gc_time + record_time * 3 / 2;
  int gc_first = 0;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    ScratchDir d;
    const std::string path = d.file("r.db");
    {
      auto s = Store::open(path, true);
      ASSERT_TRUE(s);
      ASSERT_TRUE(s->record(base_, testing::commit(kShaA)));
      ASSERT_TRUE(s->forget(kShaA).is_ok());
    }
    auto writer = Store::open(path);
    auto collector = Store::open(path);
    ASSERT_TRUE(writer && collector);
    const Clock::duration offset = from + span * round / kRounds;
    Expected<RecordStats> rec = Status();
    Expected<GcReport> g = Status();
    std::thread gc_thread([&] {
      if (offset > Clock::duration::zero()) std::this_thread::sleep_for(offset);
      g = gc(*collector, false);
    });
    if (offset < Clock::duration::zero()) std::this_thread::sleep_for(-offset);
    rec = writer->record(base_, testing::commit(kShaB));
    gc_thread.join();
    ASSERT_TRUE(rec) << rec.status().to_string();
    ASSERT_TRUE(g) << g.status().to_string();
    if (g->variants > 0) ++gc_first;
    auto r = verify(*writer);
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->ok()) << r->problems.size() << " problems, first: " << r->problems[0];
    auto b = writer->load(kShaB);
    ASSERT_TRUE(b) << b.status().to_string();
    ASSERT_EQ(b->variants.size(), base_.variants.size());
    for (size_t i = 0; i < base_.variants.size(); ++i)
      EXPECT_EQ(b->variants[i].stages.size(), base_.variants[i].stages.size());
  }
  std::printf("gc during record: %d rounds, gc deleted commit A's rows first in %d\n", kRounds,
              gc_first);
}

// Issue 15 item 9.
TEST(ReadOnlyStoreTest, ReadersNeverWriteAndNewerSchemasAreRefusedUnchanged) {
  ScratchDir dir;
  const std::string normal = dir.file("normal.db");
  {
    auto s = Store::open(normal, true);
    ASSERT_TRUE(s);
  }
  struct Case {
    const char* name;
    std::function<void(const std::string&)> make;
    ErrorCode reader;  // kOk: opens
    ErrorCode writer;  // Store::open without create
    const char* message;
  };
  const Case cases[] = {
      {"normal store", [&](const std::string& p) { fs::copy_file(normal, p); }, ErrorCode::kOk,
       ErrorCode::kOk, ""},
      {"newer schema, rollback journal",
       [&](const std::string& p) {
         fs::copy_file(normal, p);
         run_sql(p, "PRAGMA journal_mode=DELETE");
         run_sql(p, "UPDATE meta SET value='5' WHERE key='schema_version'");
       },
       ErrorCode::kUnsupported, ErrorCode::kUnsupported, "schema version 5"},
      {"empty file", [](const std::string& p) { std::ofstream(p).flush(); }, ErrorCode::kNotFound,
       ErrorCode::kNotFound, "not a ksnap history store"},
      {"version 2",
       [&](const std::string& p) {
         fs::copy_file(normal, p);
         run_sql(p, "DROP TABLE norm_hashes");
         run_sql(p, "UPDATE meta SET value='2' WHERE key='schema_version'");
       },
       ErrorCode::kOk, ErrorCode::kOk, ""},
      {"version 1",
       [&](const std::string& p) {
         fs::copy_file(normal, p);
         run_sql(p, "DROP TABLE norm_hashes");
         run_sql(p, "DROP TABLE unstable");
         run_sql(p, "UPDATE meta SET value='1' WHERE key='schema_version'");
       },
       ErrorCode::kOk, ErrorCode::kOk, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ScratchDir d;
    const std::string path = d.file("s.db");
    c.make(path);
    const FileState before = file_state(path);
    {
      auto r = Store::open_read_only(path);
      EXPECT_EQ(r ? ErrorCode::kOk : r.status().code(), c.reader)
          << (r ? "" : r.status().to_string());
      if (r) {
        EXPECT_TRUE(r->commits());
        EXPECT_TRUE(r->stats());
        EXPECT_TRUE(r->unstable());
        auto v = verify(*r);
        ASSERT_TRUE(v);
        EXPECT_TRUE(v->ok());
        Status w = r->forget(kShaA);  // a writing call through a reader fails
        EXPECT_FALSE(w.is_ok());
      } else {
        EXPECT_NE(r.status().message().find(c.message), std::string::npos) << r.status().message();
        EXPECT_EQ(r.status().location().file, path);
      }
    }
    EXPECT_TRUE(file_state(path) == before) << "the reader changed the file";
    if (c.writer == ErrorCode::kOk) continue;
    auto w = Store::open(path);
    ASSERT_FALSE(w);
    EXPECT_EQ(w.status().code(), c.writer) << w.status().to_string();
    EXPECT_NE(w.status().message().find(c.message), std::string::npos) << w.status().message();
    EXPECT_TRUE(file_state(path) == before) << "the refused writer changed the file";
  }
  // A missing file stays missing.
  const std::string missing = dir.file("missing.db");
  auto m = Store::open_read_only(missing);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.status().code(), ErrorCode::kNotFound);
  EXPECT_FALSE(fs::exists(missing));
}

}  // namespace
}  // namespace ksnap::store
