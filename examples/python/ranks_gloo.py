#!/usr/bin/env python3
"""Data-parallel training whose ranks share one GPU (gloo all-reduce of the gradients), with a planted straggler:
the input of `gpufl report RANK0 RANK1 ...` on a one-GPU machine (NCCL refuses two ranks on one GPU).

    gpufl trace -o out/rank0 -- python3 examples/python/ranks_gloo.py --rank 0 --world 2 --port 29533 &
    gpufl trace -o out/rank1 -- python3 examples/python/ranks_gloo.py --rank 1 --world 2 --port 29533
    gpufl report out/rank0 out/rank1

Rank --late-rank sleeps --late-ms in its `compute` range every --every steps; the other ranks wait for it in
`all_reduce`, so every step takes as long on every rank and only the time outside the collective says who held
the others up. Ranges are NVTX (what `gpufl trace` records from a program that does not import gpufl):
step > compute, all_reduce, optimizer. The last line is the loss, identical with and without gpufl.
"""
import argparse
import time

import torch
import torch.distributed as dist


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rank", type=int, required=True)
    ap.add_argument("--world", type=int, default=2)
    ap.add_argument("--port", type=int, default=29533)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--late-rank", type=int, default=1)
    ap.add_argument("--late-ms", type=float, default=50.0)
    ap.add_argument("--every", type=int, default=10)
    a = ap.parse_args()

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{a.port}", rank=a.rank, world_size=a.world)
    torch.manual_seed(0)  # the same model on every rank
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).cuda()
    params = list(model.parameters())
    opt = torch.optim.SGD(params, lr=1e-3)
    g = torch.Generator(device="cuda").manual_seed(1 + a.rank)  # each rank its own data
    x = torch.randn(512, 1024, device="cuda", generator=g)
    y = torch.randn(512, 1024, device="cuda", generator=g)
    nvtx = torch.cuda.nvtx
    for step in range(a.steps):
        nvtx.range_push("step")
        nvtx.range_push("compute")
        opt.zero_grad(set_to_none=False)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        if a.rank == a.late_rank and step % a.every == a.every - 1:
            time.sleep(a.late_ms / 1e3)
        torch.cuda.synchronize()
        nvtx.range_pop()
        nvtx.range_push("all_reduce")
        flat = torch.cat([p.grad.reshape(-1) for p in params])
        dist.all_reduce(flat)  # gloo: copies to the host, reduces there, copies back; returns when done
        flat /= a.world
        offset = 0
        for p in params:
            p.grad.copy_(flat[offset:offset + p.numel()].view_as(p))
            offset += p.numel()
        torch.cuda.synchronize()
        nvtx.range_pop()
        nvtx.range_push("optimizer")
        opt.step()
        torch.cuda.synchronize()
        nvtx.range_pop()
        nvtx.range_pop()
    total = torch.tensor([loss.item()])
    dist.all_reduce(total)
    dist.destroy_process_group()
    print(f"rank {a.rank}: {a.steps} steps, mean loss {total.item() / a.world:.6f}")


if __name__ == "__main__":
    main()
