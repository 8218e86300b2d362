// Every record type of docs/log-format.md, written by hand with all its fields, read into its
// struct.
#include <gtest/gtest.h>

#include "log/line_source.hpp"
#include "log/reader_test_util.hpp"
#include "log/record_parser.hpp"

namespace gpufl::log {
namespace {

std::unique_ptr<testing::RecordingVisitor> decodeAll(const std::string& text,
                                                     std::string* warnings) {
  auto v = std::make_unique<testing::RecordingVisitor>();
  WarningList list(100);
  RecordDecoder decoder("abcd1234", *v, list);
  auto source = LineSource::fromMemory(text, LineSource::Format::Plain, kDefaultMaxLineBytes);
  decoder.beginFile("f");
  Line line;
  while (source->next(line)) decoder.decodeLine(line.text, line.number, line.terminated);
  decoder.endFile();
  *warnings = testing::allWarnings(list.kept());
  return v;
}

const char* const kLog =
    R"log({"type":"session_start","sid":"abcd1234","schema":1,"session_id":"abcd1234-1111-2222-3333-444455556666","app":"demo","pid":42,"host":"node1","version":"0.1.0","engine":"PcSamplingWithSass","start_ns":100,"start_unix_ns":1700000000000000000,"options":{"sampling_auto_start":true,"system_sample_rate_ms":100,"app_name":"demo","list":[1,2]},"devices":[{"id":0,"name":"NVIDIA H200","uuid":"GPU-1","cc_major":9,"cc_minor":0,"sm_count":132,"warp_size":32,"max_threads_per_sm":2048,"max_threads_per_block":1024,"max_blocks_per_sm":32,"regs_per_sm":65536,"regs_per_block":65536,"smem_per_sm_bytes":233472,"smem_per_block_bytes":49152,"smem_per_block_optin_bytes":232448,"smem_reserved_per_block_bytes":1024,"l2_bytes":52428800,"global_mem_bytes":150000000000,"mem_bus_bits":6144,"clock_khz":1980000,"mem_clock_khz":2619000}]}
{"type":"device","sid":"abcd1234","id":1,"name":"NVIDIA H100","uuid":"GPU-2","cc_major":9,"cc_minor":0,"sm_count":114,"warp_size":32,"max_threads_per_sm":2048,"max_threads_per_block":1024,"max_blocks_per_sm":32,"regs_per_sm":65536,"regs_per_block":65536,"smem_per_sm_bytes":233472,"smem_per_block_bytes":49152,"smem_per_block_optin_bytes":232448,"smem_reserved_per_block_bytes":1024,"l2_bytes":52428800,"global_mem_bytes":85000000000,"mem_bus_bits":5120,"clock_khz":1755000,"mem_clock_khz":1593000}
{"type":"note","sid":"abcd1234","ts_ns":101,"feature":"nvml","status":"degraded","reason":"no power reading"}
{"type":"kernel_def","sid":"abcd1234","k":3,"name":"_Z3fooPf","demangled":"foo(float*)","device":0,"context":1,"grid":"(128,2,1)","block":"(256,1,1)","num_regs":32,"static_shared_bytes":1024,"dyn_shared_bytes":2048,"local_bytes":16,"occupancy":0.75,"reg_occupancy":1,"smem_occupancy":0.75,"warp_occupancy":1,"block_occupancy":0.5,"limiting_resource":"shared_mem","max_active_blocks":6,"waves":0.16,"cache_config":"prefer_l1"}
{"type":"kernel_event","sid":"abcd1234","k":3,"stream":14,"scope":2,"stack":5,"graph":9,"instr":true,"dur_ns":700,"start_ns":2000,"corr":77}
{"type":"memcpy_event","sid":"abcd1234","kind":"HtoD","bytes":4096,"device":0,"stream":14,"corr":70,"start_ns":1500,"dur_ns":300,"scope":2,"src_kind":"pinned","dst_kind":"device"}
{"type":"memset_event","sid":"abcd1234","bytes":64,"device":1,"stream":3,"corr":71,"start_ns":1600,"dur_ns":10,"scope":0,"value":255}
{"type":"stack","sid":"abcd1234","id":5,"frames":["main+0x10 (app)","__libc_start_main+0x80 (libc.so.6)"]}
{"type":"scope_path","sid":"abcd1234","p":2,"parent":1,"name":"outer/inner","depth":1}
{"type":"scope_begin","sid":"abcd1234","p":2,"name":"inner","tag":"math","depth":1,"tid":4242,"id":10,"ts_ns":1900}
{"type":"scope_end","sid":"abcd1234","p":2,"tid":4242,"id":10,"ts_ns":2900}
{"type":"system_sample","sid":"abcd1234","gpu":0,"ts_ns":3000,"util_gpu":87,"util_mem":40,"mem_used_bytes":1000,"mem_total_bytes":2000,"temp_c":55,"power_mw":300000,"power_limit_mw":700000,"energy_mj":123456,"clk_sm":1980,"clk_mem":2619,"clk_gfx":1980,"pcie_rx_kbps":10,"pcie_tx_kbps":20,"throttle":4,"throttle_reasons":["sw_power_cap"]}
{"type":"host_sample","sid":"abcd1234","ts_ns":3001,"cpu_pct":12.5,"proc_cpu_pct":99.5,"ram_used_bytes":5,"ram_total_bytes":10,"proc_rss_bytes":2}
{"type":"sass_metric","sid":"abcd1234","func":"_Z3fooPf","pc":16,"launches":2,"inst_executed":100,"thread_inst_executed":3200,"sectors_global":40,"sectors_global_ideal":10,"sass":"LDG.E R2, [R4]","source":"foo.cu:12"}
{"type":"pc_sample","sid":"abcd1234","func":"_Z3fooPf","pc":32,"stall":"long_scoreboard","count":17,"sass":"FADD","source":"foo.cu:13","patched":true}
{"type":"range_counters","sid":"abcd1234","range":"outer/inner","p":2,"metrics":{"sm__cycles":1e6,"dram__bytes":2048}}
{"type":"range_counters","sid":"abcd1234","range":"outer/inner","kernel":"addOne(float*, int)","p":2,"metrics":{"gpu__time_duration.sum":3200}}
{"type":"benchmark","sid":"abcd1234","name":"gemm","shape":"512x512","dtype":"bf16","reps":20,"median_ns":1000,"min_ns":900,"p10_ns":950,"p90_ns":1200,"max_ns":1500,"mean_ns":1050,"tflops":1.5,"warnings":["a","b"]}
{"type":"session_end","sid":"abcd1234","end_ns":9000,"kernels":1,"memcpys":2,"scopes":1,"dropped":{"scope":0,"launch":3},"overhead_ns":{"writer":500,"cupti_callbacks":20},"cpu_time_ns":800,"buffers":4,"bytes_written":12345}
)log";

TEST(RecordTypes, EveryTypeReadsIntoItsStruct) {
  std::string warnings;
  const auto v = decodeAll(kLog, &warnings);
  EXPECT_EQ(warnings, "");

  ASSERT_EQ(v->starts.size(), 1u);
  const SessionStart& s = v->starts[0];
  EXPECT_EQ(s.sid, "abcd1234");
  EXPECT_EQ(s.session_id, "abcd1234-1111-2222-3333-444455556666");
  EXPECT_EQ(s.app, "demo");
  EXPECT_EQ(s.pid, 42);
  EXPECT_EQ(s.host, "node1");
  EXPECT_EQ(s.version, "0.1.0");
  EXPECT_EQ(s.engine, Engine::PcSamplingWithSass);
  EXPECT_EQ(s.start_ns, 100);
  EXPECT_EQ(s.start_unix_ns, 1700000000000000000);
  EXPECT_EQ(s.options, (std::map<std::string, std::string>{{"sampling_auto_start", "true"},
                                                           {"system_sample_rate_ms", "100"},
                                                           {"app_name", "\"demo\""},
                                                           {"list", "[1,2]"}}));
  ASSERT_EQ(s.devices.size(), 1u);
  const DeviceInfo& d = s.devices[0];
  EXPECT_EQ(d.name, "NVIDIA H200");
  EXPECT_EQ(d.uuid, "GPU-1");
  EXPECT_EQ(d.cc_major, 9);
  EXPECT_EQ(d.sm_count, 132);
  EXPECT_EQ(d.max_blocks_per_sm, 32);
  EXPECT_EQ(d.smem_per_block_optin_bytes, 232448);
  EXPECT_EQ(d.smem_reserved_per_block_bytes, 1024);
  EXPECT_EQ(d.global_mem_bytes, 150000000000);
  EXPECT_EQ(d.mem_clock_khz, 2619000);

  ASSERT_EQ(v->devices.size(), 1u);
  EXPECT_EQ(v->devices[0].sid, "abcd1234");
  EXPECT_EQ(v->devices[0].device.id, 1u);
  EXPECT_EQ(v->devices[0].device.name, "NVIDIA H100");
  EXPECT_EQ(v->devices[0].device.sm_count, 114);
  EXPECT_EQ(v->devices[0].device.mem_bus_bits, 5120);

  ASSERT_EQ(v->notes.size(), 1u);
  EXPECT_EQ(v->notes[0].ts_ns, 101);
  EXPECT_EQ(v->notes[0].status, "degraded");
  EXPECT_EQ(v->notes[0].reason, "no power reading");

  ASSERT_EQ(v->defs.size(), 1u);
  const KernelDef& kd = v->defs[0];
  EXPECT_EQ(kd.id, 3u);
  EXPECT_EQ(kd.demangled, "foo(float*)");
  EXPECT_EQ(kd.context, 1u);
  EXPECT_EQ(kd.grid, (Dim3{128, 2, 1}));
  EXPECT_EQ(kd.block, (Dim3{256, 1, 1}));
  EXPECT_EQ(kd.num_regs, 32);
  EXPECT_EQ(kd.dyn_shared_bytes, 2048);
  EXPECT_EQ(kd.local_bytes, 16);
  ASSERT_TRUE(kd.occupancy);
  EXPECT_DOUBLE_EQ(kd.occupancy->occupancy, 0.75);
  EXPECT_DOUBLE_EQ(kd.occupancy->block_occupancy, 0.5);
  EXPECT_EQ(kd.occupancy->limiting, LimitingResource::SharedMem);
  EXPECT_EQ(kd.occupancy->max_active_blocks, 6);
  EXPECT_DOUBLE_EQ(kd.waves.value_or(0), 0.16);

  ASSERT_EQ(v->kernels.size(), 1u);
  const KernelEvent& k = v->kernels[0];
  EXPECT_EQ(k.def_id, 3u);
  EXPECT_EQ(k.stream, 14u);
  EXPECT_EQ(k.scope_path, 2u);
  EXPECT_EQ(k.stack_id, 5u);
  EXPECT_EQ(k.graph_id, 9u);
  EXPECT_TRUE(k.instrumented);
  EXPECT_EQ(k.start_ns, 2000);
  EXPECT_EQ(k.end_ns, 2700);
  EXPECT_EQ(k.correlation_id, 77u);

  ASSERT_EQ(v->copies.size(), 2u);
  const MemcpyEvent& c = v->copies[0];
  EXPECT_FALSE(c.is_memset);
  EXPECT_EQ(c.kind, CopyKind::HtoD);
  EXPECT_EQ(c.bytes, 4096u);
  EXPECT_EQ(c.correlation_id, 70u);
  EXPECT_EQ(c.end_ns, 1800);
  EXPECT_EQ(c.src_kind, "pinned");
  EXPECT_EQ(c.dst_kind, "device");
  EXPECT_FALSE(c.value);
  const MemcpyEvent& m = v->copies[1];
  EXPECT_TRUE(m.is_memset);
  EXPECT_EQ(m.kind, CopyKind::Unknown);
  EXPECT_EQ(m.device, 1u);
  EXPECT_EQ(m.end_ns, 1610);
  EXPECT_EQ(m.value, 255u);

  ASSERT_EQ(v->stacks.size(), 1u);
  EXPECT_EQ(v->stacks[0].frames,
            (std::vector<std::string>{"main+0x10 (app)", "__libc_start_main+0x80 (libc.so.6)"}));
  ASSERT_EQ(v->paths.size(), 1u);
  EXPECT_EQ(v->paths[0].parent, 1u);
  EXPECT_EQ(v->paths[0].name, "outer/inner");
  ASSERT_EQ(v->begins.size(), 1u);
  EXPECT_EQ(v->begins[0].tag, "math");
  EXPECT_EQ(v->begins[0].tid, 4242);
  EXPECT_EQ(v->begins[0].id, 10u);
  ASSERT_EQ(v->scope_ends.size(), 1u);
  EXPECT_EQ(v->scope_ends[0].ts_ns, 2900);

  ASSERT_EQ(v->gpu_samples.size(), 1u);
  const GpuSample& g = v->gpu_samples[0];
  EXPECT_EQ(g.util_gpu, 87);
  EXPECT_EQ(g.power_limit_mw, 700000u);
  EXPECT_EQ(g.clk_gfx, 1980);
  EXPECT_EQ(g.pcie_tx_kbps, 20u);
  EXPECT_EQ(g.throttle, 4u);
  EXPECT_EQ(g.throttle_reasons, std::vector<std::string>{"sw_power_cap"});
  ASSERT_EQ(v->host_samples.size(), 1u);
  EXPECT_DOUBLE_EQ(v->host_samples[0].proc_cpu_pct.value_or(0), 99.5);
  EXPECT_EQ(v->host_samples[0].proc_rss_bytes, 2u);

  ASSERT_EQ(v->sass.size(), 1u);
  EXPECT_EQ(v->sass[0].sectors_global_ideal, 10u);
  EXPECT_EQ(v->sass[0].source, "foo.cu:12");
  ASSERT_EQ(v->pcs.size(), 1u);
  EXPECT_EQ(v->pcs[0].stall, "long_scoreboard");
  EXPECT_TRUE(v->pcs[0].patched);
  EXPECT_EQ(v->pcs[0].count, 17u);
  ASSERT_EQ(v->ranges.size(), 2u);
  EXPECT_EQ(v->ranges[0].path, 2u);
  EXPECT_DOUBLE_EQ(v->ranges[0].metrics.at("sm__cycles"), 1e6);
  EXPECT_EQ(v->ranges[0].kernel, "");
  EXPECT_EQ(v->ranges[1].kernel, "addOne(float*, int)");
  EXPECT_DOUBLE_EQ(v->ranges[1].metrics.at("gpu__time_duration.sum"), 3200);
  ASSERT_EQ(v->benchmarks.size(), 1u);
  EXPECT_EQ(v->benchmarks[0].shape, "512x512");
  EXPECT_EQ(v->benchmarks[0].mean_ns, 1050);
  EXPECT_EQ(v->benchmarks[0].p90_ns, 1200);
  EXPECT_EQ(v->benchmarks[0].reps, 20u);
  EXPECT_DOUBLE_EQ(v->benchmarks[0].tflops, 1.5);
  EXPECT_EQ(v->benchmarks[0].warnings, (std::vector<std::string>{"a", "b"}));

  ASSERT_EQ(v->ends.size(), 1u);
  const SessionEnd& e = v->ends[0];
  EXPECT_EQ(e.end_ns, 9000);
  EXPECT_EQ(e.dropped, (std::map<std::string, uint64_t>{{"scope", 0}, {"launch", 3}}));
  EXPECT_EQ(e.overhead_ns.at("cupti_callbacks"), 20u);
  EXPECT_EQ(e.bytes_written, 12345u);
}

TEST(RecordTypes, SyncEventsAndTheirErrors) {
  std::string warnings;
  const auto v = decodeAll(
      R"({"type":"sync_event","sid":"abcd1234","corr":41,"start_ns":1000,"kind":"stream_synchronize","stream":7,"scope":3,"dur_ns":3500})"
      "\n"
      R"({"type":"sync_event","sid":"abcd1234","start_ns":5,"kind":"future_kind","dur_ns":1})"
      "\n"
      R"({"type":"sync_event","sid":"abcd1234","start_ns":5,"kind":"stream_synchronize","dur_ns":-1})"
      "\n"
      R"({"type":"sync_event","sid":"abcd1234","kind":"stream_synchronize","dur_ns":1})"
      "\n",
      &warnings);
  ASSERT_EQ(v->syncs.size(), 2u);
  const SyncEvent& s = v->syncs[0];
  EXPECT_EQ(s.sid, "abcd1234");
  EXPECT_EQ(s.kind, SyncKind::StreamSynchronize);
  EXPECT_EQ(s.stream, 7u);
  EXPECT_EQ(s.correlation_id, 41u);
  EXPECT_EQ(s.start_ns, 1000);
  EXPECT_EQ(s.end_ns, 4500);
  EXPECT_EQ(s.scope_path, 3u);
  EXPECT_EQ(v->syncs[1].kind, SyncKind::Unknown);  // a newer writer's kind still counts as a wait
  EXPECT_NE(warnings.find("f:3: sync_event: field 'dur_ns' is negative"), std::string::npos)
      << warnings;
  EXPECT_NE(warnings.find("f:4: sync_event: field 'start_ns' missing"), std::string::npos)
      << warnings;
}

TEST(RecordTypes, MemoryEventsAndTheirErrors) {
  std::string warnings;
  const auto v = decodeAll(
      R"({"type":"memory_event","sid":"abcd1234","corr":9,"ts_ns":500,"op":"alloc","bytes":1048576,"address":4096,"device":1,"kind":"device","scope":2})"
      "\n"
      R"({"type":"memory_event","sid":"abcd1234","ts_ns":600,"op":"free","bytes":1048576,"stream":5})"
      "\n"
      R"({"type":"memory_event","sid":"abcd1234","ts_ns":700,"op":"resize","bytes":1})"
      "\n"
      R"({"type":"memory_event","sid":"abcd1234","ts_ns":800,"op":"alloc"})"
      "\n",
      &warnings);
  ASSERT_EQ(v->memory.size(), 2u);
  const MemoryEvent& a = v->memory[0];
  EXPECT_EQ(a.sid, "abcd1234");
  EXPECT_FALSE(a.is_free);
  EXPECT_EQ(a.bytes, 1048576u);
  EXPECT_EQ(a.address, 4096u);
  EXPECT_EQ(a.device, 1u);
  EXPECT_EQ(a.memory_kind, "device");
  EXPECT_EQ(a.correlation_id, 9u);
  EXPECT_EQ(a.ts_ns, 500);
  EXPECT_EQ(a.scope_path, 2u);
  EXPECT_TRUE(v->memory[1].is_free);
  EXPECT_EQ(v->memory[1].stream, 5u);
  EXPECT_NE(warnings.find("f:3: memory_event: field 'op'"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("f:4: memory_event: field 'bytes' missing"), std::string::npos)
      << warnings;
}

TEST(RecordTypes, DefaultsForOptionalFields) {
  std::string warnings;
  const auto v = decodeAll(
      R"({"type":"kernel_def","sid":"abcd1234","k":1,"name":"plain_c_name"})"
      "\n"
      R"({"type":"session_start","sid":"abcd1234","session_id":"s","start_ns":1,"start_unix_ns":2,"engine":"FutureEngine"})"
      "\n",
      &warnings);
  EXPECT_EQ(warnings, "");
  ASSERT_EQ(v->defs.size(), 1u);
  EXPECT_EQ(v->defs[0].demangled, "plain_c_name");
  EXPECT_FALSE(v->defs[0].occupancy);
  EXPECT_EQ(v->defs[0].grid, (Dim3{1, 1, 1}));
  ASSERT_EQ(v->starts.size(), 1u);
  EXPECT_EQ(v->starts[0].engine, Engine::None);
}

}  // namespace
}  // namespace gpufl::log
