// Runs a program as a child process for the benches that time the ksnap CLI
// (two_file_diff_bench, diff_speed_bench's memory mode): wall and CPU
// seconds and peak RSS from wait4, stdout to a file, killed after a time
// limit.
//
//   RunResult r = run({"ksnap", "normalize", "big.llir"}, "/dev/null", 600);
//   if (r.ran && !r.killed) std::printf("%.0f MiB\n", r.peak_rss_mib);
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace ksnap::bench {

struct RunResult {
  bool ran = false, killed = false;
  int status = 0;  ///< wait4's status.
  double wall_s = 0, cpu_s = 0;
  double peak_rss_mib = 0;
  /// The exit code, -1 when it did not exit (killed, a signal, not run).
  int exit_code() const { return ran && WIFEXITED(status) ? WEXITSTATUS(status) : -1; }
};

/// Runs `argv` with stdout to `out_path` (and stderr too with
/// `quiet_stderr`), killed after `timeout_s`.
inline RunResult run(const std::vector<std::string>& argv, const std::string& out_path,
                     double timeout_s, bool quiet_stderr = false) {
  RunResult r;
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) return r;
  if (pid == 0) {
    int fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      if (quiet_stderr) dup2(fd, 2);
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  r.ran = true;
  rusage ru{};
  while (true) {
    pid_t w = wait4(pid, &r.status, WNOHANG, &ru);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {  // lost the child: report it as failed
      r.status = -1;
      break;
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s > timeout_s && !r.killed) {
      kill(pid, SIGKILL);
      r.killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
            ru.ru_stime.tv_usec / 1e6;
  r.peak_rss_mib = ru.ru_maxrss / 1024.0;
  return r;
}

}  // namespace ksnap::bench
