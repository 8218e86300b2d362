#include "cuda/cubin_sass.hpp"

#include <cupti.h>
#include <cupti_pcsampling.h>
#include <elf.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <unordered_set>

#include "core/clock.hpp"
#include "cuda/cupti_api.hpp"
#include "cuda/deep_support.hpp"

extern char** environ;

namespace gpufl::cuda {
namespace {

template <typename T>
bool readAt(const uint8_t* base, size_t size, uint64_t offset, T* out) {
  if (offset > size || size - offset < sizeof(T)) return false;
  std::memcpy(out, base + offset, sizeof(T));
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<std::vector<CubinFunction>> listCubinFunctions(const void* data, size_t size,
                                                             std::string* error) {
  const auto* base = static_cast<const uint8_t*>(data);
  Elf64_Ehdr eh;
  if (data == nullptr || !readAt(base, size, 0, &eh) ||
      std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_shentsize != sizeof(Elf64_Shdr)) {
    if (error) *error = "not an ELF64 cubin";
    return std::nullopt;
  }
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  for (size_t i = 0; i < sections.size(); ++i) {
    if (!readAt(base, size, eh.e_shoff + i * sizeof(Elf64_Shdr), &sections[i])) {
      if (error) *error = "cubin section table truncated";
      return std::nullopt;
    }
  }
  std::vector<CubinFunction> functions;
  for (const Elf64_Shdr& symtab : sections) {
    if (symtab.sh_type != SHT_SYMTAB || symtab.sh_link >= sections.size()) continue;
    const Elf64_Shdr& strtab = sections[symtab.sh_link];
    if (strtab.sh_offset > size || strtab.sh_size > size - strtab.sh_offset) continue;
    const size_t count = symtab.sh_entsize ? symtab.sh_size / symtab.sh_entsize : 0;
    for (size_t i = 0; i < count; ++i) {
      Elf64_Sym sym;
      if (!readAt(base, size, symtab.sh_offset + i * sizeof(Elf64_Sym), &sym)) break;
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_name >= strtab.sh_size) continue;
      const char* name = reinterpret_cast<const char*>(base + strtab.sh_offset + sym.st_name);
      const size_t max_len = strtab.sh_size - sym.st_name;
      functions.push_back(
          {std::string(name, strnlen(name, max_len)), static_cast<uint32_t>(i), sym.st_size});
    }
  }
  return functions;
}

bool cubinHasLineInfo(const void* data, size_t size) {
  const auto* base = static_cast<const uint8_t*>(data);
  Elf64_Ehdr eh;
  if (data == nullptr || !readAt(base, size, 0, &eh) ||
      std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_shentsize != sizeof(Elf64_Shdr)) {
    return false;
  }
  Elf64_Shdr names;
  if (!readAt(base, size, eh.e_shoff + uint64_t{eh.e_shstrndx} * sizeof(Elf64_Shdr), &names) ||
      names.sh_offset > size || names.sh_size > size - names.sh_offset) {
    return false;
  }
  constexpr std::string_view kLines = ".nv_debug_line_sass";
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr section;
    if (!readAt(base, size, eh.e_shoff + i * sizeof(Elf64_Shdr), &section)) return false;
    if (section.sh_name >= names.sh_size) continue;
    const char* name = reinterpret_cast<const char*>(base + names.sh_offset + section.sh_name);
    if (std::string_view(name, strnlen(name, names.sh_size - section.sh_name)) == kLines)
      return true;
  }
  return false;
}

std::map<std::string, FunctionSass> parseNvdisasm(std::string_view text) {
  std::map<std::string, FunctionSass> out;
  FunctionSass* current = nullptr;
  std::string source;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    if (line.substr(0, 8) == ".section") {
      std::string_view rest = trim(line.substr(8));
      if (rest.substr(0, 6) == ".text.") {
        std::string_view name = rest.substr(6, rest.find(',') - 6);
        current = &out[std::string(trim(name))];
        source.clear();
      }
    } else if (line.substr(0, 4) == "//##") {
      // //## File "path", line 42   (possibly followed by ", inlined at ...")
      const size_t q1 = line.find('"');
      const size_t q2 = q1 == std::string_view::npos ? q1 : line.find('"', q1 + 1);
      const size_t ln = q2 == std::string_view::npos ? q2 : line.find("line ", q2);
      if (ln != std::string_view::npos) {
        size_t d = ln + 5, e = d;
        while (e < line.size() && std::isdigit(static_cast<unsigned char>(line[e]))) ++e;
        source = std::string(line.substr(q1 + 1, q2 - q1 - 1)) + ":" +
                 std::string(line.substr(d, e - d));
      }
    } else if (current != nullptr && line.substr(0, 2) == "/*") {
      const size_t close = line.find("*/");
      if (close == std::string_view::npos) continue;
      std::string_view hex = line.substr(2, close - 2);
      if (hex.empty() || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos)
        continue;
      std::string_view body = trim(line.substr(close + 2));
      if (!body.empty() && body.back() == ';') body = trim(body.substr(0, body.size() - 1));
      (*current)[std::stoull(std::string(hex), nullptr, 16)] = {std::string(body), source};
    }
  }
  return out;
}

int globalAccessBytes(std::string_view sass) {
  sass = trim(sass);
  if (!sass.empty() && sass.front() == '@') {  // predicate guard "@P0" / "@!PT"
    const size_t space = sass.find(' ');
    sass = space == std::string_view::npos ? std::string_view() : trim(sass.substr(space));
  }
  const std::string_view opcode = sass.substr(0, sass.find(' '));
  const std::string_view base = opcode.substr(0, opcode.find('.'));
  static constexpr std::string_view kGlobal[] = {"LDG", "STG", "ATOMG", "REDG", "LDGSTS",
                                                 "LD",  "ST",  "ATOM",  "RED"};
  bool global = false;
  for (std::string_view g : kGlobal) global = global || base == g;
  if (!global) return 0;
  int bytes = 4;
  size_t start = base.size();
  while (start < opcode.size()) {
    size_t end = opcode.find('.', start + 1);
    if (end == std::string_view::npos) end = opcode.size();
    const std::string_view mod = opcode.substr(start + 1, end - start - 1);
    if (mod == "U8" || mod == "S8")
      bytes = 1;
    else if (mod == "U16" || mod == "S16")
      bytes = 2;
    else if (mod == "64" || mod == "F64" || mod == "U64" || mod == "S64")
      bytes = 8;
    else if (mod == "128")
      bytes = 16;
    start = end;
  }
  return bytes;
}

uint64_t estimateIdealSectors(uint64_t inst_executed, uint64_t thread_inst_executed, int bytes) {
  if (inst_executed == 0 || bytes <= 0) return 0;
  const unsigned __int128 per_exec_num =
      static_cast<unsigned __int128>(thread_inst_executed) * bytes;
  const unsigned __int128 per_exec_den = static_cast<unsigned __int128>(inst_executed) * 32;
  const uint64_t per_exec = static_cast<uint64_t>((per_exec_num + per_exec_den - 1) / per_exec_den);
  return per_exec * inst_executed;
}

std::string findNvdisasm() {
  auto executable = [](const std::string& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; };
  if (const char* env = std::getenv("GPUFL_NVDISASM"); env && executable(env)) return env;
  if (const char* home = std::getenv("CUDA_HOME");
      home && executable(std::string(home) + "/bin/nvdisasm")) {
    return std::string(home) + "/bin/nvdisasm";
  }
  if (executable("/usr/local/cuda/bin/nvdisasm")) return "/usr/local/cuda/bin/nvdisasm";
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');) {
      if (executable(dir + "/nvdisasm")) return dir + "/nvdisasm";
    }
  }
  return {};
}

namespace {

// A temporary file removed when this goes out of scope.
struct TempFile {
  std::string path;
  int fd = -1;
  TempFile() {
    const char* dir = std::getenv("TMPDIR");
    path = std::string(dir && *dir ? dir : "/tmp") + "/gpufl-sass-XXXXXX";
    fd = mkstemp(path.data());
  }
  ~TempFile() {
    if (fd >= 0) close(fd);
    if (fd >= 0) unlink(path.c_str());
  }
};

}  // namespace

std::optional<std::string> runNvdisasm(const std::string& nvdisasm, const void* cubin, size_t size,
                                       const std::vector<uint32_t>& symbol_indices,
                                       std::string* error) {
  TempFile in, out;
  if (in.fd < 0 || out.fd < 0) {
    if (error) *error = "nvdisasm: cannot create a temporary file";
    return std::nullopt;
  }
  const auto* bytes = static_cast<const char*>(cubin);
  for (size_t done = 0; done < size;) {
    const ssize_t n = write(in.fd, bytes + done, size - done);
    if (n <= 0) {
      if (error) *error = "nvdisasm: cannot write the cubin";
      return std::nullopt;
    }
    done += static_cast<size_t>(n);
  }
  std::string fun;
  for (uint32_t index : symbol_indices) fun += (fun.empty() ? "" : ",") + std::to_string(index);
  std::vector<std::string> args = {nvdisasm, "-c"};
  if (cubinHasLineInfo(cubin, size)) args.push_back("-g");
  if (!fun.empty()) args.insert(args.end(), {"-fun", fun});
  args.push_back(in.path);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;  // without the variables that would inject a profiler into the child
  for (char** e = environ; e && *e; ++e) {
    if (std::strncmp(*e, "LD_PRELOAD=", 11) != 0 &&
        std::strncmp(*e, "CUDA_INJECTION64_PATH=", 22) != 0) {
      envp.push_back(*e);
    }
  }
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out.fd, STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, nvdisasm.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    if (error) *error = "nvdisasm: spawn failed: " + std::string(std::strerror(rc));
    return std::nullopt;
  }
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      if (error) *error = "nvdisasm: timed out after 60 s";
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    if (error) *error = "nvdisasm: exit status " + std::to_string(status);
    return std::nullopt;
  }
  std::ifstream file(out.path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

// ---- CubinStore ----

struct CubinStore::Image {
  std::optional<uint64_t> crc;  // computed when two cubins define the same function name
  std::vector<uint8_t> bytes;
  std::vector<CubinFunction> functions;
  std::unordered_set<std::string> names;     // of `functions`: PyTorch loads thousands
  std::map<std::string, FunctionSass> sass;  // functions disassembled so far
  std::map<std::string, bool> attempted;     // disassembly tried (succeeded or not)
  // Functions whose first source lookup found no line (built without -lineinfo): CUPTI parses the
  // whole cubin per lookup, so the other PCs of such a function are not asked again.
  std::unordered_set<std::string> no_lines;
};

CubinStore::Hooks CubinStore::defaultHooks() {
  Hooks hooks;
  hooks.crc = [](const void* cubin, size_t size) -> std::optional<uint64_t> {
    auto p = cuptiParams<CUpti_GetCubinCrcParams>(CUpti_GetCubinCrcParamsSize);
    p.cubin = cubin;
    p.cubinSize = size;
    if (cupti::cuptiGetCubinCrc(&p) != CUPTI_SUCCESS) return std::nullopt;
    return p.cubinCrc;
  };
  hooks.source = [](const void* cubin, size_t size, const std::string& function, uint64_t pc) {
    auto p = cuptiParams<CUpti_GetSassToSourceCorrelationParams>(
        CUpti_GetSassToSourceCorrelationParamsSize);
    p.cubin = cubin;
    p.cubinSize = size;
    p.functionName = function.c_str();
    p.pcOffset = pc;
    std::string where;
    if (cupti::cuptiGetSassToSourceCorrelation(&p) == CUPTI_SUCCESS && p.fileName != nullptr) {
      if (p.dirName != nullptr && *p.dirName) where = std::string(p.dirName) + "/";
      where += p.fileName;
      where += ":" + std::to_string(p.lineNumber);
    }
    std::free(p.fileName);  // CUPTI allocates both; the caller frees them
    std::free(p.dirName);
    return where;
  };
  if (std::string exe = findNvdisasm(); !exe.empty()) {
    hooks.disassemble = [exe](const void* cubin, size_t size, const std::vector<uint32_t>& symbols,
                              std::string* error) {
      return runNvdisasm(exe, cubin, size, symbols, error);
    };
  }
  return hooks;
}

CubinStore::CubinStore(size_t max_bytes, Hooks hooks)
    : max_bytes_(max_bytes), hooks_(std::move(hooks)) {}
CubinStore::~CubinStore() = default;

bool CubinStore::add(const void* cubin, size_t size) {
  if (cubin == nullptr || size == 0) return false;
  std::lock_guard lock(pending_mutex_);
  // Engines that share this store each forward the same module: keep one copy.
  if (!pending_.empty() && pending_.back().size() == size &&
      std::memcmp(pending_.back().data(), cubin, size) == 0) {
    return true;
  }
  if (bytes_ + size > max_bytes_) {
    ++dropped_;
    return false;
  }
  const auto* p = static_cast<const uint8_t*>(cubin);
  pending_.emplace_back(p, p + size);
  bytes_ += size;
  return true;
}

// Cheap per module (an ELF symbol table walk): PyTorch loads hundreds of modules, and a CUPTI CRC
// per module (a full parse each) made the end of a traced run seconds longer. CRCs are computed
// only to tell apart cubins that define the same function name.
void CubinStore::ingestPendingLocked() {
  std::vector<std::vector<uint8_t>> pending;
  {
    std::lock_guard lock(pending_mutex_);
    pending.swap(pending_);
  }
  for (std::vector<uint8_t>& bytes : pending) {
    auto image = std::make_unique<Image>();
    bool duplicate = false;  // the same module loaded in several contexts
    for (const auto& other : images_)
      duplicate = duplicate || (other->bytes.size() == bytes.size() &&
                                std::memcmp(other->bytes.data(), bytes.data(), bytes.size()) == 0);
    if (duplicate) {
      std::lock_guard lock(pending_mutex_);
      bytes_ -= bytes.size();
      continue;
    }
    std::string error;
    if (auto functions = listCubinFunctions(bytes.data(), bytes.size(), &error)) {
      image->functions = std::move(*functions);
      for (const CubinFunction& f : image->functions) image->names.insert(f.name);
    } else {
      last_error_ = error;
    }
    image->bytes = std::move(bytes);
    images_.push_back(std::move(image));
    ++kept_;
  }
}

CubinStore::Image* CubinStore::findLocked(uint64_t crc, const std::string& function) {
  ingestPendingLocked();
  std::vector<Image*> by_name;
  for (const auto& image : images_)
    if (image->names.count(function)) by_name.push_back(image.get());
  if (by_name.size() <= 1) return by_name.empty() ? nullptr : by_name.front();
  for (Image* image : by_name) {
    if (!image->crc && hooks_.crc)
      image->crc = hooks_.crc(image->bytes.data(), image->bytes.size()).value_or(0);
    if (image->crc == crc) return image;
  }
  return by_name.front();  // CRC unknown or computed differently: the name still identifies code
}

// One nvdisasm run: for `symbols` of `image`; its output or error once run.
struct CubinStore::Job {
  Image* image = nullptr;
  std::vector<uint32_t> symbols;
  std::optional<std::string> text;
  std::string error;
};

// [under mutex_] The run for `functions` of `image`; each function is tried once, found or not.
CubinStore::Job CubinStore::planLocked(Image& image, const std::vector<std::string>& functions) {
  Job job;
  job.image = &image;
  for (const CubinFunction& f : image.functions)
    if (std::find(functions.begin(), functions.end(), f.name) != functions.end())
      job.symbols.push_back(f.symbol_index);
  for (const std::string& f : functions) image.attempted[f] = true;
  return job;
}

// [under mutex_] Runs the jobs, at most kParallelRuns at a time (each is a child process, so the
// threads mostly wait), and keeps what they found. add() takes another lock: loads go on meanwhile.
void CubinStore::runJobsLocked(std::vector<Job>& jobs) {
  const int64_t t0 = core::monotonicNs();
  auto run = [this](Job& job) {
    job.text = hooks_.disassemble(job.image->bytes.data(), job.image->bytes.size(), job.symbols,
                                  &job.error);
  };
  if (jobs.size() == 1) {
    run(jobs.front());
  } else {
    std::atomic<size_t> next{0};
    std::vector<std::thread> workers;
    for (size_t w = 0; w < std::min(jobs.size(), kParallelRuns); ++w) {
      workers.emplace_back([&] {
        for (size_t i; (i = next.fetch_add(1)) < jobs.size();) run(jobs[i]);
      });
    }
    for (std::thread& t : workers) t.join();
  }
  disassemble_ns_ += core::monotonicNs() - t0;
  disassemble_runs_ += jobs.size();
  for (Job& job : jobs) {
    if (!job.text) {
      last_error_ = job.error;
      continue;
    }
    for (auto& [name, sass] : parseNvdisasm(*job.text)) job.image->sass[name] = std::move(sass);
  }
}

const FunctionSass* CubinStore::functionSass(uint64_t crc, const std::string& function) {
  std::lock_guard lock(mutex_);
  Image* image = findLocked(crc, function);
  if (image == nullptr) return nullptr;
  if (!image->attempted[function] && hooks_.disassemble) {
    std::vector<Job> jobs{planLocked(*image, {function})};
    runJobsLocked(jobs);
  }
  auto it = image->sass.find(function);
  return it == image->sass.end() ? nullptr : &it->second;
}

void CubinStore::prefetch(const std::vector<std::pair<uint64_t, std::string>>& crc_and_function) {
  if (!hooks_.disassemble) return;
  std::lock_guard lock(mutex_);
  std::map<Image*, std::vector<std::string>> wanted;
  for (const auto& [crc, function] : crc_and_function) {
    Image* image = findLocked(crc, function);
    std::vector<std::string>* list = image ? &wanted[image] : nullptr;
    if (list && !image->attempted[function] &&
        std::find(list->begin(), list->end(), function) == list->end())
      list->push_back(function);
  }
  std::vector<Job> jobs;
  for (auto& [image, functions] : wanted)
    if (!functions.empty()) jobs.push_back(planLocked(*image, functions));
  if (!jobs.empty()) runJobsLocked(jobs);
}

SassInstruction CubinStore::instruction(uint64_t crc, const std::string& function, uint64_t pc) {
  SassInstruction result;
  if (const FunctionSass* sass = functionSass(crc, function)) {
    if (auto it = sass->find(pc); it != sass->end()) result = it->second;
  }
  if (result.source.empty() && hooks_.source) {
    std::lock_guard lock(mutex_);
    Image* image = findLocked(crc, function);
    if (image != nullptr && !image->no_lines.count(function)) {
      const int64_t t0 = core::monotonicNs();
      result.source = hooks_.source(image->bytes.data(), image->bytes.size(), function, pc);
      source_ns_ += core::monotonicNs() - t0;
      ++source_lookups_;
      if (result.source.empty()) image->no_lines.insert(function);
    }
  }
  return result;
}

uint64_t CubinStore::droppedCubins() const {
  std::lock_guard lock(pending_mutex_);
  return dropped_;
}

std::string CubinStore::workSummary() const {
  std::scoped_lock lock(mutex_, pending_mutex_);  // the order ingestPendingLocked takes them in
  char text[200];
  std::snprintf(
      text, sizeof text,
      "cubins: %llu kept (%.1f MB), nvdisasm %.3f s wall (%llu runs), source lines %.3f s "
      "(%llu lookups)",
      static_cast<unsigned long long>(kept_), static_cast<double>(bytes_) / 1e6,
      static_cast<double>(disassemble_ns_) / 1e9,
      static_cast<unsigned long long>(disassemble_runs_), static_cast<double>(source_ns_) / 1e9,
      static_cast<unsigned long long>(source_lookups_));
  return text;
}

std::string CubinStore::lastError() const {
  std::lock_guard lock(mutex_);
  return last_error_;
}

}  // namespace gpufl::cuda
