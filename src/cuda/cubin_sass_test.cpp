#include "cuda/cubin_sass.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <iterator>
#include <thread>

#include "cuda/cupti_loader.hpp"

namespace gpufl::cuda {
namespace {

// What `nvdisasm -c -g` printed on the H200 for a small sm_90 kernel (trimmed).
constexpr const char* kNvdisasm = R"(	.target	sm_90

//--------------------- .text._Z3vecPK6float4PS_i --------------------------
	.section	.text._Z3vecPK6float4PS_i,"ax",@progbits
	.align	128
        .global         _Z3vecPK6float4PS_i
_Z3vecPK6float4PS_i:
.text._Z3vecPK6float4PS_i:
	//## File "/tmp/k.cu", line 2
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0070*/               @P0 EXIT ;
        /*00f0*/                   LDG.E.128 R4, desc[UR4][R6.64] ;
        /*0130*/                   STG.E.128 desc[UR4][R2.64], R4 ;
	//## File "/usr/local/cuda/include/sm_20_atomic_functions.hpp", line 84
        /*0230*/                   REDG.E.ADD.F32.FTZ.RN.STRONG.GPU desc[UR4][R2.64], R9 ;
	//## File "/tmp/k.cu", line 3
        /*0240*/                   EXIT ;
.L_x_0:
        /*0250*/                   BRA `(.L_x_0);

//--------------------- .text._Z4rowKPKfS0_Pfiii --------------------------
	.section	.text._Z4rowKPKfS0_Pfiii,"ax",@progbits
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*02a0*/                   LDG.E.CONSTANT R20, desc[UR12][R18.64] ;
)";

TEST(CubinSass, ParsesNvdisasmFunctionsPcsTextAndLines) {
  auto functions = parseNvdisasm(kNvdisasm);
  ASSERT_EQ(functions.size(), 2u);
  const FunctionSass& vec = functions.at("_Z3vecPK6float4PS_i");
  ASSERT_EQ(vec.size(), 7u);
  EXPECT_EQ(vec.at(0x0).text, "LDC R1, c[0x0][0x28]");
  EXPECT_EQ(vec.at(0x0).source, "/tmp/k.cu:2");
  EXPECT_EQ(vec.at(0x70).text, "@P0 EXIT");
  EXPECT_EQ(vec.at(0xf0).text, "LDG.E.128 R4, desc[UR4][R6.64]");
  EXPECT_EQ(vec.at(0x230).source, "/usr/local/cuda/include/sm_20_atomic_functions.hpp:84");
  EXPECT_EQ(vec.at(0x240).source, "/tmp/k.cu:3");
  EXPECT_EQ(vec.at(0x250).text, "BRA `(.L_x_0)");
  const FunctionSass& row = functions.at("_Z4rowKPKfS0_Pfiii");
  EXPECT_EQ(row.at(0x2a0).text, "LDG.E.CONSTANT R20, desc[UR12][R18.64]");
  EXPECT_EQ(row.at(0x2a0).source, "");  // no line info for this function
  EXPECT_TRUE(parseNvdisasm("").empty());
  EXPECT_TRUE(parseNvdisasm("garbage\n/*zz*/ X ;\n").empty());
}

TEST(CubinSass, GlobalAccessWidth) {
  EXPECT_EQ(globalAccessBytes("LDG.E.128 R4, desc[UR4][R6.64]"), 16);
  EXPECT_EQ(globalAccessBytes("STG.E.64 desc[UR4][R12.64], R10"), 8);
  EXPECT_EQ(globalAccessBytes("LDG.E.U8 R14, desc[UR4][R14.64]"), 1);
  EXPECT_EQ(globalAccessBytes("STG.E.U16 desc[UR4][R4.64], R7"), 2);
  EXPECT_EQ(globalAccessBytes("LDG.E.CONSTANT R20, desc[UR12][R18.64]"), 4);
  EXPECT_EQ(globalAccessBytes("@!P0 LDG.E R2, desc[UR4][R2.64]"), 4);
  EXPECT_EQ(globalAccessBytes("REDG.E.ADD.F32.FTZ.RN.STRONG.GPU desc[UR4][R2.64], R9"), 4);
  EXPECT_EQ(globalAccessBytes("ATOMG.E.ADD.F64.RN.STRONG.GPU PT, R2, desc[UR4][R2.64], R4"), 8);
  EXPECT_EQ(globalAccessBytes("LDGSTS.E.BYPASS.128 [R3], desc[UR4][R4.64]"), 16);
  EXPECT_EQ(globalAccessBytes("LD.E.64 R2, [R4.64]"), 8);  // generic: may be global
  EXPECT_EQ(globalAccessBytes("LDS.128 R4, [R2]"), 0);
  EXPECT_EQ(globalAccessBytes("LDC.64 R2, c[0x0][0x218]"), 0);
  EXPECT_EQ(globalAccessBytes("LDL R2, [R1]"), 0);
  EXPECT_EQ(globalAccessBytes("FFMA R35, R20, R21, R37"), 0);
  EXPECT_EQ(globalAccessBytes(""), 0);
}

TEST(CubinSass, IdealSectorsFromWidthAndActiveThreads) {
  EXPECT_EQ(estimateIdealSectors(10, 320, 4), 40u);    // full warps of 4-byte loads: 4 sectors each
  EXPECT_EQ(estimateIdealSectors(10, 320, 16), 160u);  // float4: 16 sectors each
  EXPECT_EQ(estimateIdealSectors(10, 160, 4), 20u);    // half the lanes active: 2 sectors
  EXPECT_EQ(estimateIdealSectors(10, 10, 4), 10u);     // one lane: still one sector
  EXPECT_EQ(estimateIdealSectors(4, 4 * 9, 4),
            8u);                                  // 9 lanes x 4 B = 36 B: 2 sectors per execution
  EXPECT_EQ(estimateIdealSectors(1, 32, 1), 1u);  // 32 bytes: 1 sector
  EXPECT_EQ(estimateIdealSectors(0, 0, 4), 0u);
  EXPECT_EQ(estimateIdealSectors(10, 320, 0), 0u);  // not a global access
}

// An executable named nvdisasm in a fresh temporary folder, running the shell `body`.
std::string fakeNvdisasm(const std::string& body) {
  char dir[] = "/tmp/gpufl-fake-nvdisasm-XXXXXX";
  if (mkdtemp(dir) == nullptr) return "";
  const std::string script = std::string(dir) + "/nvdisasm";
  std::ofstream(script) << "#!/bin/sh\n" << body;
  chmod(script.c_str(), 0755);
  return script;
}

std::vector<uint8_t> readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

TEST(CubinSass, RejectsWhatIsNotACubin) {
  std::string error;
  EXPECT_FALSE(listCubinFunctions(nullptr, 0, &error));
  std::vector<uint8_t> junk(100, 0x7f);
  EXPECT_FALSE(listCubinFunctions(junk.data(), junk.size(), &error));
  EXPECT_FALSE(error.empty());
}

#ifdef GPUFL_DEEP_TEST_CUBIN
constexpr const char* kCopy4 = "_Z13deepTestCopy4PK6float4PS_i";
constexpr const char* kBytes = "_Z13deepTestBytesPKcPcPKdPdi";

TEST(CubinSass, ListsFunctionsOfARealCubin) {
  const std::vector<uint8_t> cubin = readFile(GPUFL_DEEP_TEST_CUBIN);
  ASSERT_FALSE(cubin.empty());
  std::string error;
  auto functions = listCubinFunctions(cubin.data(), cubin.size(), &error);
  ASSERT_TRUE(functions) << error;
  int found = 0;
  for (const CubinFunction& f : *functions) {
    if (f.name == kCopy4 || f.name == kBytes) {
      ++found;
      EXPECT_GT(f.size_bytes, 0u);
      EXPECT_GT(f.symbol_index, 0u);
    }
  }
  EXPECT_EQ(found, 2);
  // Truncated: the section table is gone.
  EXPECT_FALSE(listCubinFunctions(cubin.data(), 64, &error));
}

TEST(CubinSass, CuptiCrcAndSourceLinesWithoutAGpu) {
  if (!cuptiLibrary().loaded()) GTEST_SKIP() << cuptiLibrary().error;
  const std::vector<uint8_t> cubin = readFile(GPUFL_DEEP_TEST_CUBIN);
  CubinStore::Hooks hooks = CubinStore::defaultHooks();
  hooks.disassemble = nullptr;  // nvdisasm may be absent here; covered by the fake-nvdisasm test
  auto crc = hooks.crc(cubin.data(), cubin.size());
  ASSERT_TRUE(crc);
  EXPECT_NE(*crc, 0u);
  CubinStore store(1 << 20, hooks);
  ASSERT_TRUE(store.add(cubin.data(), cubin.size()));
  SassInstruction at = store.instruction(*crc, kCopy4, 0x80);
  EXPECT_NE(at.source.find("deep_test_kernels.cu:"), std::string::npos) << at.source;
  EXPECT_EQ(at.text, "");
  // An unknown CRC still finds the function by name.
  EXPECT_NE(store.instruction(12345, kCopy4, 0x80).source, "");
  EXPECT_EQ(store.instruction(*crc, "noSuchFunction", 0).source, "");
}

TEST(CubinSass, RealNvdisasmWhenPresent) {
  const std::string nvdisasm = findNvdisasm();
  if (nvdisasm.empty()) GTEST_SKIP() << "nvdisasm not installed here";
  const std::vector<uint8_t> cubin = readFile(GPUFL_DEEP_TEST_CUBIN);
  CubinStore store(1 << 20, CubinStore::defaultHooks());
  store.add(cubin.data(), cubin.size());
  auto crc = CubinStore::defaultHooks().crc(cubin.data(), cubin.size());
  const FunctionSass* sass = store.functionSass(crc.value_or(0), kBytes);
  ASSERT_NE(sass, nullptr) << store.lastError();
  int widths = 0;
  for (const auto& [pc, inst] : *sass) widths |= 1 << globalAccessBytes(inst.text);
  EXPECT_TRUE(widths & (1 << 1));  // char load/store
  EXPECT_TRUE(widths & (1 << 8));  // double load/store
}
#endif

TEST(CubinStore, FakeHooksDedupeAndDisassembleOnce) {
  int disassembled = 0;
  CubinStore::Hooks hooks;
  hooks.crc = [](const void*, size_t size) -> std::optional<uint64_t> { return size; };
  hooks.source = [](const void*, size_t, const std::string&, uint64_t pc) {
    return "cupti.cu:" + std::to_string(pc);
  };
  hooks.disassemble = [&](const void*, size_t, const std::vector<uint32_t>&, std::string*) {
    ++disassembled;
    return std::optional<std::string>(kNvdisasm);
  };
  CubinStore store(1000, hooks);
  std::vector<uint8_t> junk(100, 1);
  EXPECT_TRUE(store.add(junk.data(), junk.size()));
  EXPECT_TRUE(store.add(junk.data(), junk.size()));  // the second engine forwarding the same module
  std::vector<uint8_t> big(2000, 2);
  EXPECT_FALSE(store.add(big.data(), big.size()));  // over the budget
  EXPECT_EQ(store.droppedCubins(), 1u);
  // junk is not an ELF: no functions, so nothing is found and nvdisasm never runs.
  EXPECT_EQ(store.functionSass(100, "_Z3vecPK6float4PS_i"), nullptr);
  EXPECT_EQ(disassembled, 0);
  EXPECT_EQ(store.instruction(100, "_Z3vecPK6float4PS_i", 16).source, "");
}

#ifdef GPUFL_DEEP_TEST_CUBIN
// The test cubin is built with -lineinfo: nvdisasm gets -g for it, and only for it.
TEST(CubinSass, AsksForLinesOnlyWhenTheCubinHasThem) {
  const std::vector<uint8_t> cubin = readFile(GPUFL_DEEP_TEST_CUBIN);
  EXPECT_TRUE(cubinHasLineInfo(cubin.data(), cubin.size()));
  EXPECT_FALSE(cubinHasLineInfo(cubin.data(), 64));  // header only: no section table
  EXPECT_FALSE(cubinHasLineInfo(nullptr, 0));
  std::vector<uint8_t> junk(100, 0x7f);
  EXPECT_FALSE(cubinHasLineInfo(junk.data(), junk.size()));

  const std::string script = fakeNvdisasm("echo \"args: $*\"\n");
  ASSERT_FALSE(script.empty());
  std::string error;
  auto text = runNvdisasm(script, cubin.data(), cubin.size(), {1}, &error);
  ASSERT_TRUE(text) << error;
  EXPECT_NE(text->find("args: -c -g -fun 1 "), std::string::npos) << *text;
  unlink(script.c_str());
  rmdir(script.substr(0, script.rfind('/')).c_str());
}

// Two cubins defining the same function (told apart by CRC): one run each, side by side; and a
// module loading meanwhile is not held up by the runs (PyTorch's loads waited seconds behind them).
TEST(CubinStore, RunsTheCubinsDisassembliesInParallelWithoutBlockingLoads) {
  const std::vector<uint8_t> cubin = readFile(GPUFL_DEEP_TEST_CUBIN);
  std::vector<uint8_t> other = cubin;
  other.push_back(0);
  std::vector<uint8_t> late = other;
  late.push_back(0);
  std::atomic<int> running{0}, most{0}, runs{0};
  std::atomic<bool> late_added{false};
  CubinStore* store_ptr = nullptr;
  CubinStore::Hooks hooks;
  hooks.crc = [](const void*, size_t size) -> std::optional<uint64_t> { return size; };
  hooks.disassemble = [&](const void*, size_t size, const std::vector<uint32_t>&, std::string*) {
    const int now = ++running;
    for (int seen = most; now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    ++runs;
    if (size == cubin.size()) {  // a load from another thread while the store is busy
      auto load =
          std::async(std::launch::async, [&] { return store_ptr->add(late.data(), late.size()); });
      late_added =
          load.wait_for(std::chrono::seconds(5)) == std::future_status::ready && load.get();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    --running;
    return std::optional<std::string>("\t.section\t.text." + std::string(kCopy4) +
                                      ",\"ax\",@progbits\n /*0010*/ EXIT ;\n");
  };
  CubinStore store(4 << 20, hooks);
  store_ptr = &store;
  store.add(cubin.data(), cubin.size());
  store.add(other.data(), other.size());
  store.prefetch({{cubin.size(), kCopy4}, {other.size(), kCopy4}});
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(most, 2);
  EXPECT_TRUE(late_added);
  EXPECT_EQ(store.instruction(cubin.size(), kCopy4, 0x10).text, "EXIT");
  EXPECT_EQ(store.instruction(other.size(), kCopy4, 0x10).text, "EXIT");
  EXPECT_EQ(runs, 2);
  EXPECT_NE(store.workSummary().find("3 kept"), std::string::npos) << store.workSummary();
  EXPECT_NE(store.workSummary().find("(2 runs)"), std::string::npos) << store.workSummary();
}

TEST(CubinStore, UsesDisassemblyFirstThenCuptiForSource) {
  const std::vector<uint8_t> cubin = readFile(GPUFL_DEEP_TEST_CUBIN);
  int disassembled = 0;
  std::vector<uint32_t> asked;
  CubinStore::Hooks hooks;
  hooks.crc = [](const void*, size_t) -> std::optional<uint64_t> { return 7; };
  hooks.source = [](const void*, size_t, const std::string&, uint64_t pc) {
    return "cupti.cu:" + std::to_string(pc);
  };
  hooks.disassemble = [&](const void*, size_t, const std::vector<uint32_t>& symbols, std::string*) {
    ++disassembled;
    asked = symbols;
    std::string text =
        std::string("\t.section\t.text.") + kCopy4 +
        ",\"ax\",@progbits\n\t//## File \"k.cu\", line 5\n /*0010*/ LDG.E.128 R4, [R2.64] ;\n"
        " /*0020*/ EXIT ;\n";
    return std::optional<std::string>(text);
  };
  CubinStore store(1 << 20, hooks);
  store.add(cubin.data(), cubin.size());
  SassInstruction i = store.instruction(7, kCopy4, 0x10);
  EXPECT_EQ(i.text, "LDG.E.128 R4, [R2.64]");
  EXPECT_EQ(i.source, "k.cu:5");
  EXPECT_EQ(store.instruction(7, kCopy4, 0x20).source, "k.cu:5");
  EXPECT_EQ(store.instruction(7, kCopy4, 0x30).source, "cupti.cu:48");  // not in the text: CUPTI
  EXPECT_EQ(disassembled, 1);
  EXPECT_EQ(asked.size(), 1u);
}

TEST(CubinStore, PrefetchDisassemblesSeveralFunctionsInOneRun) {
  const std::vector<uint8_t> cubin = readFile(GPUFL_DEEP_TEST_CUBIN);
  int runs = 0;
  size_t symbols_asked = 0;
  CubinStore::Hooks hooks;
  hooks.crc = [](const void*, size_t) -> std::optional<uint64_t> { return 7; };
  hooks.disassemble = [&](const void*, size_t, const std::vector<uint32_t>& symbols, std::string*) {
    ++runs;
    symbols_asked += symbols.size();
    return std::optional<std::string>(std::string("\t.section\t.text.") + kCopy4 +
                                      ",\"ax\",@progbits\n /*0010*/ EXIT ;\n");
  };
  CubinStore store(1 << 20, hooks);
  store.add(cubin.data(), cubin.size());
  store.prefetch({{7, kCopy4}, {7, kBytes}, {7, kCopy4}, {7, "noSuchFunction"}});
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(symbols_asked, 2u);
  EXPECT_EQ(store.instruction(7, kCopy4, 0x10).text, "EXIT");
  store.instruction(7, kBytes, 0);  // tried already: no second run
  EXPECT_EQ(runs, 1);
}

// One cubin defines the function: no CUPTI CRC is needed to find it (a full cubin parse each).
TEST(CubinStore, ComputesCrcsOnlyToTellCubinsApart) {
  const std::vector<uint8_t> cubin = readFile(GPUFL_DEEP_TEST_CUBIN);
  int crcs = 0;
  CubinStore::Hooks hooks;
  hooks.crc = [&](const void*, size_t size) -> std::optional<uint64_t> {
    ++crcs;
    return size;
  };
  hooks.source = [](const void*, size_t, const std::string&, uint64_t) {
    return std::string("k.cu:1");
  };
  CubinStore store(4 << 20, hooks);
  store.add(cubin.data(), cubin.size());
  EXPECT_EQ(store.instruction(123, kCopy4, 0).source, "k.cu:1");
  EXPECT_EQ(crcs, 0);
  std::vector<uint8_t> other = cubin;
  other.push_back(0);  // another module defining the same functions
  store.add(other.data(), other.size());
  store.add(cubin.data(), cubin.size());  // and the first one again (another context): deduplicated
  EXPECT_EQ(store.instruction(other.size(), kCopy4, 0).source, "k.cu:1");
  EXPECT_EQ(crcs, 2);
}

// Without -lineinfo CUPTI finds no line, and each lookup parses the whole cubin (seconds over a
// PyTorch run's hot PCs): one empty answer per function is enough.
TEST(CubinStore, AsksCuptiForLinesOncePerFunctionWithoutLineInfo) {
  const std::vector<uint8_t> cubin = readFile(GPUFL_DEEP_TEST_CUBIN);
  int asked = 0;
  CubinStore::Hooks hooks;
  hooks.crc = [](const void*, size_t) -> std::optional<uint64_t> { return 7; };
  hooks.source = [&](const void*, size_t, const std::string&, uint64_t) {
    ++asked;
    return std::string();
  };
  CubinStore store(1 << 20, hooks);
  store.add(cubin.data(), cubin.size());
  for (uint64_t pc = 0; pc < 0x100; pc += 0x10)
    EXPECT_EQ(store.instruction(7, kCopy4, pc).source, "");
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(store.instruction(7, kBytes, 0).source, "");
  EXPECT_EQ(asked, 2);
}
#endif

TEST(CubinSass, RunsAnNvdisasmExecutableWithFunctionFilter) {
  const std::string script =
      fakeNvdisasm("echo \"args: $*\"\neval last=\\${$#}\necho \"size: $(wc -c < \"$last\")\"\n");
  ASSERT_FALSE(script.empty());
  const std::string dir = script.substr(0, script.rfind('/'));
  const char bytes[] = "0123456789";
  std::string error;
  auto text = runNvdisasm(script, bytes, 10, {3, 9}, &error);
  ASSERT_TRUE(text) << error;
  EXPECT_NE(text->find("args: -c -fun 3,9 "), std::string::npos) << *text;  // no line info: no -g
  EXPECT_NE(text->find("size: 10"), std::string::npos) << *text;
  EXPECT_FALSE(runNvdisasm(dir + "/missing", bytes, 10, {}, &error));
  {
    std::ofstream out(script);
    out << "#!/bin/sh\nexit 3\n";
  }
  EXPECT_FALSE(runNvdisasm(script, bytes, 10, {}, &error));
  EXPECT_NE(error.find("exit status"), std::string::npos);
  unlink(script.c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace gpufl::cuda
