// Compiled to PTX at build time and JIT-compiled by the driver when gpufl_torture driver_api loads
// it.
extern "C" __global__ void jit_scale(float* x, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}
