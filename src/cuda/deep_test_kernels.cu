// Test fixture for deep_engines_test: compiled to an sm_90 cubin with line info at build time
// (deep.cmake). The tests look for these functions, their global loads/stores and their source
// lines.
__global__ void deepTestCopy4(const float4* in, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

__global__ void deepTestBytes(const char* in, char* out, const double* a, double* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i] + 1;
    b[i] = a[i] * 2.0;
  }
}
