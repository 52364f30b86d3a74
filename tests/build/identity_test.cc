// Variant::source() and the source helpers: where a kernel is defined.
#include <gtest/gtest.h>

#include "ksnap/build/build.h"

namespace ksnap::build {
namespace {

Variant make(const std::string& qualname, const std::string& file) {
  Variant v;
  v.kernel = "matmul_kernel";
  v.qualname = qualname;
  v.source_file = file;
  return v;
}

TEST(IdentityTest, SourceTable) {
  struct Case {
    const char* qualname;
    const char* file;
    SourceKind kind;
    const char* source;
    std::vector<std::string> components;
    const char* tail1;
    const char* tail2;
  } cases[] = {
      // An imported module: the qualname, stable when the checkout moves.
      {"suite_kernels.matmul_kernel", "/work/main/gpu/capture/suite_kernels.py",
       SourceKind::kModule, "suite_kernels.matmul_kernel", {"suite_kernels"}, "suite_kernels",
       "suite_kernels"},
      {"pkg.ops.gemm.matmul_kernel", "", SourceKind::kModule, "pkg.ops.gemm.matmul_kernel",
       {"pkg", "ops", "gemm"}, "gemm", "ops.gemm"},
      // A script run as __main__: its file.
      {"__main__.matmul_kernel", "/ci/a/tutorials/03-matrix-multiplication.py",
       SourceKind::kFile, "/ci/a/tutorials/03-matrix-multiplication.py",
       {"ci", "a", "tutorials", "03-matrix-multiplication"}, "03-matrix-multiplication.py",
       "tutorials/03-matrix-multiplication.py"},
      {"", "/x/bench/a.py", SourceKind::kFile, "/x/bench/a.py", {"x", "bench", "a"}, "a.py",
       "bench/a.py"},
      // __main__ without a file: the qualname.
      {"__main__.matmul_kernel", "", SourceKind::kModule, "__main__.matmul_kernel", {"__main__"},
       "__main__", "__main__"},
      // Nested definition: the kernel name is dropped only at the end.
      {"tests.test_ops.test_fn.<locals>.matmul_kernel", "", SourceKind::kModule,
       "tests.test_ops.test_fn.<locals>.matmul_kernel",
       {"tests", "test_ops", "test_fn", "<locals>"}, "<locals>", "test_fn.<locals>"},
      // Nothing recorded (the shared corpus, bare caches).
      {"", "", SourceKind::kUnknown, "", {}, "", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.qualname) + " | " + c.file);
    Variant v = make(c.qualname, c.file);
    EXPECT_EQ(v.source_kind(), c.kind);
    EXPECT_EQ(v.source(), c.source);
    EXPECT_EQ(source_components(v), c.components);
    EXPECT_EQ(source_tail(v, 1), c.tail1);
    EXPECT_EQ(source_tail(v, 2), c.tail2);
  }
}

TEST(IdentityTest, CommonSuffix) {
  auto parts = [](const char* q, const char* f) { return source_components(make(q, f)); };
  // The same script from two checkouts.
  EXPECT_EQ(common_source_suffix(parts("", "/ci/a/bench/x.py"), parts("", "/ci/b/bench/x.py")), 2u);
  EXPECT_EQ(common_source_suffix(parts("", "/ci/a/bench/x.py"), parts("", "/ci/b/bench/y.py")), 0u);
  // A module and the file it is loaded from.
  EXPECT_EQ(common_source_suffix(parts("bench.x.matmul_kernel", ""), parts("", "/ci/b/bench/x.py")),
            2u);
  EXPECT_EQ(common_source_suffix(parts("", ""), parts("", "/x.py")), 0u);
}

TEST(IdentityTest, UnstableStagesAreLookedUpSorted) {
  Variant v;
  v.unstable_stages = {"llir", "ptx", "ttgir"};
  EXPECT_TRUE(v.unstable("llir"));
  EXPECT_TRUE(v.unstable("ttgir"));
  EXPECT_FALSE(v.unstable("ttir"));
}

}  // namespace
}  // namespace ksnap::build
