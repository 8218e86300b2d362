"""PyTorch allocating 1 GiB tensors inside an NVTX range until torch.cuda.OutOfMemoryError, which it catches; it
then frees them and goes on with a small matmul, as a program that retries with a smaller batch would.

Usage: incident_torch_oom.py [--linked]   (--linked or GFL_LINKED=1: gpufl.init first, options from GPUFL_*)
Prints `REQUEST <bytes>` (the size of the allocation that fails) and deterministic RESULT lines; tests/gpu/incidents/
check_incidents.py checks the out_of_memory incident against them.
"""
import os
import sys

LINKED = "--linked" in sys.argv[1:] or os.environ.get("GFL_LINKED") == "1"
CHUNK = 1 << 30  # a multiple of the caching allocator's 2 MiB rounding: cudaMalloc is asked for exactly this


def main():
    if LINKED:
        import gpufl  # before torch: NVTX binds its tool at torch's first range (docs/nvtx.md)

        gpufl.init("incidents_torch_oom")
    import torch

    torch.zeros(1, device="cuda")  # CUDA (and, under gpufl trace, gpufl) starts before the first range
    total = torch.cuda.get_device_properties(0).total_memory
    print(f"REQUEST {CHUNK}", flush=True)
    held, caught = [], False
    torch.cuda.nvtx.range_push("alloc_loop")
    try:
        while len(held) * CHUNK <= 2 * total:
            held.append(torch.empty(CHUNK, dtype=torch.uint8, device="cuda"))
    except torch.cuda.OutOfMemoryError:
        caught = True
    finally:
        torch.cuda.nvtx.range_pop()
    print(f"HELD {len(held)}", flush=True)  # depends on what else holds memory: not compared
    print(f"RESULT torch_oom_caught {caught}", flush=True)
    del held
    torch.cuda.empty_cache()
    torch.cuda.nvtx.range_push("after_oom")
    a = torch.arange(64 * 64, dtype=torch.float32, device="cuda").reshape(64, 64) / 4096
    b = a @ a.t()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    print(f"RESULT torch_oom_matmul {b.sum().item():.3f}", flush=True)
    if LINKED:
        gpufl.shutdown()
    return 0 if caught else 1


if __name__ == "__main__":
    sys.exit(main())
