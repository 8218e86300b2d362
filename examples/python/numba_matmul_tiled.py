"""Seed 01, second half: the shared-memory-tiled Numba matmul (the seed's `matmul_kernel_perf`), profiled the
same way as examples/python/numba_matmul.py so the two reports compare: the naive kernel moves ~3.4x the ideal
global sectors, the tiled one exactly the ideal.

The kernel is the seed's; the driver around it mirrors the naive script (app "matmul_sample_perf", scope
"matrix_mul_compute_perf", logs ./gfl_logs_perf.*). Run it like numba_matmul.py (see its docstring for the
numpy/numba-cuda alias needed on some images).
"""
import math
import os

import gpufl as gfl
import numpy as np
from gpufl.report import generate_report
from numba import cuda, float32

TPB = 16


@cuda.jit
def matmul_kernel_perf(A, B, C):
    sA = cuda.shared.array((TPB, TPB), dtype=float32)
    sB = cuda.shared.array((TPB, TPB), dtype=float32)

    x, y = cuda.grid(2)

    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y

    tmp = float32(0.0)

    n_tiles = (A.shape[1] + TPB - 1) // TPB

    for i in range(n_tiles):
        sA[ty, tx] = 0.0
        sB[ty, tx] = 0.0

        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]

        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]

        cuda.syncthreads()

        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]

        cuda.syncthreads()

    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


LOG_PATH = "./gfl_logs_perf"

gfl.init(
    app_name="matmul_sample_perf",
    log_path=LOG_PATH,
    sampling_auto_start=True,
    system_sample_rate_ms=100,
    profiling_engine=gfl.ProfilingEngine.PcSamplingWithSass,
)

try:
    N = 2048

    A = cuda.to_device(np.random.rand(N, N).astype(np.float32))
    B = cuda.to_device(np.random.rand(N, N).astype(np.float32))
    C = cuda.to_device(np.zeros((N, N), dtype=np.float32))

    bpg = (math.ceil(N / TPB), math.ceil(N / TPB))

    with gfl.Scope("matrix_mul_compute_perf", "math"):
        for _ in range(10):
            matmul_kernel_perf[bpg, (TPB, TPB)](A, B, C)

    _ = C.copy_to_host()
    print("[OK] compute finished")

finally:
    gfl.shutdown()

    print(generate_report(os.path.dirname(LOG_PATH) or ".", log_prefix=os.path.basename(LOG_PATH), top_n=10))
