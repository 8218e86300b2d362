#include "synthetic_kernels.hpp"

#include <algorithm>

#include "core/arch_limits.hpp"
#include "core/demangle.hpp"
#include "core/occupancy.hpp"

namespace gpufl::bench {
namespace {

struct Entry {
  const char*
      name;  // as CUPTI reports it: mangled, or plain for extern "C" (cuBLAS, Triton) kernels
  Dim3 grid, block;
  int regs;
  int64_t static_smem, dyn_smem;
  Phase phase;
  double weight;
  int64_t base_ns;
  uint32_t stream;
};

constexpr uint32_t kCompute = 7, kComm = 13, kAux = 15;
constexpr Phase kF = Phase::Forward, kB = Phase::Backward, kO = Phase::Optimizer;

// A bf16 decoder-only transformer step (batch 8 x 4096 tokens, hidden 4096) on one H200. Weights
// give each kernel's share of its phase's launches; durations are what such kernels take there, to
// within a factor of two.
// clang-format off: one kernel per entry, name first, then its launch shape and model parameters.
//  grid, block, regs, static smem, dynamic smem, phase, weight, base duration (ns), stream
const Entry kCatalog[] = {
    {"_Z12embedding_fwPKlPK13__nv_bfloat16PS1_ii",
     {4096, 1, 1},
     {256, 1, 1},
     32,
     0,
     0,
     kF,
     0.3,
     12000,
     kCompute},
    {"_Z28vectorized_layer_norm_kernelIN3c108BFloat16EfEviT0_PKT_S5_S5_PS2_S6_PS3_",
     {32768, 1, 1},
     {256, 1, 1},
     40,
     0,
     0,
     kF,
     2,
     14000,
     kCompute},
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_s"
     "egment_k_off_kernel__5x_cublas",
     {132, 1, 1},
     {384, 1, 1},
     168,
     0,
     218112,
     kF,
     3,
     310000,
     kCompute},
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x128x64_warpgroupsize1x1x1_execute_s"
     "egment_k_off_kernel__5x_cublas",
     {264, 1, 1},
     {256, 1, 1},
     168,
     0,
     196608,
     kF,
     2,
     180000,
     kCompute},
    {"_ZN5flash16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi128ELi128ELi64ELi4ELb0ELb0EN7cut"
     "lass10bfloat16_tE19Flash_kernel_traitsILi128ELi128ELi64ELi4ES3_EELb1ELb0ELb0ELb0ELb1ELb1"
     "ELb0ELb0EEEv16Flash_fwd_params",
     {32, 32, 8},
     {128, 1, 1},
     255,
     0,
     49152,
     kF,
     1,
     220000,
     kCompute},
    {"triton_poi_fused_add_mul_0", {16384, 1, 1}, {128, 1, 1}, 24, 0, 0, kF, 4, 9000, kCompute},
    {"triton_red_fused_native_layer_norm_1",
     {8192, 1, 1},
     {512, 1, 1},
     38,
     0,
     0,
     kF,
     1,
     16000,
     kCompute},
    {"triton_per_fused__softmax_2", {32768, 1, 1}, {128, 1, 1}, 30, 0, 0, kF, 0.4, 28000, kCompute},
    {"_Z17gelu_fwd_bf16_vecPK13__nv_bfloat16PS_l",
     {32768, 1, 1},
     {256, 1, 1},
     22,
     0,
     0,
     kF,
     1,
     21000,
     kCompute},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIN3c108BFloat16EEE"
     "St5arrayIPcLm3EEEEviT0_T1_",
     {16384, 1, 1},
     {128, 1, 1},
     20,
     0,
     0,
     kF,
     5,
     8500,
     kCompute},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13BinaryFunctorIN3c108BFloat16ES4_S"
     "4_NS0_10MulFunctorIfEEEESt5arrayIPcLm3EEEEviT0_T1_",
     {16384, 1, 1},
     {128, 1, 1},
     22,
     0,
     0,
     kF,
     3,
     8600,
     kCompute},
    {"_Z15dropout_fwd_kerPK13__nv_bfloat16PS_PhfmmPv",
     {16384, 1, 1},
     {256, 1, 1},
     30,
     0,
     0,
     kF,
     1,
     15000,
     kCompute},
    {"_Z17rope_fwd_bf16_kerP13__nv_bfloat16PKfiii",
     {8192, 1, 1},
     {256, 1, 1},
     28,
     0,
     0,
     kF,
     1,
     7000,
     kCompute},
    {"_ZN2at6native12_GLOBAL__N_120softmax_warp_forwardIN3c108BFloat16ES4_fLi11ELb0ELb0EEEvPT0"
     "_PKT_iiiPKbib",
     {8192, 1, 1},
     {128, 1, 1},
     64,
     0,
     0,
     kF,
     0.5,
     30000,
     kCompute},
    {"_Z21cross_entropy_fwd_kerPKfPKlPfiii",
     {4096, 1, 1},
     {1024, 1, 1},
     48,
     4096,
     0,
     kF,
     0.08,
     45000,
     kCompute},
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize256x128x64_warpgroupsize2x1x1_execute_s"
     "egment_k_off_kernel__5x_cublas",
     {132, 1, 1},
     {384, 1, 1},
     168,
     0,
     218112,
     kB,
     3,
     340000,
     kCompute},
    {"nvjet_tst_192x192_64x4_2x1_v_bz_coopB_TNN",
     {132, 1, 1},
     {384, 1, 1},
     168,
     0,
     221184,
     kB,
     3,
     290000,
     kCompute},
    {"_ZN5flash44flash_bwd_dq_dk_dv_loop_seqk_parallel_kernelI23Flash_bwd_kernel_traitsILi128E"
     "Li64ELi128ELi8ELi2ELi4ELi2ELb0ELb0EN7cutlass10bfloat16_tE19Flash_kernel_traitsILi128ELi6"
     "4ELi128ELi8ES3_EELb1ELb0ELb0ELb0ELb1ELb1ELb0ELb0EEEv16Flash_bwd_params",
     {32, 32, 8},
     {256, 1, 1},
     255,
     0,
     114688,
     kB,
     1,
     560000,
     kCompute},
    {"_Z24layer_norm_backward_cudaPKfS0_S0_S0_PfS1_S1_ii",
     {32768, 1, 1},
     {256, 1, 1},
     56,
     2048,
     0,
     kB,
     2,
     26000,
     kCompute},
    {"_Z17gelu_bwd_bf16_vecPK13__nv_bfloat16S1_PS_l",
     {32768, 1, 1},
     {256, 1, 1},
     26,
     0,
     0,
     kB,
     1,
     24000,
     kCompute},
    {"_ZN2at6native12_GLOBAL__N_121softmax_warp_backwardIN3c108BFloat16ES4_fLi11ELb0ELb0EEEvPT"
     "0_PKT_S9_iiiPKb",
     {8192, 1, 1},
     {128, 1, 1},
     64,
     0,
     0,
     kB,
     0.5,
     32000,
     kCompute},
    {"_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastINS0_13BUnaryFu"
     "nctorIfffNS0_10MulFunctorIfEEEEEEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
     {4096, 1, 1},
     {128, 1, 1},
     18,
     0,
     0,
     kB,
     3,
     6000,
     kCompute},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_14func_wrapper_tIfNS0_11sum_fu"
     "nctorIfffEEEEjfLi4EEEEEvT1_",
     {1024, 1, 1},
     {512, 1, 1},
     32,
     2048,
     0,
     kB,
     2.5,
     11000,
     kCompute},
    {"triton_poi_fused_gelu_backward_3",
     {16384, 1, 1},
     {128, 1, 1},
     28,
     0,
     0,
     kB,
     1,
     19000,
     kCompute},
    {"_Z19cross_entropy_bwd_kPKfPKlPfiii",
     {4096, 1, 1},
     {1024, 1, 1},
     40,
     0,
     0,
     kB,
     0.08,
     40000,
     kCompute},
    {"_Z40ncclDevKernel_AllReduce_Sum_bf16_RING_LL24ncclDevKernelArgsStorageILm4096EE",
     {16, 1, 1},
     {512, 1, 1},
     96,
     0,
     0,
     kB,
     0.4,
     850000,
     kComm},
    {"_ZN2at6native12_GLOBAL__N_125multi_tensor_apply_kernelINS1_18TensorListMetadataILi4EEENS"
     "1_11AdamFunctorIfLi4EEEJffffffbPfS7_EEEvT_T0_DpT1_",
     {320, 1, 1},
     {512, 1, 1},
     72,
     0,
     0,
     kO,
     3,
     95000,
     kCompute},
    {"_Z14amax_reductionPKfPfi", {132, 1, 1}, {1024, 1, 1}, 32, 4096, 0, kO, 1, 4000, kAux},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEE"
     "viT0_T1_",
     {1024, 1, 1},
     {128, 1, 1},
     16,
     0,
     0,
     kO,
     1.5,
     2400,
     kCompute},
    {"_Z23direct_copy_kernel_cudaPKvPvm",
     {8192, 1, 1},
     {128, 1, 1},
     20,
     0,
     0,
     kO,
     1,
     18000,
     kCompute},
};
// clang-format on

}  // namespace

DeviceInfo h200Device() {
  DeviceInfo d;
  d.id = 0;
  d.name = "NVIDIA H200";
  d.uuid = "GPU-df2b2301-2f49-d39a-e374-d30245875b8d";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.warp_size = 32;
  d.max_threads_per_sm = 2048;
  d.max_threads_per_block = 1024;
  d.max_blocks_per_sm = 32;
  d.regs_per_sm = 65536;
  d.regs_per_block = 65536;
  d.smem_per_sm_bytes = 233472;           // 228 KiB
  d.smem_per_block_bytes = 49152;         // 48 KiB without opt-in
  d.smem_per_block_optin_bytes = 232448;  // 227 KiB
  d.smem_reserved_per_block_bytes = 1024;
  d.l2_bytes = 62914560;  // 60 MiB, as the runtime reports it (not the 50 MiB of the H100 SXM)
  d.global_mem_bytes = 150109880320;  // 139.8 GiB usable of 141 GB
  d.mem_bus_bits = 6016;              // as reported by cudaDevAttrGlobalMemoryBusWidth
  d.clock_khz = 1980000;
  d.mem_clock_khz = 3201000;
  return d;
}

std::vector<SyntheticKernel> syntheticKernels(const DeviceInfo& device) {
  const ArchLimits limits = limitsFromDevice(device);
  std::vector<SyntheticKernel> out;
  uint32_t id = 0;
  for (const Entry& e : kCatalog) {
    SyntheticKernel k;
    k.def.id = ++id;
    k.def.name = e.name;
    k.def.demangled = demangle(e.name);
    k.def.device = device.id;
    k.def.context = 1;
    k.def.grid = e.grid;
    k.def.block = e.block;
    k.def.num_regs = e.regs;
    k.def.static_shared_bytes = e.static_smem;
    k.def.dyn_shared_bytes = e.dyn_smem;
    const Occupancy occ = computeOccupancy(limits, static_cast<int>(e.block.count()), e.regs,
                                           e.static_smem, e.dyn_smem);
    k.def.occupancy = occ;
    if (occ.max_active_blocks > 0) {
      k.def.waves =
          static_cast<double>(e.grid.count()) / (double(occ.max_active_blocks) * device.sm_count);
    }
    k.phase = e.phase;
    k.weight = e.weight;
    k.base_ns = e.base_ns;
    k.stream = e.stream;
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace gpufl::bench
