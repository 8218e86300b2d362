"""Seed 03: the PyTorch smoke test from "Getting Started with GPU Flight's Python Package", then the analyzer.

The two cells of the post, unchanged, one after the other; then the other inspect_*() views and plots to PNG.
Needs a GPU and torch. Run: python examples/python/pytorch_smoke.py   (writes ./smoke_test.*.log)
"""
import torch
import gpufl
from gpufl import ProfilingEngine

print(f"PyTorch: {torch.__version__}")
print(f"CUDA available: {torch.cuda.is_available()}")
print(f"Device: {torch.cuda.get_device_name(0)}")

# Initialize GPU Flight
gpufl.init("smoke-test",
           log_path="./smoke_test",
           sampling_auto_start=True,
           enable_kernel_details=True,
           enable_stack_trace=True,
           profiling_engine = ProfilingEngine.RangeProfiler)

# Run a simple operation
with gpufl.Scope("RandomGeneration"):
    a = torch.randn(1024, 1024, device="cuda")
    b = torch.randn(1024, 1024, device="cuda")
with gpufl.Scope("a @ b"):
    c = a @ b
    torch.cuda.synchronize()

gpufl.shutdown()
print("GPU Flight logs written!")

# --- Analyzing the Results ---
from gpufl.analyzer import GpuFlightSession

session = GpuFlightSession(".", log_prefix="smoke_test")
session.print_summary()

session.inspect_hotspots(top_n=10)

# Beyond the post: the other views, and the plots (headless-safe: saved to PNG).
session.inspect_scopes()
session.inspect_perf_metrics()
session.inspect_memcpy()
print(session.kernels[["name", "duration_ns", "grid", "block", "occupancy", "limiting_resource", "scope"]].head(20))
try:
    from gpufl import viz

    viz.plot_all(session, save_prefix="smoke_test", show=False)
    print("plots: smoke_test.timeline.png smoke_test.gpu.png smoke_test.memory.png")
except ImportError:
    print("matplotlib not installed: no plots (pip install \"gpufl[viz]\")")
