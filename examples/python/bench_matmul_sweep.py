"""Seed 02 on a real GPU: a torch matmul swept from 256 to 8192 in fp32 (TF32 off) and bf16 with gpufl.bench.sweep,
TFLOP/s per size against the device's data-sheet peaks, the size where the rate flattens, and what limits the
small sizes (launch overhead or too few blocks, from the kernels gpufl traced at each size). Then two honesty
checks: a tiny op timed launch by launch and through CUDA graph replay, and a copy timed warm and with L2 flushed.

Needs a GPU and PyTorch. Run: python examples/python/bench_matmul_sweep.py [--out DIR]
Writes DIR/matmul_sweep.{device,scope,system}.log, DIR/sweep_fp32.png, DIR/sweep_bf16.png, DIR/report.txt.
"""
import argparse
import os

import torch

import gpufl as gfl

parser = argparse.ArgumentParser()
parser.add_argument("--out", default="./bench_out")
parser.add_argument("--sizes", default="256,512,1024,2048,4096,8192")
args = parser.parse_args()
os.makedirs(args.out, exist_ok=True)
prefix = os.path.join(args.out, "matmul_sweep")
sizes = [int(s) for s in args.sizes.split(",")]

torch.backends.cuda.matmul.allow_tf32 = False  # fp32 means fp32: the CUDA-core peak, not TF32 tensor cores
torch.backends.cudnn.allow_tf32 = False

gfl.init(app_name="matmul_sweep", log_path=prefix, system_sample_rate_ms=50)
sweeps = {}
for dtype, label in [(torch.float32, "fp32"), (torch.bfloat16, "bf16")]:

    def make(n, dtype=dtype):
        a = torch.randn(n, n, device="cuda", dtype=dtype)
        b = torch.randn(n, n, device="cuda", dtype=dtype)
        return lambda: torch.mm(a, b)

    sweeps[label] = gfl.bench.sweep(make, sizes, flops=lambda n: 2 * n**3, name=f"matmul_{label}", dtype=label,
                                    shape=lambda n: f"{n}x{n}x{n}")

# A tiny operation: launch by launch, the launch dominates; graph replay times the work.
x = torch.randn(1024, device="cuda")
tiny_events = gfl.bench(lambda: x.add_(1.0), name="add_1k", shape="1024", dtype="fp32", bytes=8 * 1024)
tiny_graph = gfl.bench(lambda: x.add_(1.0), name="add_1k", shape="1024", dtype="fp32", bytes=8 * 1024, graph=True)

# A 64 MiB copy (fits the H200's 60 MiB L2 only partly): warm vs L2 flushed before every repetition.
src = torch.empty(64 << 20, dtype=torch.uint8, device="cuda")
dst = torch.empty_like(src)
copy_warm = gfl.bench(lambda: dst.copy_(src), name="copy_64MiB", shape="67108864", dtype="u8", bytes=2 * src.numel())
copy_cold = gfl.bench(lambda: dst.copy_(src), name="copy_64MiB", shape="67108864", dtype="u8", bytes=2 * src.numel(),
                      flush_l2=True)
gfl.shutdown()

for label, s in sweeps.items():
    s.attach_trace(prefix)  # blocks of the main kernel at each size, from the trace
    print(s.table())
    print()
    s.plot(path=os.path.join(args.out, f"sweep_{label}.png"))
for r in (tiny_events, tiny_graph, copy_warm, copy_cold):
    print(r)
report = gfl.report.generate_report(args.out, log_prefix="matmul_sweep")
with open(os.path.join(args.out, "report.txt"), "w") as f:
    f.write(report)
print(report)
