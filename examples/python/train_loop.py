"""A small PyTorch training loop (an MLP on synthetic data) for `gpufl trace` and overhead measurements.

Prints the wall time of the timed steps. No gpufl import: it runs plain, under the floor library and under
`gpufl trace -- python train_loop.py`.
"""
import argparse
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--width", type=int, default=1024)
    args = ap.parse_args()

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
    for _ in range(args.steps):
        loss = step()
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    print(f"train_loop: {args.steps} steps in {dt:.4f} s ({1e3 * dt / args.steps:.3f} ms/step), loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
