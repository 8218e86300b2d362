// A process's control socket: how `gpufl dump PID` reaches a running program (and, later, other
// requests from the CLI and the host monitor). A Unix datagram socket at
// <run dir>/<pid>.sock, where the run dir is $XDG_RUNTIME_DIR/gpufl or /tmp/gpufl-<uid>: a
// directory of this user's, mode 0700, the socket 0600; never on the network.
//
// One line per datagram: "dump <reason>". A thread of gpufl's waits for requests (waking every
// 250 ms to see whether it should stop) and hands each to the callback.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <thread>

namespace gpufl::runtime {

// The run dir for this user, created (0700) when `create`; "" with *why when unusable (another
// user's, not a directory, too open).
std::string controlRunDir(bool create, std::string* why);
std::string controlSocketPath(const std::string& run_dir, long pid);

class ControlChannel {
 public:
  using OnRequest = std::function<void(std::string_view verb, std::string_view argument)>;
  ~ControlChannel() { stop(); }

  // Opens the socket for this process; false with *why (the program runs on without it).
  bool start(OnRequest on_request, std::string* why, const std::string& run_dir = "");
  void stop();
  const std::string& path() const { return path_; }

 private:
  void loop();
  int fd_ = -1;
  std::string path_;
  OnRequest on_request_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Sends one request to process `pid`'s control socket. False with *why (no such socket: the
// process does not run gpufl, or another user's).
bool sendControlRequest(long pid, std::string_view line, std::string* why,
                        const std::string& run_dir = "");

}  // namespace gpufl::runtime
