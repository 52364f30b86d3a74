// Two-file diff against the number of functions: `ksnap diff a.llir b.llir`
// timed against `ksnap normalize a.llir` of the same file, run by the same
// process one after the other (the reference measured in the same run).
//
// The files are built from real functions: every `define` of the corpus's
// LLVM IR (base build) whose body, debug attachments (`, !dbg !N`) removed,
// is at most --max-function-bytes (default 2048: the smallest real kernel,
// add_kernel with BLOCK_SIZE=256, 1.6 KB). Function k is pool function
// k mod |pool| renamed @f<k>; each file ends with the pool's declarations and
// attribute groups (renumbered per source file). --max-instructions K cuts
// each function to the first K instructions of its entry block and
// `ret void` (valid IR; K = 2: about 310 bytes a function, for the largest N
// within memory). HEAD is BASE with a small
// perturbation: in every 100th function (--perturb-every) the integer
// constant that ends the first instruction ending in one is one higher
// (`%8 = shl i32 %7, 8` -> `, 9`), as a tile-size change would do.
//
// For each N (default 10k, 30k, 100k, 300k, 1M) prints the file size, wall
// and CPU seconds (user + sys, the children's rusage) and peak RSS of both
// commands, and diff/normalize ratios. A run over --timeout-s (300) is
// killed and reported as such; an N whose diff would need more memory than
// the machine has available (estimated from the last N's peak RSS per input
// byte, against MemAvailable, or against --mem-gib where the machine grows
// its memory as it is used: a VM whose MemTotal starts small) is skipped and
// said so. The diff's output is
// kept in WORK/diff_<N>.txt with its size and XXH3 hash, to compare two
// builds' outputs byte for byte; --keep keeps the last N's files too (to
// profile them).
//
// Usage: two_file_diff_bench [--ksnap PATH] [--n 10000,30000,...]
//          [--timeout-s 300] [--max-function-bytes 2048] [--max-instructions 0]
//          [--perturb-every 100] [--keep] [--mem-gib G]
//          [--work /tmp/ksnap_bench_two_file] [--corpus DIR]
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "child_run.h"
#include "ksnap/support/file.h"
#include "ksnap/support/hash.h"

#ifndef KSNAP_CLI_PATH
#define KSNAP_CLI_PATH "ksnap"  // from PATH when the build has no CLI target
#endif

namespace fs = std::filesystem;

namespace {

/// One real function, ready to be renamed: the define line split around the
/// function's name, and its body as BASE and HEAD write it.
struct PoolFunction {
  std::string before_name, after_name;  // "define ptx_kernel void @" | "(ptr ...) #3 {\n...}\n"
  std::string head_after_name;          // after_name with the perturbation
  std::string source;
};

struct Pool {
  std::vector<PoolFunction> functions;
  std::string header, trailer;  // module header lines; declarations + attribute groups
};

/// `, !dbg !12` and ` !dbg !4` removed (the metadata they name is dropped).
std::string strip_debug(const std::string& line) {
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size();) {
    size_t at = line.find(" !dbg !", i);
    if (at == std::string::npos) {
      out.append(line, i, std::string::npos);
      break;
    }
    size_t cut = at > i && line[at - 1] == ',' ? at - 1 : at;
    out.append(line, i, cut - i);
    size_t j = at + 7;
    while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
    i = j;
  }
  return out;
}

/// Attribute-group references `#N` renumbered to `#(N + offset)`.
std::string renumber_attrs(const std::string& line, int offset) {
  std::string out;
  for (size_t i = 0; i < line.size(); ++i) {
    out += line[i];
    if (line[i] != '#' || i + 1 >= line.size() ||
        !std::isdigit(static_cast<unsigned char>(line[i + 1])))
      continue;
    size_t j = i + 1;
    while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
    out += std::to_string(std::stoi(line.substr(i + 1, j - i - 1)) + offset);
    i = j - 1;
  }
  return out;
}

/// The body with the integer that ends its first instruction ending in one
/// raised by one; empty when no line does.
std::string perturb(const std::string& body) {
  std::istringstream in(body);
  std::string line, out;
  bool done = false;
  while (std::getline(in, line)) {
    if (!done && line.size() > 2 && line[0] == ' ' && line.find(" = ") != std::string::npos) {
      size_t end = line.size(), d = end;
      while (d > 0 && std::isdigit(static_cast<unsigned char>(line[d - 1]))) --d;
      if (d < end && d >= 2 && line[d - 1] == ' ' && line[d - 2] == ',') {
        line = line.substr(0, d) + std::to_string(std::stoll(line.substr(d)) + 1);
        done = true;
      }
    }
    out += line;
    out += '\n';
  }
  return done ? out : std::string();
}

/// The define line and the first `n` instructions of the entry block of a
/// `void` function, then `ret void`: still valid IR, a smaller real function.
std::string first_instructions(const std::string& body, size_t n) {
  std::istringstream in(body);
  std::string line, out;
  std::getline(in, line);
  out = line + "\n";
  for (size_t k = 0; k < n && std::getline(in, line);) {
    if (line.size() < 3 || line[0] != ' ' || line.find(" br ") != std::string::npos ||
        line.rfind("  ret ", 0) == 0 || line.rfind("  br ", 0) == 0)
      break;
    out += line + "\n";
    ++k;
  }
  return out + "  ret void\n}\n";
}

Pool load_pool(const std::string& corpus, size_t max_bytes, size_t max_instructions) {
  Pool pool;
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto& d : fs::directory_iterator(corpus + "/base/cache", ec))
    for (auto& f : fs::directory_iterator(d.path(), ec))
      if (f.path().extension() == ".llir") files.push_back(f.path());
  std::sort(files.begin(), files.end());
  std::map<std::string, std::string> declarations;  // by name: one each
  std::string attributes;
  int offset = 0;
  for (const fs::path& path : files) {
    std::ifstream in(path);
    std::string line, body, name;
    bool in_body = false;
    int max_attr = -1;
    PoolFunction fn;
    while (std::getline(in, line)) {
      if (pool.header.empty() && line.rfind("target datalayout", 0) == 0)
        pool.header = line + "\n\n";
      if (line.rfind("define ", 0) == 0) {
        size_t at = line.find('@'), paren = line.find('(', at);
        if (at == std::string::npos || paren == std::string::npos) continue;
        fn.before_name = line.substr(0, at + 1);
        name = line.substr(at + 1, paren - at - 1);
        body = renumber_attrs(strip_debug(line.substr(paren)), offset) + "\n";
        in_body = true;
      } else if (in_body) {
        body += renumber_attrs(strip_debug(line), offset) + "\n";
        if (line == "}") in_body = false;
      } else if (line.rfind("declare ", 0) == 0) {
        size_t at = line.find('@');
        declarations.emplace(line.substr(at, line.find('(', at) - at),
                             renumber_attrs(line, offset));
      } else if (line.rfind("attributes #", 0) == 0) {
        int n = std::stoi(line.substr(12));
        max_attr = std::max(max_attr, n);
        attributes += renumber_attrs(line, offset) + "\n";
      }
    }
    offset += max_attr + 1;
    size_t size = fn.before_name.size() + name.size() + body.size();
    if (name.empty() || size > max_bytes) continue;
    if (max_instructions) {
      if (fn.before_name.find(" void @") == std::string::npos) continue;
      body = first_instructions(body, max_instructions);
    }
    fn.after_name = body;
    fn.head_after_name = perturb(body);
    if (fn.head_after_name.empty()) continue;
    fn.source =
        path.parent_path().filename().string().substr(0, 8) + "/" + path.filename().string();
    pool.functions.push_back(std::move(fn));
  }
  for (const auto& [n, d] : declarations) pool.trailer += d + "\n";
  pool.trailer += "\n" + attributes;
  return pool;
}

/// Writes the N-function file of one side; returns its size in bytes.
uint64_t write_file(const Pool& pool, size_t n, bool head, size_t every, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  std::string chunk = pool.header;
  uint64_t bytes = 0;
  for (size_t k = 0; k < n; ++k) {
    const PoolFunction& f = pool.functions[k % pool.functions.size()];
    chunk += f.before_name;
    chunk += 'f';
    chunk += std::to_string(k);
    chunk += head && k % every == every - 1 ? f.head_after_name : f.after_name;
    chunk += '\n';
    if (chunk.size() > (1u << 22)) {
      out << chunk;
      bytes += chunk.size();
      chunk.clear();
    }
  }
  chunk += pool.trailer;
  out << chunk;
  bytes += chunk.size();
  return bytes;
}

using ksnap::bench::RunResult;
using ksnap::bench::run;

/// MemAvailable of /proc/meminfo in bytes (0 when unknown).
uint64_t mem_available() {
  std::ifstream in("/proc/meminfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("MemAvailable:", 0) == 0) return std::stoull(line.substr(13)) * 1024;  // kB
  return 0;
}

std::string describe(const RunResult& r, double timeout_s) {
  char buf[160];
  if (r.killed)
    std::snprintf(buf, sizeof buf, "killed after %.0f s (peak RSS %.0f MiB)", timeout_s,
                  r.peak_rss_mib);
  else if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) > 1)
    std::snprintf(buf, sizeof buf, "FAILED (status %d)", r.status);
  else
    std::snprintf(buf, sizeof buf, "%7.2f s wall %7.2f s cpu %7.0f MiB", r.wall_s, r.cpu_s,
                  r.peak_rss_mib);
  return buf;
}

bool ok(const RunResult& r) {
  return r.ran && !r.killed && WIFEXITED(r.status) && WEXITSTATUS(r.status) <= 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string ksnap = KSNAP_CLI_PATH;
  std::string corpus = KSNAP_CORPUS_DIR;
  std::string work = "/tmp/ksnap_bench_two_file";
  std::vector<size_t> ns = {10000, 30000, 100000, 300000, 1000000};
  double timeout_s = 300;
  bool keep = false;
  double mem_gib = 0;  // 0: MemAvailable
  size_t max_fn = 2048, every = 100, max_instructions = 0;
  for (int i = 1; i < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--keep") {
      keep = true;
      --i;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "%s needs a value\n", k.c_str());
      return 2;
    }
    std::string v = argv[i + 1];
    if (k == "--ksnap")
      ksnap = v;
    else if (k == "--corpus")
      corpus = v;
    else if (k == "--work")
      work = v;
    else if (k == "--timeout-s")
      timeout_s = std::stod(v);
    else if (k == "--mem-gib")
      mem_gib = std::stod(v);
    else if (k == "--max-function-bytes")
      max_fn = std::stoul(v);
    else if (k == "--max-instructions")
      max_instructions = std::stoul(v);
    else if (k == "--perturb-every")
      every = std::max<size_t>(1, std::stoul(v));
    else if (k == "--n") {
      ns.clear();
      std::stringstream ss(v);
      for (std::string x; std::getline(ss, x, ',');) ns.push_back(std::stoul(x));
    } else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  Pool pool = load_pool(corpus, max_fn, max_instructions);
  if (pool.functions.empty()) {
    std::fprintf(stderr, "no LLVM IR function of at most %zu bytes under %s/base/cache\n", max_fn,
                 corpus.c_str());
    return 2;
  }
  std::printf("ksnap: %s\npool: %zu real function(s) of at most %zu bytes:", ksnap.c_str(),
              pool.functions.size(), max_fn);
  for (const PoolFunction& f : pool.functions) std::printf(" %s", f.source.c_str());
  if (max_instructions)
    std::printf("\n  each cut to its first %zu instructions and `ret void`", max_instructions);
  std::printf("\nHEAD: one integer constant raised in 1 of every %zu functions\n\n", every);
  std::printf("%9s %8s | %-40s | %-40s | %8s %8s %8s\n", "functions", "MB", "ksnap normalize BASE",
              "ksnap diff BASE HEAD", "wall x", "cpu x", "RSS x");
  fs::create_directories(work);
  double rss_per_byte = 0;  // of the last diff
  for (size_t n : ns) {
    std::string base = work + "/base/many.llir", head = work + "/head/many.llir";
    fs::create_directories(work + "/base");
    fs::create_directories(work + "/head");
    // Skipped when the last N's peak RSS per input byte says the diff would
    // not fit (the file is about N average pool functions).
    double fn_bytes = 0;
    for (const PoolFunction& f : pool.functions)
      fn_bytes += f.before_name.size() + f.after_name.size() + 8;
    fn_bytes /= static_cast<double>(pool.functions.size());
    double need = rss_per_byte * fn_bytes * static_cast<double>(n);
    uint64_t avail = mem_gib > 0 ? static_cast<uint64_t>(mem_gib * (1u << 30)) : mem_available();
    if (rss_per_byte > 0 && avail && need > 0.8 * static_cast<double>(avail)) {
      std::printf("%9zu   skipped: the diff would need about %.1f GiB, %.1f GiB available\n", n,
                  need / (1u << 30), static_cast<double>(avail) / (1u << 30));
      continue;
    }
    uint64_t bytes = write_file(pool, n, false, every, base);
    write_file(pool, n, true, every, head);
    RunResult norm = run({ksnap, "normalize", base}, "/dev/null", timeout_s);
    std::string diff_out = work + "/diff_" + std::to_string(n) + ".txt";
    RunResult diff =
        run({ksnap, "diff", "--no-pager", "--color", "never", base, head}, diff_out, timeout_s);
    std::printf("%9zu %8.1f | %-40s | %-40s |", n, bytes / 1e6, describe(norm, timeout_s).c_str(),
                describe(diff, timeout_s).c_str());
    if (ok(norm) && ok(diff))
      std::printf(" %8.2f %8.2f %8.2f", diff.wall_s / norm.wall_s, diff.cpu_s / norm.cpu_s,
                  diff.peak_rss_mib / norm.peak_rss_mib);
    if (ok(diff)) {
      auto text = ksnap::read_text_file(diff_out);
      if (text)
        std::printf("  output %zu bytes xxh3 %016llx", text->size(),
                    static_cast<unsigned long long>(ksnap::hash64(text->view())));
    }
    std::printf("\n");
    std::fflush(stdout);
    if (!keep) {
      fs::remove(base);
      fs::remove(head);
    }
    rss_per_byte = diff.peak_rss_mib * 1048576.0 / static_cast<double>(bytes);
    if (!ok(diff)) {
      std::printf("(larger N not run: the diff did not finish at this N)\n");
      break;
    }
  }
  return 0;
}
