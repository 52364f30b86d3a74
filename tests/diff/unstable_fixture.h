// Test input for compiler nondeterminism, made from real IR: a copy of a
// capture in which attn_fwd was "compiled again" the way Triton's
// warp-specialized persistent matmul compiles in another process (issue 8):
// two independent ops in the other order (TTGIR: the K and V shared-memory
// allocations) and two @global_smem buffer offsets swapped (LLVM IR: 8192 and
// 16384). Same program, other text. Used by diff, store and CLI tests until
// the GPU captures of the real case land in tests/fixtures/realworld/.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ksnap::testing {

inline std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Swaps every occurrence of `a` and `b` in `text`; returns the count swapped.
inline size_t swap_all(std::string* text, const std::string& a, const std::string& b) {
  const std::string mark = "\x01swap\x01";
  size_t n = 0;
  auto replace = [&](const std::string& from, const std::string& to) {
    for (size_t at = 0; (at = text->find(from, at)) != std::string::npos; at += to.size()) {
      text->replace(at, from.size(), to);
      ++n;
    }
  };
  replace(a, mark);
  replace(b, a);
  replace(mark, b);
  return n;
}

/// Swaps the lines that start (after indentation) with `first` and `second`.
inline bool swap_lines(std::string* text, const std::string& first, const std::string& second) {
  size_t a = text->find(first), b = text->find(second);
  if (a == std::string::npos || b == std::string::npos || b < a) return false;
  a = text->rfind('\n', a) + 1;
  b = text->rfind('\n', b) + 1;
  size_t a_end = text->find('\n', a), b_end = text->find('\n', b);
  std::string la = text->substr(a, a_end - a), lb = text->substr(b, b_end - b);
  text->replace(b, lb.size(), la);
  text->replace(a, la.size(), lb);
  return true;
}

/// The attn_fwd stage file of the capture `dir` (the first found).
inline std::string attn_file(const std::string& dir, const std::string& ext) {
  for (auto& p : std::filesystem::recursive_directory_iterator(dir + "/cache"))
    if (p.path().filename() == "attn_fwd." + ext) return p.path().string();
  return "";
}

/// Copies capture `from` to `to` and recompiles attn_fwd "nondeterministically"
/// there. Returns false when `from` has no attn_fwd with those ops.
inline bool copy_with_unstable_attn(const std::string& from, const std::string& to) {
  namespace fs = std::filesystem;
  fs::copy(from, to, fs::copy_options::recursive);
  for (auto& p : fs::recursive_directory_iterator(to))
    fs::permissions(p.path(), fs::perms::owner_write, fs::perm_options::add);
  std::string ttgir = attn_file(to, "ttgir"), llir = attn_file(to, "llir");
  if (ttgir.empty() || llir.empty()) return false;
  std::string t = read_all(ttgir), l = read_all(llir);
  if (!swap_lines(&t, "%k_45 = ttg.local_alloc", "%v_46 = ttg.local_alloc")) return false;
  if (swap_all(&l, "@global_smem, i32 8192)", "@global_smem, i32 16384)") == 0) return false;
  std::ofstream(ttgir, std::ios::binary | std::ios::trunc) << t;
  std::ofstream(llir, std::ios::binary | std::ios::trunc) << l;
  return true;
}

}  // namespace ksnap::testing
