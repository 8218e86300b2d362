#include "doctor_run.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

#include "core/event_visitor.hpp"
#include "log/reader.hpp"

namespace gpufl::cli {
namespace {

class NoteCollector : public EventVisitor {
 public:
  explicit NoteCollector(doctor::EngineRun& run) : run_(run) {}
  void onNote(const Note& n) override { run_.notes[n.feature] = {n.status, n.reason}; }
  void onKernel(const KernelEvent&) override { ++run_.kernels; }

 private:
  doctor::EngineRun& run_;
};

std::string selfExecutable() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  buf[n] = '\0';
  return buf;
}

// The last non-empty line of a file, for "exit status 1: <what it said>".
std::string lastLine(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last.size() > 300 ? last.substr(0, 300) + "..." : last;
}

}  // namespace

void readDoctorLog(const std::string& prefix, doctor::EngineRun& run) {
  NoteCollector collector(run);
  log::ReadOptions options;
  log::readPrefix(prefix, options, collector);
}

doctor::EngineRun runDoctorEngine(const std::string& engine, const DoctorRunOptions& options) {
  doctor::EngineRun run;
  run.engine = engine;
  const std::string self = selfExecutable();
  if (self.empty()) {
    run.error = "cannot find this executable (/proc/self/exe)";
    return run;
  }
  const std::string prefix = options.work_dir + "/probe_" + engine;
  const std::string output = prefix + ".out";
  std::vector<std::string> args = {self,   "trace", "-q", "--engine", engine,          "-o",
                                   prefix, "--",    self, "doctor",   "--probe-kernel"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t pid = fork();
  if (pid < 0) {
    run.error = "fork failed";
    return run;
  }
  if (pid == 0) {
    setpgid(0, 0);  // its own group, so a timeout kills the program gpufl trace started too
    // No terminal reaches the run: gpufl trace then hands none over, and nothing waits on input.
    int in = open("/dev/null", O_RDONLY);
    if (in >= 0) dup2(in, STDIN_FILENO);
    int fd = open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      close(fd);
    }
    execv(self.c_str(), argv.data());
    _exit(127);
  }
  setpgid(pid, pid);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options.timeout_s);
  int status = 0;
  pid_t done = 0;
  while ((done = waitpid(pid, &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (done == 0) {
    kill(-pid, SIGKILL);
    waitpid(pid, &status, 0);
    run.error = "timed out after " + std::to_string(options.timeout_s) + " s (killed)";
  } else if (done < 0) {
    run.error = "waitpid failed";
  } else if (WIFSIGNALED(status)) {
    run.error = "killed by signal " + std::to_string(WTERMSIG(status)) + ": " + lastLine(output);
  } else if (WEXITSTATUS(status) != 0) {
    run.error = "exit status " + std::to_string(WEXITSTATUS(status)) + ": " + lastLine(output);
  } else {
    run.ran = true;
  }
  readDoctorLog(prefix, run);
  return run;
}

}  // namespace gpufl::cli
