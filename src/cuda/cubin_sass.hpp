// SASS text and source lines for the PCs the deep engines report.
//
// CUPTI reports SASS metrics and PC samples as (cubin CRC, function name, PC offset). To show the
// instruction and the source line, the engines keep a copy of every loaded cubin (CubinStore,
// filled from the module-loaded callback), and on the writer thread, for the functions they report:
//   - SASS text and "file:line" come from nvdisasm (-c -g), when the CUDA toolkit's nvdisasm is
//   found
//     (GPUFL_NVDISASM, $CUDA_HOME/bin, /usr/local/cuda/bin, PATH), run on the function's symbols
//     only;
//   - without nvdisasm, "file:line" comes from cuptiGetSassToSourceCorrelation and the text stays
//   empty.
// Source lines need the program to be built with -lineinfo (or -G).
//
// The cubin CRC is cuptiGetCubinCrc's value (on CUDA 13.0 a 32-bit value in a uint64; SASS metric
// records carry it as uint32, PC samples as uint64: both compare equal after widening).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpufl::cuda {

// A function (STT_FUNC symbol) of a cubin.
struct CubinFunction {
  std::string name;       // mangled
  uint32_t symbol_index;  // ELF symbol index: what `nvdisasm -fun` takes
  uint64_t size_bytes;
};

// The functions of an ELF64 cubin, or nothing (with `error` set) when the bytes are not one.
std::optional<std::vector<CubinFunction>> listCubinFunctions(const void* data, size_t size,
                                                             std::string* error);

// True when the cubin carries SASS line information (.nv_debug_line_sass: built with -lineinfo or
// -G). Without it nvdisasm's -g finds nothing to print, so runNvdisasm leaves it off.
bool cubinHasLineInfo(const void* data, size_t size);

struct SassInstruction {
  std::string text;    // "LDG.E.64 R8, desc[UR4][R8.64]" (predicate kept, trailing ';' dropped)
  std::string source;  // "path/file.cu:42" or empty
};
using FunctionSass = std::map<uint64_t, SassInstruction>;  // by PC offset within the function

// Parses `nvdisasm -c -g` output: function -> PC -> instruction.
std::map<std::string, FunctionSass> parseNvdisasm(std::string_view text);

// Bytes each thread moves for a global memory instruction (LDG/STG/ATOMG/REDG/LDGSTS and the
// generic LD/ST/ATOM/RED, which may address global memory); 0 for anything else. Width from the
// size modifier: .U8/.S8 1, .U16/.S16 2, none/.32 4, .64 8, .128 16.
int globalAccessBytes(std::string_view sass);

// Ideal global sectors of one instruction when the chip has no smsp__sass_sectors_mem_global_ideal:
// each warp-level execution of a `bytes`-wide access by its active threads needs
// ceil(active_threads * bytes / 32) sectors when perfectly coalesced. Only sums are known per PC,
// so the active thread count is the average thread_inst / inst. An estimate: accesses where threads
// share addresses (broadcasts) need fewer sectors than this.
uint64_t estimateIdealSectors(uint64_t inst_executed, uint64_t thread_inst_executed, int bytes);

// Finds nvdisasm; empty when absent.
std::string findNvdisasm();

// Runs `nvdisasm -c [-g] [-fun i,j,...] <cubin>` in a child process (LD_PRELOAD and
// CUDA_INJECTION64_PATH removed from its environment; -g only when the cubin has line info).
// Nothing on failure, with `error` set.
std::optional<std::string> runNvdisasm(const std::string& nvdisasm, const void* cubin, size_t size,
                                       const std::vector<uint32_t>& symbol_indices,
                                       std::string* error);

// Copies of loaded cubins and, computed on first use, the SASS of their functions.
class CubinStore {
 public:
  using CrcFn = std::function<std::optional<uint64_t>(const void* cubin, size_t size)>;
  using SourceFn = std::function<std::string(const void* cubin, size_t size,
                                             const std::string& function, uint64_t pc)>;
  using DisassembleFn = std::function<std::optional<std::string>(
      const void* cubin, size_t size, const std::vector<uint32_t>& symbol_indices,
      std::string* error)>;

  struct Hooks {
    CrcFn crc;                  // cuptiGetCubinCrc by default
    SourceFn source;            // cuptiGetSassToSourceCorrelation by default
    DisassembleFn disassemble;  // nvdisasm when found, else null
  };
  static Hooks defaultHooks();

  CubinStore(size_t max_bytes, Hooks hooks);
  ~CubinStore();

  // [loading thread] Copies the cubin. Never calls CUPTI (calling cuptiGetCubinCrc from the module
  // callback can deadlock while SASS patching holds CUPTI's locks) and never waits for a
  // disassembly in progress (the loading thread is the program's: PyTorch's module loads waited
  // 7.4 s behind nvdisasm, H200 2026-11-29). False when over the byte budget.
  bool add(const void* cubin, size_t size);

  // [writer thread] SASS of `function` in the cubin with `crc` (nullptr when unknown). Disassembles
  // the cubin's reported functions on first use.
  const FunctionSass* functionSass(uint64_t crc, const std::string& function);
  // [writer thread] Disassembles the listed functions not tried yet with one nvdisasm run per
  // cubin, the cubins' runs in parallel (up to kParallelRuns): nvdisasm parses the whole cubin each
  // run, seconds for PyTorch's big modules, so asking one function at a time cost a PyTorch run
  // tens of seconds.
  void prefetch(const std::vector<std::pair<uint64_t, std::string>>& crc_and_function);
  // [writer thread] The instruction at `pc`: text from nvdisasm, source from nvdisasm or CUPTI.
  SassInstruction instruction(uint64_t crc, const std::string& function, uint64_t pc);

  uint64_t droppedCubins() const;
  std::string lastError() const;
  // "cubins: 812 kept (412.3 MB), nvdisasm 6.102 s wall (5 runs), source lines 0.120 s (30
  // lookups)": what the store cost, for the deep_engine_time note.
  std::string workSummary() const;

 private:
  struct Image;
  Image* findLocked(uint64_t crc, const std::string& function);
  struct Job;
  Job planLocked(Image& image, const std::vector<std::string>& functions);
  void runJobsLocked(std::vector<Job>& jobs);
  void ingestPendingLocked();

  static constexpr size_t kParallelRuns = 8;
  const size_t max_bytes_;
  Hooks hooks_;
  mutable std::mutex mutex_;          // images_ and the counters below; held across disassembly
  mutable std::mutex pending_mutex_;  // pending_, bytes_, dropped_: what add() touches
  std::vector<std::vector<uint8_t>> pending_;
  std::vector<std::unique_ptr<Image>> images_;
  size_t bytes_ = 0;
  uint64_t dropped_ = 0;
  uint64_t kept_ = 0;
  uint64_t disassemble_ns_ = 0, disassemble_runs_ = 0;
  uint64_t source_ns_ = 0, source_lookups_ = 0;
  std::string last_error_;
};

}  // namespace gpufl::cuda
