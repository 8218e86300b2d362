"""NVTX ranges as gpufl scopes: torch.cuda.nvtx.range / range_push / range_pop, and record_function under
torch.autograd.profiler.emit_nvtx(). See docs/nvtx.md.

Two ways to run it (needs a GPU and torch):
  linked:  python examples/python/nvtx_ranges.py            (gpufl.init before the first NVTX call; checks its log)
  traced:  gpufl trace -o nvtx_py -- python examples/python/nvtx_ranges.py
           gpufl report nvtx_py                              (look for train_step/fwd, train_step/opt)

What to expect in the scopes (kernel counts per scope path):
  train_step/fwd, train_step/opt  the forward and optimizer kernels of each step;
  train_step/bwd                  few or none: autograd runs backward kernels on its own thread, and a range is
                                  per thread (like gpufl.Scope); under emit_nvtx() that thread's own op ranges
                                  name them instead (e.g. "autograd::engine::evaluate_function: AddmmBackward0");
  emit_nvtx/my_block/aten::...    record_function and every op, one scope name per op (", seq = N" is cut);
  setup                           linked: the randn kernels; traced: nothing, since its push came before CUDA
                                  initialised and gpufl with it, so gpufl never saw it (and ignores its pop).
"""
import os
import sys

TRACED = bool(os.environ.get("CUDA_INJECTION64_PATH"))  # set by `gpufl trace`
PREFIX = "./nvtx_ranges"

if not TRACED:
    import gpufl

    # Before any NVTX call of the process: init points NVTX at CUPTI (NVTX_INJECTION64_PATH).
    gpufl.init("nvtx_ranges", log_path=PREFIX, system_sample_rate_ms=0, enable_nvtx=True)

import torch  # noqa: E402
from torch.cuda import nvtx  # noqa: E402

with nvtx.range("setup"):  # under trace this is the first NVTX call, before CUDA (and gpufl) start
    x = torch.randn(512, 1024, device="cuda")
    target = torch.randn(512, 10, device="cuda")

model = torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)

STEPS = 3
for step in range(STEPS):
    with nvtx.range("train_step"):
        with nvtx.range("fwd"):
            loss = torch.nn.functional.mse_loss(model(x), target)
        with nvtx.range("bwd"):
            loss.backward()
        nvtx.range_push("opt")
        opt.step()
        opt.zero_grad()
        nvtx.range_pop()

# record_function emits NVTX only inside emit_nvtx() (which also emits one range per aten op).
with torch.autograd.profiler.emit_nvtx():
    with nvtx.range("emit_nvtx"):
        with torch.autograd.profiler.record_function("my_block"):
            y = model(x).relu()
torch.cuda.synchronize()

if TRACED:
    print("nvtx_ranges: done; run `gpufl report <prefix>` on the -o prefix given to gpufl trace")
    sys.exit(0)

gpufl.shutdown()

from gpufl.analyzer import GpuFlightSession  # noqa: E402

session = GpuFlightSession(".", log_prefix="nvtx_ranges")
per_scope = session.kernels.groupby("scope", observed=True).size().to_dict()
for scope, n in sorted(per_scope.items(), key=lambda kv: str(kv[0])):
    print(f"{n:6d}  {scope}")
notes = session.notes
if len(notes) and "feature" in notes:
    print(notes[notes["feature"] == "nvtx"].to_string(index=False))

missing = [s for s in ("setup", "train_step/fwd", "train_step/opt") if per_scope.get(s, 0) == 0]
if not any(str(s).startswith("emit_nvtx/my_block") for s in per_scope):
    missing.append("emit_nvtx/my_block/...")
if missing:
    print(f"nvtx_ranges: FAIL: no kernels under {missing}", file=sys.stderr)
    sys.exit(1)
print("nvtx_ranges: OK: NVTX ranges are scopes")
