"""A small PyTorch training loop (an MLP on synthetic data) for `gpufl trace` and overhead measurements.

Prints the wall time of the timed steps. No gpufl import by default: it runs plain, under the floor library and
under `gpufl trace -- python train_loop.py`. With `--linked ENGINE` it calls gpufl.init itself (a scope per step:
"train/step"), as a program linking gpufl does, and prints the report's summary.
"""
import argparse
import contextlib
import os
import time

import torch


_tenth = 0


def timed_out(t0, seconds, steps):
    """With --seconds: every 50 steps, waits for the GPU and prints a "tenth" line per tenth of the time passed."""
    global _tenth
    if steps == 0 or steps % 50:
        return False
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - t0
    while _tenth < 10 and elapsed >= seconds * (_tenth + 1) / 10:
        _tenth += 1
        with open("/proc/self/statm") as f:
            rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        print(f"tenth {_tenth}: steps {steps} t_s {elapsed:.3f} rss_bytes {rss} "
              f"gpu_used_bytes {torch.cuda.memory_reserved()}", flush=True)
    return elapsed >= seconds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--width", type=int, default=1024)
    ap.add_argument("--linked", metavar="ENGINE", help="gpufl.init with this profiling engine (None, PcSampling, ...)")
    ap.add_argument("--seconds", type=float, default=None,
                    help="run steps for this long instead of --steps, with a 'tenth' line (resident and CUDA "
                         "memory) each tenth of the time: the soak's PyTorch loop (tests/gpu/soak)")
    args = ap.parse_args()
    scope = lambda name: contextlib.nullcontext()  # noqa: E731
    if args.linked:
        import gpufl

        gpufl.init("train_loop", log_path="./train_loop_linked", profiling_engine=args.linked)
        scope = gpufl.Scope

    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = torch.nn.Sequential(
        torch.nn.Linear(args.width, args.width), torch.nn.ReLU(),
        torch.nn.Linear(args.width, args.width), torch.nn.ReLU(),
        torch.nn.Linear(args.width, 10),
    ).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(args.batch, args.width, device=dev)
    y = torch.randint(0, 10, (args.batch,), device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    for _ in range(20):  # warm-up: allocator growth, cuBLAS heuristics
        step()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    steps = 0
    with scope("train"):
        while (steps < args.steps) if args.seconds is None else not timed_out(t0, args.seconds, steps):
            with scope("step"):
                loss = step()
            steps += 1
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    print(f"train_loop: {steps} steps in {dt:.4f} s ({1e3 * dt / steps:.3f} ms/step), loss {loss.item():.4f}")
    if args.linked:
        import gpufl
        from gpufl.report import generate_report

        gpufl.shutdown()
        print(generate_report(".", log_prefix="train_loop_linked", top_n=5)[:3000])


if __name__ == "__main__":
    main()
