// gpufl_incidents [--linked] CASE [args]: runs one case (incidents.hpp).
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <mutex>

#include "gpufl/gpufl.hpp"
#include "incidents.hpp"

namespace incidents {

std::map<std::string, Case>& cases() {
  static std::map<std::string, Case> c;
  return c;
}

long threadId() {
  return long(syscall(SYS_gettid));
}

void fact(const char* key, const std::string& value) {
  static std::mutex mu;
  std::lock_guard lock(mu);
  std::printf("%s %s\n", key, value.c_str());
  std::fflush(stdout);
}

}  // namespace incidents

int main(int argc, char** argv) {
  const char* env = std::getenv("GFL_LINKED");
  bool linked = env != nullptr && std::strcmp(env, "1") == 0;
  if (argc > 1 && std::strcmp(argv[1], "--linked") == 0) {
    linked = true;
    --argc;
    ++argv;
  }
  auto& cases = incidents::cases();
  if (argc < 2 || cases.count(argv[1]) == 0) {
    std::fprintf(stderr, "usage: gpufl_incidents [--linked] CASE [args]\ncases:");
    for (const auto& [name, c] : cases) std::fprintf(stderr, " %s", name.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }
  if (linked) {
    gpufl::InitOptions options;
    options.app_name = std::string("incidents_") + argv[1];
    gpufl::init(options);
  }
  // CUDA starts here, and under `gpufl trace` gpufl with it (in cuInit): NVTX ranges opened before
  // would not be seen as scopes.
  INCIDENT_CHECK(cudaFree(nullptr));
  const int status = cases[argv[1]](argc - 1, argv + 1);
  if (linked) gpufl::shutdown();
  return status;
}
