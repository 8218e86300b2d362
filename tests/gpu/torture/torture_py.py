"""Python programs for the torture suite: PyTorch (cuBLAS, cuDNN, many distinct kernels), PyTorch CUDA
graphs, torch.compile with Triton and CUDA graphs, Numba, torch multiprocessing, and torch.profiler (a
program that uses CUPTI itself). Usage: torture_py.py CASE. Prints a deterministic RESULT line.

With GPUFL_TORTURE_LINKED=1 the program imports gpufl and calls gpufl.init first, as a linked program does
(options from the GPUFL_* environment), and gpufl.shutdown at the end.
"""
import os
import sys

LINKED = os.environ.get("GPUFL_TORTURE_LINKED") == "1"


def result(name, value):
    print(f"RESULT {name} {value:.4g}", flush=True)


def torch_mix():
    import torch

    torch.manual_seed(0)
    dev = torch.device("cuda")
    conv = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU(),
                               torch.nn.Conv2d(16, 32, 3, stride=2), torch.nn.AdaptiveAvgPool2d(1),
                               torch.nn.Flatten(), torch.nn.Linear(32, 10)).to(dev)
    opt = torch.optim.AdamW(conv.parameters(), lr=1e-3)
    x = torch.randn(32, 3, 32, 32, device=dev)
    y = torch.randint(0, 10, (32,), device=dev)
    for _ in range(10):
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(conv(x), y)
        loss.backward()
        opt.step()
    a = torch.randn(512, 512, device=dev, dtype=torch.float16)
    for dtype in (torch.float16, torch.bfloat16, torch.float32):
        a = (a.to(dtype) @ a.to(dtype).t()).softmax(-1)
    torch.cuda.synchronize()
    result("torch_mix", round(float(loss.item()), 1))


def torch_graph():
    import torch

    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.GELU(), torch.nn.Linear(256, 256)).to(dev)
    static_in = torch.randn(64, 256, device=dev)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):  # warm-up on a side stream, as the docs ask
        for _ in range(3):
            model(static_in)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = model(static_in)
    total = 0.0
    for i in range(20):
        static_in.copy_(torch.full((64, 256), 0.01 * i, device=dev))
        graph.replay()
        total += float(static_out.sum().item())
    result("torch_graph", round(total, 1))


def torch_compile():
    import torch

    torch.manual_seed(0)
    dev = torch.device("cuda")

    def f(x, w):
        return torch.nn.functional.gelu(x @ w).sin().sum(dim=-1)

    cf = torch.compile(f, mode="reduce-overhead")
    x = torch.randn(128, 256, device=dev)
    w = torch.randn(256, 256, device=dev)
    for _ in range(6):
        out = cf(x, w)
    result("torch_compile", round(float(out.sum().item()), 1))


def numba_case():
    import numpy as np

    if not hasattr(np, "row_stack"):  # numba-cuda 0.68 uses the alias numpy 2.5 removed
        np.row_stack = np.vstack
    from numba import cuda

    @cuda.jit
    def axpy(a, x, y, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    n = 1 << 16
    x = cuda.to_device(np.arange(n, dtype=np.float32))
    y = cuda.to_device(np.ones(n, dtype=np.float32))
    out = cuda.device_array(n, dtype=np.float32)
    for _ in range(10):
        axpy[n // 256, 256](2.0, x, y, out)
    cuda.synchronize()
    result("numba", float(out.copy_to_host().sum()))


def _mp_worker(rank, results):
    import torch

    x = torch.full((1024,), float(rank + 1), device="cuda")
    for _ in range(5):
        x = x * 2
    results[rank] = float(x.sum().item())


def torch_mp():
    import torch
    import torch.multiprocessing as mp

    torch.zeros(1, device="cuda")  # the parent uses CUDA before spawning
    with mp.Manager() as manager:
        results = manager.dict()
        mp.spawn(_mp_worker, args=(results,), nprocs=2, join=True)
        result("torch_mp", sum(results.values()))


def torch_profiler():
    import torch
    from torch.profiler import ProfilerActivity, profile

    dev = torch.device("cuda")
    torch.manual_seed(0)  # the printed result is compared with the plain run's
    x = torch.randn(256, 256, device=dev) / 16
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            x = (x @ x).tanh()
        torch.cuda.synchronize()
    names = {e.key for e in prof.key_averages()}
    print("PROFILER events", "ok" if names else "none", flush=True)
    result("torch_profiler", round(float(x.sum().item()), 1))


CASES = {"torch_mix": torch_mix, "torch_graph": torch_graph, "torch_compile": torch_compile,
         "numba": numba_case, "torch_mp": torch_mp, "torch_profiler": torch_profiler}


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        print("usage: torture_py.py CASE; cases: " + " ".join(CASES), file=sys.stderr)
        return 2
    if LINKED:
        import gpufl

        gpufl.init("torture_" + sys.argv[1])
    try:
        CASES[sys.argv[1]]()
    finally:
        if LINKED:
            gpufl.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
