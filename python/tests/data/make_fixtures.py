#!/usr/bin/env python3
"""Writes the hand-made NDJSON sessions the Python tests read (docs/log-format.md, schema 1).

    python3 python/tests/data/make_fixtures.py      # rewrites python/tests/data/{sample,damaged}.*.log

`sample`: two sessions under one prefix. The older one (app "old_run") has one kernel; the latest one
(app "fixture_app", engine PcSamplingWithSass, 2.0 s) has 7 kernels of 2 functions / 3 launch shapes on 2 streams
(delta-encoded, one negative dt, one instrumented), 4 copies + 1 memset, nested scopes on 2 threads (one left
open), GPU and host samples (some fields missing), SASS metrics, PC samples, range counters, notes, a stack and a
benchmark. The expected figures in test_analyzer.py are worked out from the constants below by hand.
`damaged`: a session with a garbage line between an absolute and a delta kernel record.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
MS = 1_000_000
MIB = 1 << 20
GIB = 1 << 30
T0 = 10_000_000_000  # start_ns of the latest session

DEVICE = {
    "id": 0, "name": "NVIDIA H200", "uuid": "GPU-00000000-0000-0000-0000-000000000000", "cc_major": 9,
    "cc_minor": 0, "sm_count": 132, "warp_size": 32, "max_threads_per_sm": 2048, "max_threads_per_block": 1024,
    "max_blocks_per_sm": 32, "regs_per_sm": 65536, "regs_per_block": 65536, "smem_per_sm_bytes": 233472,
    "smem_per_block_bytes": 49152, "smem_per_block_optin_bytes": 232448, "smem_reserved_per_block_bytes": 1024,
    "l2_bytes": 52428800, "global_mem_bytes": 150 * GIB, "mem_bus_bits": 6144, "clock_khz": 1980000,
    "mem_clock_khz": 2619000,
}
OPTIONS = {"app_name": "fixture_app", "log_path": "./sample", "profiling_engine": "PcSamplingWithSass",
           "sampling_auto_start": True, "system_sample_rate_ms": 100, "enable_kernel_details": True,
           "enable_stack_trace": True, "enable_debug_output": False, "deep_launches_per_kernel": 5,
           "rotate_bytes": 67108864}

MATMUL = "_Z21matmul_row_per_threadPKfS0_Pfiii"
REDUCE = "_Z18block_reduce_naivePKfPfi"


def rec(type_, sid, **fields):
    return json.dumps({"type": type_, "sid": sid, **fields}, separators=(",", ":"))


def session_start(sid, session_id, app, start_ns, devices=None, engine="PcSamplingWithSass"):
    fields = dict(schema=1, session_id=session_id, app=app, pid=4242, host="h200-test", version="0.1.0",
                  engine=engine, start_ns=start_ns, start_unix_ns=1_780_000_000_000_000_000 + start_ns,
                  options=OPTIONS)
    if devices is not None:
        fields["devices"] = devices
    return rec("session_start", sid, **fields)


def session_end(sid, end_ns, kernels, memcpys, scopes):
    return rec("session_end", sid, end_ns=end_ns, kernels=kernels, memcpys=memcpys, scopes=scopes,
               dropped={"scope": 0, "launch": 2, "activity": 0},
               overhead_ns={"writer": 1 * MS, "cupti_callbacks": MS // 2}, cpu_time_ns=3 * MS, buffers=4,
               bytes_written=12345)


def kernel_def(sid, k, name, demangled, grid, block, regs, static_smem, occ, limiting, max_blocks, waves):
    o, r, s, w, b = occ
    return rec("kernel_def", sid, k=k, name=name, demangled=demangled, device=0, context=1, grid=grid, block=block,
               num_regs=regs, static_shared_bytes=static_smem, dyn_shared_bytes=0, local_bytes=0, occupancy=o,
               reg_occupancy=r, smem_occupancy=s, warp_occupancy=w, block_occupancy=b, limiting_resource=limiting,
               max_active_blocks=max_blocks, waves=waves)


def kernel_events(sid, events):
    """events: (k, stream, scope, start_ns, dur_ns, corr, extra); first absolute, the rest as deltas."""
    out = []
    prev = None
    for k, stream, scope, start, dur, corr, extra in events:
        fields = dict(k=k, stream=stream, scope=scope, **extra, dur_ns=dur)
        if prev is None:
            fields.update(start_ns=start, corr=corr)
        else:
            fields.update(dt_ns=start - prev[0], dcorr=corr - prev[1])
        out.append(rec("kernel_event", sid, **fields))
        prev = (start, corr)
    return out


def write(prefix, channel, lines):
    with open(os.path.join(HERE, f"{prefix}.{channel}.log"), "w") as f:
        f.write("\n".join(lines) + "\n")


def sample():
    old, new = "0a0a0a0a", "5e55b0b0"
    old_id, new_id = "0a0a0a0a-0000-4000-8000-000000000000", "5e55b0b0-1111-4222-8333-444455556666"
    old_t0 = 1_000_000_000
    end = T0 + 2000 * MS
    # One delta chain per session and file, as the writer keeps it; kernel_def 3 appears mid-chain.
    chain = kernel_events(new, [
        (1, 7, 2, T0 + 100 * MS, 10 * MS, 100, {"stack": 1}),
        (1, 7, 2, T0 + 120 * MS, 10 * MS, 102, {}),
        (2, 7, 2, T0 + 140 * MS, 5 * MS, 104, {}),
        (3, 7, 1, T0 + 300 * MS, 25 * MS, 110, {}),
        (2, 14, 0, T0 + 305 * MS, 5 * MS, 111, {}),
        (2, 14, 0, T0 + 1000 * MS, 5 * MS, 120, {"instr": True}),
        (2, 7, 0, T0 + 900 * MS, 1 * MS, 121, {}),   # delivered out of start order: negative dt
    ])

    device = [
        # older session: one kernel
        session_start(old, old_id, "old_run", old_t0, [DEVICE]),
        kernel_def(old, 1, "_Z6warmupv", "warmup()", "(1,1,1)", "(32,1,1)", 8, 0, (1, 1, 1, 1, 1), "warps", 32,
                   0.0002),
        *kernel_events(old, [(1, 7, 0, old_t0 + 10 * MS, 1 * MS, 5, {})]),
        session_end(old, old_t0 + 500 * MS, 1, 0, 0),
        # latest session
        session_start(new, new_id, "fixture_app", T0, [DEVICE]),
        rec("note", new, ts_ns=T0 + 1 * MS, feature="cupti_activity", status="on", reason="kernels, copies"),
        rec("note", new, ts_ns=T0 + 1 * MS, feature="nvml", status="on", reason="1 GPU"),
        rec("note", new, ts_ns=T0 + 2 * MS, feature="pc_sampling", status="degraded",
            reason="sampling interval raised to 2^10 cycles"),
        rec("stack", new, id=1, frames=["main+0x10 (app)", "__libc_start_main+0x80 (libc.so.6)"]),
        rec("memcpy_event", new, kind="HtoD", bytes=16 * MIB, device=0, stream=7, corr=90, start_ns=T0 + 10 * MS,
            dur_ns=2 * MS, scope=1, src_kind="pageable", dst_kind="device"),
        rec("memcpy_event", new, kind="HtoD", bytes=16 * MIB, device=0, stream=7, corr=91, start_ns=T0 + 20 * MS,
            dur_ns=2 * MS, scope=1, src_kind="pageable", dst_kind="device"),
        rec("memcpy_event", new, kind="HtoD", bytes=16 * MIB, device=0, stream=7, corr=92, start_ns=T0 + 30 * MS,
            dur_ns=4 * MS, scope=0, src_kind="pinned", dst_kind="device"),
        rec("memset_event", new, bytes=1 * MIB, device=0, stream=7, corr=95, start_ns=T0 + 50 * MS,
            dur_ns=MS // 10, scope=0, value=0),
        kernel_def(new, 1, MATMUL, "matmul_row_per_thread(float const*, float const*, float*, int, int, int)",
                   "(2,1,1)", "(256,1,1)", 40, 0, (1.0, 1.0, 1.0, 1.0, 1.0), "warps", 8, 0.0019),
        kernel_def(new, 2, REDUCE, "block_reduce_naive(float const*, float*, int)", "(16384,1,1)", "(256,1,1)",
                   16, 16384, (0.833333, 1.0, 0.833333, 1.0, 1.0), "shared_mem", 5, 24.8),
        *chain[:3],
        kernel_def(new, 3, MATMUL, "matmul_row_per_thread(float const*, float const*, float*, int, int, int)",
                   "(4,1,1)", "(256,1,1)", 40, 0, (1.0, 1.0, 1.0, 1.0, 1.0), "warps", 8, 0.0038),
    ]
    device += chain[3:]
    device += [
        rec("memcpy_event", new, kind="DtoH", bytes=16 * MIB, device=0, stream=7, corr=130,
            start_ns=T0 + 1500 * MS, dur_ns=4 * MS, scope=0, src_kind="device", dst_kind="pageable"),
        rec("sass_metric", new, func=MATMUL, pc=16, launches=3, inst_executed=1000, thread_inst_executed=32000,
            sectors_global=0, sectors_global_ideal=0, sass="IMAD R1, R2, R3, R4"),
        rec("sass_metric", new, func=MATMUL, pc=672, launches=3, inst_executed=2000, thread_inst_executed=64000,
            sectors_global=69468, sectors_global_ideal=10518, sass="LDG.E.CONSTANT R20, desc[UR12][R18.64]",
            source="matmul.cu:12"),
        rec("sass_metric", new, func=MATMUL, pc=832, launches=3, inst_executed=3000, thread_inst_executed=48000,
            sectors_global=0, sectors_global_ideal=0, sass="FFMA R35, R20, R21, R37"),
        rec("sass_metric", new, func=REDUCE, pc=16, launches=2, inst_executed=500, thread_inst_executed=16000,
            sectors_global=100, sectors_global_ideal=100),
        rec("pc_sample", new, func=MATMUL, pc=672, stall="long_scoreboard", count=600, sass="LDG.E.CONSTANT"),
        rec("pc_sample", new, func=MATMUL, pc=672, stall="wait", count=300),
        rec("pc_sample", new, func=MATMUL, pc=832, stall="selected", count=100),
        rec("pc_sample", new, func=REDUCE, pc=16, stall="barrier", count=50, patched=True),
        rec("benchmark", new, name="matmul_row_per_thread", shape="M=512", iterations=20, median_ns=9 * MS,
            min_ns=8 * MS, max_ns=11 * MS, mean_ns=9 * MS),
        session_end(new, end, 7, 5, 5),
    ]

    scope = [
        session_start(old, old_id, "old_run", old_t0),
        session_end(old, old_t0 + 500 * MS, 1, 0, 0),
        session_start(new, new_id, "fixture_app", T0),
        rec("scope_path", new, p=1, parent=0, name="train", depth=0),
        rec("scope_begin", new, p=1, name="train", tag="loop", depth=0, tid=1000, id=1, ts_ns=T0 + 5 * MS),
        rec("scope_path", new, p=3, parent=0, name="worker", depth=0),
        rec("scope_begin", new, p=3, name="worker", tag="", depth=0, tid=1001, id=4, ts_ns=T0 + 50 * MS),
        rec("scope_path", new, p=2, parent=1, name="step", depth=1),
        rec("scope_begin", new, p=2, name="step", tag="", depth=1, tid=1000, id=2, ts_ns=T0 + 90 * MS),
        rec("scope_end", new, p=2, tid=1000, id=2, ts_ns=T0 + 150 * MS),
        rec("scope_begin", new, p=2, name="step", tag="", depth=1, tid=1000, id=3, ts_ns=T0 + 160 * MS),
        rec("scope_end", new, p=2, tid=1000, id=3, ts_ns=T0 + 200 * MS),
        rec("scope_end", new, p=3, tid=1001, id=4, ts_ns=T0 + 450 * MS),
        rec("scope_end", new, p=1, tid=1000, id=1, ts_ns=T0 + 1200 * MS),
        rec("scope_begin", new, p=3, name="worker", tag="", depth=0, tid=1001, id=5, ts_ns=T0 + 1900 * MS),
        rec("range_counters", new, range="train/step", p=2,
            metrics={"gpu__time_duration.sum": 25000000, "sm__throughput.avg.pct_of_peak_sustained_elapsed": 42.5}),
        rec("range_counters", new, range="train", p=1,
            metrics={"gpu__time_duration.sum": 25000000, "dram__bytes_read.sum": 1048576}),
        session_end(new, end, 7, 5, 5),
    ]

    util = [10, 50, 90, 100, 0]
    vram = [1 * GIB, 2 * GIB, 3 * GIB, 5 * GIB // 2, 1 * GIB]
    temp = [40, 45, 50, 55, None]
    power = [100000, 300000, 500000, 600000, 120000]
    system = [session_start(old, old_id, "old_run", old_t0), session_end(old, old_t0 + 500 * MS, 1, 0, 0),
              session_start(new, new_id, "fixture_app", T0)]
    for i in range(5):
        fields = dict(gpu=0, ts_ns=T0 + (i + 1) * 100 * MS, util_gpu=util[i], util_mem=util[i] // 2,
                      mem_used_bytes=vram[i], mem_total_bytes=141 * GIB, power_mw=power[i],
                      power_limit_mw=700000, clk_sm=1980 - 10 * i, clk_mem=2619, clk_gfx=1980 - 10 * i)
        if temp[i] is not None:
            fields["temp_c"] = temp[i]
        system.append(rec("system_sample", new, **fields))
        if i < 3:
            system.append(rec("host_sample", new, ts_ns=T0 + (i + 1) * 100 * MS + MS, cpu_pct=10.5 + 10 * i,
                              ram_used_bytes=(8 + i) * GIB, ram_total_bytes=64 * GIB, proc_rss_bytes=(1 + i) * GIB))
    system.append(session_end(new, end, 7, 5, 5))

    write("sample", "device", device)
    write("sample", "scope", scope)
    write("sample", "system", system)


def damaged():
    sid, sid_full = "dada0001", "dada0001-0000-4000-8000-000000000000"
    t0 = 5_000_000_000
    device = [
        session_start(sid, sid_full, "damaged_app", t0, [DEVICE], engine="None"),
        kernel_def(sid, 1, "_Z1kv", "k()", "(1,1,1)", "(32,1,1)", 8, 0, (1, 1, 1, 1, 1), "warps", 32, 0.0),
        rec("kernel_event", sid, k=1, stream=7, scope=0, dur_ns=MS, start_ns=t0 + MS, corr=1),
        "this line is not JSON",
        rec("kernel_event", sid, k=1, stream=7, scope=0, dur_ns=MS, dt_ns=2 * MS, dcorr=1),
        '{"type":"kernel_event","sid":"dada0001","k":1,"str',
    ]
    write("damaged", "device", device)
    write("damaged", "scope", [session_start(sid, sid_full, "damaged_app", t0)])


if __name__ == "__main__":
    sample()
    damaged()
