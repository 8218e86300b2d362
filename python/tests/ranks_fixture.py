"""Synthetic multi-rank job for the many-ranks tests: RANKS processes of one training program on one host (pids
5000 + rank), each `train` > `step` x STEPS with a gemm and an allreduce kernel per step. Rank SLOW is the planted
straggler: its gemm runs GEMM_SLOWDOWN times longer, so its steps (and its train scope) take longer by exactly
STEPS * (slow gemm - gemm). The ranks share CLOCK_MONOTONIC; their wall-clock pairings differ by up to JITTER_NS
(what reading two clocks one after the other costs)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
from make_fixtures import DEVICE, kernel_def, kernel_events, rec  # noqa: E402

RANKS, SLOW, STEPS = 4, 2, 20
MS, US = 1_000_000, 1_000
GEMM_NS, ALLREDUCE_NS, GEMM_SLOWDOWN = 4 * MS, 1 * MS, 1.5
T0 = 50_000_000_000
UNIX0 = 1_790_000_000_000_000_000
JITTER_NS = 3 * US


# The collective job (write_job(..., collective=True)): the allreduce is a real NCCL kernel, and rank SLOW is late
# by HOST_DELAY_NS of host work before each step's gemm. Every rank's allreduce ends when the last rank joins,
# so the other ranks wait that long inside it and all steps take the same time: only the time outside the
# collective tells who held the others up.
NCCL_NAME = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
NCCL_MANGLED = "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"
HOST_DELAY_NS = 3 * MS
# The gloo job (write_job(..., collective="scopes")): the same late rank, but the all-reduce runs on the host (gloo)
# and shows in no kernel: each step holds a `compute` scope (the gemm, and the late rank's host work) and an
# `all_reduce` scope, in which the other ranks wait HOST_DELAY_NS for the late one.
COMPUTE_NS = GEMM_NS + 1 * MS


def step_ns(rank, collective=False):
    if collective == "scopes":
        return COMPUTE_NS + HOST_DELAY_NS + ALLREDUCE_NS + 2 * MS
    if collective:
        return GEMM_NS + HOST_DELAY_NS + ALLREDUCE_NS + 2 * MS
    return gemm_ns(rank) + ALLREDUCE_NS + 2 * MS  # kernels plus host work between them


def gemm_ns(rank):
    return int(GEMM_NS * (GEMM_SLOWDOWN if rank == SLOW else 1))


def write_rank(directory, rank, collective=False):
    sid = f"{0xabc00000 + rank:08x}"
    start = T0 + rank * 10 * MS  # launched one after another
    pairing = UNIX0 - T0 + (rank % 2) * JITTER_NS
    session_start = rec("session_start", sid, schema=1, session_id=f"{sid}-0000-4000-8000-000000000000",
                        app="trainer", pid=5000 + rank, host="node1", version="0.1.0", engine="None",
                        start_ns=start, start_unix_ns=start + pairing, options={}, devices=[DEVICE])
    scope, kernels, t, corr = [], [], start + 1 * MS, 1
    scope += [rec("scope_path", sid, p=1, parent=0, name="train", depth=0),
              rec("scope_path", sid, p=2, parent=1, name="step", depth=1),
              rec("scope_begin", sid, p=1, name="train", tag="", depth=0, tid=100 + rank, id=1, ts_ns=t)]
    if collective == "scopes":
        scope[2:2] = [rec("scope_path", sid, p=3, parent=2, name="compute", depth=2),
                      rec("scope_path", sid, p=4, parent=2, name="all_reduce", depth=2)]
    for s in range(STEPS):
        begin = t + 10 * US
        scope.append(rec("scope_begin", sid, p=2, name="step", tag="", depth=1, tid=100 + rank, id=2 + s,
                         ts_ns=begin))
        g = begin + 1 * MS
        if collective == "scopes":  # the late rank computes HOST_DELAY_NS longer; the others wait in all_reduce
            late = HOST_DELAY_NS if rank == SLOW else 0
            kernels.append((1, 7, 2, g, GEMM_NS, corr, {}))
            compute_end = begin + COMPUTE_NS + late
            reduce_end = begin + COMPUTE_NS + HOST_DELAY_NS + ALLREDUCE_NS
            ids = 1000 + 2 * s
            scope += [rec("scope_begin", sid, p=3, name="compute", tag="", depth=2, tid=100 + rank, id=ids,
                          ts_ns=begin + 1 * US),
                      rec("scope_end", sid, p=3, tid=100 + rank, id=ids, ts_ns=compute_end),
                      rec("scope_begin", sid, p=4, name="all_reduce", tag="", depth=2, tid=100 + rank, id=ids + 1,
                          ts_ns=compute_end + 1 * US),
                      rec("scope_end", sid, p=4, tid=100 + rank, id=ids + 1, ts_ns=reduce_end)]
        elif collective:  # the late rank's gemm starts HOST_DELAY_NS later; the others wait in the allreduce
            late = HOST_DELAY_NS if rank == SLOW else 0
            kernels.append((1, 7, 2, g + late, GEMM_NS, corr, {}))
            kernels.append((2, 7, 2, g + late + GEMM_NS + 5 * US, ALLREDUCE_NS + HOST_DELAY_NS - late, corr + 1, {}))
        else:
            kernels.append((1, 7, 2, g, gemm_ns(rank), corr, {}))
            kernels.append((2, 7, 2, g + gemm_ns(rank) + 5 * US, ALLREDUCE_NS, corr + 1, {}))
        corr += 2
        t = begin + step_ns(rank, collective)
        scope.append(rec("scope_end", sid, p=2, tid=100 + rank, id=2 + s, ts_ns=t))
    scope.append(rec("scope_end", sid, p=1, tid=100 + rank, id=1, ts_ns=t + 10 * US))
    end_ns = t + 1 * MS
    n_kernels = STEPS if collective == "scopes" else 2 * STEPS
    n_scopes = STEPS + 1 + (2 * STEPS if collective == "scopes" else 0)
    end = rec("session_end", sid, end_ns=end_ns, kernels=n_kernels, memcpys=0, scopes=n_scopes, dropped={},
              overhead_ns={}, cpu_time_ns=0, buffers=1, bytes_written=0)
    occ = (1, 1, 1, 1, 1)
    nccl = collective is True
    device = [session_start,
              kernel_def(sid, 1, "_Z4gemmv", "gemm()", "(132,1,1)", "(256,1,1)", 64, 0, occ, "warps", 8, 1.0),
              kernel_def(sid, 2, NCCL_MANGLED if nccl else "_Z9allreducev",
                         NCCL_NAME if nccl else "allreduce()", "(32,1,1)", "(512,1,1)", 32, 0, occ, "warps", 4,
                         0.25)] + kernel_events(sid, kernels) + [end]
    prefix = os.path.join(directory, f"rank{rank}")
    for channel, lines in (("device", device), ("scope", [session_start] + scope + [end]),
                           ("system", [session_start, end])):
        with open(f"{prefix}.{channel}.log", "w") as f:
            f.write("\n".join(lines) + "\n")
    return prefix


def write_job(directory, collective=False):
    return [write_rank(str(directory), r, collective) for r in range(RANKS)]


if __name__ == "__main__":
    print(json.dumps(write_job(sys.argv[1])))
