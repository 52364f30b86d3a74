#include "ksnap/store/git.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace ksnap::store::git {

namespace {

constexpr const char* kLogFormat = "--format=%H%x09%ct%x09%P%x09%s";

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

/// Reads both pipes to EOF without deadlocking on a full one.
void drain(int out_fd, int err_fd, std::string* out, std::string* err) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {out, err};
  int open_count = 2;
  char buf[65536];
  while (open_count > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
}

}  // namespace

Expected<std::string> run(const std::string& repo, const std::vector<std::string>& args) {
  std::vector<std::string> argv_s = {"git", "-C", repo.empty() ? "." : repo};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);

  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return make_error(ErrorCode::kIoError, "pipe failed");
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return make_error(ErrorCode::kIoError, "pipe failed");
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, "git", &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (rc != 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    return make_error(ErrorCode::kUnavailable, std::string("cannot run git: ") + std::strerror(rc));
  }
  std::string out, err;
  drain(out_pipe[0], err_pipe[0], &out, &err);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string cmd = "git";
    for (const auto& a : args) cmd += " " + a;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
      return make_error(ErrorCode::kUnavailable, "cannot run git");
    return make_error(ErrorCode::kNotFound, "`" + cmd + "` failed in " + repo + ": " + trim(err));
  }
  return out;
}

bool is_repository(const std::string& repo) {
  auto r = run(repo, {"rev-parse", "--is-inside-work-tree"});
  return r && trim(*r) == "true";
}

Expected<std::string> rev_parse(const std::string& repo, const std::string& rev) {
  KSNAP_ASSIGN_OR_RETURN(std::string out, run(repo, {"rev-parse", "--verify", "--quiet",
                                                     "--end-of-options", rev + "^{commit}"}));
  return trim(out);
}

Expected<Commit> show(const std::string& repo, const std::string& sha) {
  KSNAP_ASSIGN_OR_RETURN(std::string out,
                         run(repo, {"log", "-1", kLogFormat, "--end-of-options", sha}));
  KSNAP_ASSIGN_OR_RETURN(std::vector<Commit> c, parse_log(out));
  if (c.empty()) return make_error(ErrorCode::kNotFound, "git knows no commit " + sha);
  return c[0];
}

Expected<std::string> merge_base(const std::string& repo, const std::string& a,
                                 const std::string& b) {
  KSNAP_ASSIGN_OR_RETURN(std::string out, run(repo, {"merge-base", "--end-of-options", a, b}));
  return trim(out);
}

Expected<std::vector<Commit>> history(const std::string& repo, const std::string& start,
                                      size_t max_count, bool first_parent) {
  std::vector<std::string> args = {"log", kLogFormat};
  if (first_parent) args.push_back("--first-parent");
  if (max_count) args.push_back("--max-count=" + std::to_string(max_count));
  args.push_back("--end-of-options");
  args.push_back(start);
  KSNAP_ASSIGN_OR_RETURN(std::string out, run(repo, args));
  return parse_log(out);
}

Expected<std::vector<Commit>> parse_log(const std::string& text) {
  std::vector<Commit> out;
  size_t pos = 0;
  uint32_t line_no = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line.empty()) continue;
    std::vector<std::string> f;
    size_t start = 0;
    for (int i = 0; i < 3; ++i) {
      size_t tab = line.find('\t', start);
      if (tab == std::string::npos) break;
      f.push_back(line.substr(start, tab - start));
      start = tab + 1;
    }
    f.push_back(line.substr(start));
    auto bad = [&](const std::string& why) {
      return make_error(ErrorCode::kParseError, "git log output: " + why,
                        {"<git log>", line_no, 0});
    };
    if (f.size() != 4) return bad("expected 4 tab-separated fields");
    if (f[0].size() < 40) return bad("'" + f[0] + "' is not a commit id");
    Commit c;
    c.sha = f[0];
    char* end = nullptr;
    c.date = std::strtoll(f[1].c_str(), &end, 10);
    if (f[1].empty() || *end != '\0') return bad("'" + f[1] + "' is not a Unix time");
    size_t p = 0;
    while (p < f[2].size()) {
      size_t sp = f[2].find(' ', p);
      if (sp == std::string::npos) sp = f[2].size();
      if (sp > p) c.parents.push_back(f[2].substr(p, sp - p));
      p = sp + 1;
    }
    c.subject = f[3];
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace ksnap::store::git
