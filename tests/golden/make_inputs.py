#!/usr/bin/env python3
"""Writes the NDJSON inputs of the report golden cases (tests/golden/<case>/case.{device,scope,system}.log).

The inputs are committed; this script documents how they were made and remakes them after a format change.
Every number is chosen so that the report's figures can be checked by hand (see README.md beside it).
The `garbage` case is written here too, with its deliberately broken lines.
Run: python3 tests/golden/make_inputs.py, then scripts/regen-goldens.sh.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
MIB = 1 << 20
SEC = 1_000_000_000
MS = 1_000_000
US = 1_000


def line(obj):
    return json.dumps(obj, separators=(",", ":")) + "\n"


class Session:
    def __init__(self, case, session_id, app, engine, start_ns, start_unix_s, devices, options=None):
        self.case = case
        self.sid = session_id[:8]
        self.head = dict(session_id=session_id, app=app, pid=4242, host="devbox", version="0.1.0",
                         engine=engine, start_ns=start_ns, start_unix_ns=start_unix_s * SEC,
                         options={"app_name": json.dumps(app), "system_sample_rate_ms": "100", **(options or {})})
        self.start = start_ns
        self.devices = devices
        self.lines = {"device": [], "scope": [], "system": []}
        self.last_kernel = None  # (start_ns, corr) of the previous kernel_event, for the delta encoding
        for ch in self.lines:
            rec = dict(type="session_start", sid=self.sid, schema=1, **self.head)
            if ch == "device":
                rec["devices"] = devices
            self.lines[ch].append(line(rec))

    def add(self, channel, type_, **fields):
        self.lines[channel].append(line(dict(type=type_, sid=self.sid, **fields)))

    def raw(self, channel, text):
        self.lines[channel].append(text)

    def kernel(self, k, start, dur, corr, scope=0, instr=False, stream=7, absolute=False):
        rec = dict(k=k, stream=stream, scope=scope)
        if instr:
            rec["instr"] = True
        rec["dur_ns"] = dur
        if self.last_kernel is None or absolute:
            rec.update(start_ns=start, corr=corr)
        else:
            rec.update(dt_ns=start - self.last_kernel[0], dcorr=corr - self.last_kernel[1])
        self.last_kernel = (start, corr)
        self.add("device", "kernel_event", **rec)

    def end(self, end_ns, kernels, memcpys, scopes, overhead, cpu, buffers, written, dropped=None):
        for ch in self.lines:
            self.add(ch, "session_end", end_ns=end_ns, kernels=kernels, memcpys=memcpys, scopes=scopes,
                     dropped=dropped or {"activity": 0, "launch": 0, "scope": 0}, overhead_ns=overhead,
                     cpu_time_ns=cpu, buffers=buffers, bytes_written=written)

    def write(self):
        d = os.path.join(HERE, self.case)
        os.makedirs(d, exist_ok=True)
        for ch, lines in self.lines.items():
            with open(os.path.join(d, f"case.{ch}.log"), "w") as f:
                f.writelines(lines)


def device(**over):
    d = dict(id=0, name="NVIDIA GeForce RTX 5060 Laptop GPU", uuid="GPU-5d1c2b3a-0000-4000-8000-000000000001",
             cc_major=12, cc_minor=0, sm_count=26, warp_size=32, max_threads_per_sm=1536, max_threads_per_block=1024,
             max_blocks_per_sm=24, regs_per_sm=65536, regs_per_block=65536, smem_per_sm_bytes=102400,
             smem_per_block_bytes=49152, smem_per_block_optin_bytes=101376, smem_reserved_per_block_bytes=1024,
             l2_bytes=32 * MIB, global_mem_bytes=8151 * MIB, mem_bus_bits=128, clock_khz=2790000,
             mem_clock_khz=8001000)
    d.update(over)
    return d


def kdef(s, k, name, demangled, grid, block, regs, static=0, dyn=0, local=0, occ=(1, 1, 1, 1, 1),
         limit="warps", blocks=6, waves=None):
    rec = dict(k=k, name=name, demangled=demangled, device=0, context=1, grid=grid, block=block, num_regs=regs,
               static_shared_bytes=static, dyn_shared_bytes=dyn, local_bytes=local, occupancy=occ[0],
               reg_occupancy=occ[1], smem_occupancy=occ[2], warp_occupancy=occ[3], block_occupancy=occ[4],
               limiting_resource=limit, max_active_blocks=blocks)
    if waves is not None:
        rec["waves"] = waves
    s.add("device", "kernel_def", **rec)


def memcpy(s, kind, nbytes, start, dur, corr, src="pageable", dst="device", scope=0):
    s.add("device", "memcpy_event", kind=kind, bytes=nbytes, device=0, stream=7, corr=corr, start_ns=start,
          dur_ns=dur, scope=scope, src_kind=src, dst_kind=dst)


def numba_matmul():
    t0 = 1_000 * SEC
    s = Session("numba_matmul", "565d3c32-86cc-415d-8642-9c140f856f2b", "matmul_sample", "PcSamplingWithSass",
                t0, 1779426315, [device()])
    s.add("device", "note", ts_ns=t0 + 1 * MS, feature="cupti_activity", status="on",
          reason="kernel, memcpy and memset activity")
    s.add("device", "note", ts_ns=t0 + 1 * MS, feature="nvml", status="on", reason="1 GPU")
    s.add("device", "note", ts_ns=t0 + 2 * MS, feature="pc_sampling", status="on", reason="continuous, period 2^15 cycles")
    s.add("device", "note", ts_ns=t0 + 2 * MS, feature="sass_metrics", status="on", reason="4 metrics per instruction")
    mangled = "_ZN8__main__13matmul_kernelB2v1E5ArrayIfLi2E1A7mutable7alignedE"
    kdef(s, 1, mangled, "__main__::matmul_kernel", "(128,128,1)", "(16,16,1)", 40, waves=16384 / (6 * 26))
    # Three 16 MiB uploads (A, B, C) and one download: 11.68 GB/s and 4.40 GB/s.
    for i, dur in enumerate([1_436_000, 1_437_000, 1_436_000]):
        memcpy(s, "HtoD", 16 * MIB, t0 + 50 * MS + i * 10 * MS, dur, 1 + i)
    # Ten launches inside the scope, back to back with 1 ms gaps: 17.40 s of kernels in a 17.91 s session.
    durs_ms = [1710, 1750, 1730, 1745, 1740, 1780, 1720, 1750, 1735, 1740]
    start = t0 + 300 * MS
    for i, d in enumerate(durs_ms):
        s.kernel(1, start, d * MS, 10 + 2 * i, scope=1, instr=True)
        start += d * MS + 1 * MS
    memcpy(s, "DtoH", 16 * MIB, start + 1 * MS, 3_813_000, 40, src="device", dst="pageable")
    pcs = [  # pc, sass, inst (warp), sectors, ideal
        (0x1A0, "FFMA R9, R20, R21, R9", 20_000_000_000, 0, 0),
        (0x2A0, "LDG.E R20, desc[UR4][R2.64]", 24_934_620_160, 6_713_507_840, 6_713_507_840),
        (0x2C0, "LDG.E R21, desc[UR4][R4.64]", 24_934_620_160, 38_941_491_200, 6_713_507_840),
    ]
    for pc, sass, inst, sectors, ideal in pcs:
        s.add("device", "sass_metric", func=mangled, pc=pc, launches=10, inst_executed=inst,
              thread_inst_executed=32 * inst, sectors_global=sectors, sectors_global_ideal=ideal, sass=sass,
              source="matmul.py:17")
    for pc, stall, n in [(0x2C0, "long_scoreboard", 5200), (0x2C0, "long_scoreboard_not_issued", 1800),
                         (0x1A0, "wait", 900), (0x2A0, "lg_throttle", 1100), (0x1A0, "selected", 600),
                         (0x2A0, "math_pipe_throttle", 400)]:
        s.add("device", "pc_sample", func=mangled, pc=pc, stall=stall, count=n)
    s.add("scope", "scope_path", p=1, parent=0, name="matrix_mul_compute", depth=0)
    s.add("scope", "scope_begin", p=1, name="matrix_mul_compute", tag="math", depth=0, tid=4242, id=1,
          ts_ns=t0 + 250 * MS)
    s.add("scope", "scope_end", p=1, tid=4242, id=1, ts_ns=t0 + 250 * MS + 195_210_000)
    util = [0, 100, 100, 98, 95]
    util_mem = [0, 60, 62, 61, 57]
    temp = [45, 52, 56, 58, 57]
    power = [20000, 74000, 75600, 75000, 74400]
    energy = [500000, 688000, 987200, 1288400, 1587200]  # mJ: the trapezoids of `power` over 4 s steps
    vram = [300, 1105, 1105, 1105, 1100]
    clk = [1500, 2790, 2760, 2700, 2650]
    rx = [1000, 2000, 1000, 1000, 5000]
    throttle = [(1, ["gpu_idle"]), (0, []), (4, ["sw_power_cap"]), (4, ["sw_power_cap"]), (0, [])]
    cpu = [5.0, 29.1, 8.0, 6.0, 4.9]
    ram = [27000, 27593, 27500, 27400, 27300]
    for i in range(5):
        ts = t0 + i * 4 * SEC
        s.add("system", "system_sample", gpu=0, ts_ns=ts, util_gpu=util[i], util_mem=util_mem[i],
              mem_used_bytes=vram[i] * MIB, mem_total_bytes=8151 * MIB, temp_c=temp[i], power_mw=power[i],
              power_limit_mw=80000, energy_mj=energy[i], clk_sm=clk[i], clk_mem=8001, clk_gfx=clk[i],
              pcie_rx_kbps=rx[i], pcie_tx_kbps=500, throttle=throttle[i][0], throttle_reasons=throttle[i][1])
        s.add("system", "host_sample", ts_ns=ts, cpu_pct=cpu[i], ram_used_bytes=ram[i] * MIB,
              ram_total_bytes=32189 * MIB, proc_rss_bytes=(1000 + 50 * i) * MIB)
    s.end(t0 + 17_910 * MS, 10, 4, 1, {"cupti_callbacks": 1_200_000, "writer": 3_400_000}, 25 * MS, 3, 24576)
    s.write()


def coalescing():
    t0 = 5_000 * SEC
    s = Session("coalescing", "9b2f4e10-1c2d-4e5f-8a9b-0c1d2e3f4a5b", "memory_coalescing_demo", "PcSamplingWithSass",
                t0, 1775760000, [device()])
    s.add("device", "note", ts_ns=t0, feature="cupti_activity", status="on", reason="")
    s.add("device", "note", ts_ns=t0, feature="nvml", status="degraded",
          reason="power readings not supported on this GPU")
    s.add("device", "note", ts_ns=t0, feature="pc_sampling", status="on", reason="")
    s.add("device", "note", ts_ns=t0, feature="sass_metrics", status="on", reason="")
    row = "_Z21matmul_row_per_threadPKfS0_Pfiii"
    col = "_Z21matmul_col_per_threadPKfS0_Pfiii"
    args = "(const float*, const float*, float*, int, int, int)"
    kdef(s, 1, row, "matmul_row_per_thread" + args, "(2,1,1)", "(256,1,1)", 32, waves=2 / (6 * 26))
    kdef(s, 2, col, "matmul_col_per_thread" + args, "(2,1,1)", "(256,1,1)", 32, waves=2 / (6 * 26))
    memcpy(s, "HtoD", 524288, t0 + 100 * MS, 50_000, 1, src="pinned")
    memcpy(s, "HtoD", 524288, t0 + 101 * MS, 50_000, 2, src="pinned")
    s.kernel(1, t0 + 300 * MS, 245 * MS, 3, scope=1, instr=True)
    memcpy(s, "DtoH", 1048576, t0 + 560 * MS, 80_000, 4, src="device", dst="pinned")
    s.kernel(2, t0 + 700 * MS, 155 * MS, 5, scope=2, instr=True)
    memcpy(s, "DtoH", 1048576, t0 + 870 * MS, 80_000, 6, src="device", dst="pinned")
    lds = "LDG.E.CONSTANT R20, desc[UR12][R18.64]"
    ldb = "LDG.E.CONSTANT R22, desc[UR12][R16.64]"
    fma = "FFMA R35, R20, R21, R37"
    src = "memory_coalescing_demo.cu:"
    for func, pcs in [(row, [(0x2A0, lds, 4_000_000, 67_108_864, 8_159_232, 12),
                             (0x2C0, ldb, 4_000_000, 2_359_296, 2_359_296, 12),
                             (0x340, fma, 4_042_560, 0, 0, 12)]),
                      (col, [(0x2A0, lds, 4_000_000, 8_159_232, 8_159_232, 24),
                             (0x2C0, ldb, 3_000_000, 2_359_296, 2_359_296, 24),
                             (0x340, fma, 3_428_736, 0, 0, 24)])]:
        for pc, sass, inst, sectors, ideal, ln in pcs:
            s.add("device", "sass_metric", func=func, pc=pc, launches=1, inst_executed=inst,
                  thread_inst_executed=32 * inst, sectors_global=sectors, sectors_global_ideal=ideal, sass=sass,
                  source=src + str(ln))
    samples = [(0x2A0, "wait", 2300), (0x2A0, "wait_not_issued", 2150), (0x2A0, "long_scoreboard", 800),
               (0x2A0, "long_scoreboard_not_issued", 700), (0x2C0, "wait", 2292), (0x2C0, "wait_not_issued", 2148),
               (0x2C0, "long_scoreboard", 641), (0x2C0, "long_scoreboard_not_issued", 676),
               (0x340, "branch_resolving", 459), (0x340, "selected", 351), (0x340, "no_instructions", 300),
               (0x340, "math_pipe_throttle", 251), (0x340, "dispatch_stall", 200)]
    for pc, stall, n in samples:
        sass = {0x2A0: lds, 0x2C0: ldb, 0x340: fma}[pc]
        # Each kernel runs once: PcSamplingWithSass samples it on the launch SASS metrics patch too.
        s.add("device", "pc_sample", func=row, pc=pc, stall=stall, count=n, sass=sass, source=src + "12",
              patched=True)
    s.add("scope", "scope_path", p=1, parent=0, name="row-per-thread", depth=0)
    s.add("scope", "scope_path", p=2, parent=0, name="col-per-thread", depth=0)
    s.add("scope", "scope_begin", p=1, name="row-per-thread", tag="", depth=0, tid=77, id=1, ts_ns=t0 + 290 * MS)
    s.add("scope", "scope_end", p=1, tid=77, id=1, ts_ns=t0 + 560 * MS)
    s.add("scope", "scope_begin", p=2, name="col-per-thread", tag="", depth=0, tid=77, id=2, ts_ns=t0 + 690 * MS)
    s.add("scope", "scope_end", p=2, tid=77, id=2, ts_ns=t0 + 860 * MS)
    for i, (u, t, c) in enumerate([(0, 41, 1200), (100, 47, 2805)]):
        s.add("system", "system_sample", gpu=0, ts_ns=t0 + i * 600 * MS, util_gpu=u, temp_c=t, clk_sm=c,
              mem_used_bytes=(250 + 10 * i) * MIB, mem_total_bytes=8151 * MIB)
    s.end(t0 + 1200 * MS, 2, 4, 2, {"cupti_callbacks": 300_000, "writer": 900_000}, 8 * MS, 1, 9000)
    s.write()


def occupancy():
    t0 = 20_000 * SEC
    ampere = device(name="NVIDIA GeForce RTX 3090", cc_major=8, cc_minor=6, sm_count=82, max_blocks_per_sm=16,
                    smem_per_sm_bytes=102400, smem_per_block_optin_bytes=101376, l2_bytes=6 * MIB,
                    global_mem_bytes=24576 * MIB, mem_bus_bits=384)
    s = Session("occupancy", "0cc0cc00-aaaa-4bbb-8ccc-dddddddddddd", "occupancy_demo", "None", t0, 1772413143,
                [ampere])
    s.add("device", "note", ts_ns=t0, feature="cupti_activity", status="on", reason="")
    s.add("device", "note", ts_ns=t0, feature="nvml", status="on", reason="")
    args = "(const float*, float*, int)"
    kdef(s, 1, "_Z10fill_inputPfi", "fill_input(float*, int)", "(16384,1,1)", "(256,1,1)", 8,
         waves=16384 / (6 * 82))
    # 16 KB of static shared memory (+1 KB reserved) per block: 5 blocks of 6 fit, 0.833333.
    kdef(s, 2, "_Z18block_reduce_naivePKfPfi", "block_reduce_naive" + args, "(16384,1,1)", "(256,1,1)", 16,
         static=16384, occ=(0.833333, 1, 0.833333, 1, 1), limit="shared_mem", blocks=5, waves=16384 / (5 * 82))
    kdef(s, 3, "_Z22block_reduce_optimizedPKfPfi", "block_reduce_optimized" + args, "(16384,1,1)", "(256,1,1)", 16,
         dyn=1024, waves=16384 / (6 * 82))
    memcpy(s, "HtoD", 16 * MIB, t0 + 200 * US, 1_200_000, 1, src="pinned")
    s.add("device", "memset_event", bytes=65536, device=0, stream=7, corr=2, start_ns=t0 + 1_500 * US,
          dur_ns=2_000, scope=1, value=0)
    start = t0 + 1 * MS
    s.kernel(1, start, 50 * US, 3, scope=1)
    start += 60 * US
    corr = 4
    for k, durs, scope in [(2, [200 * US, 204 * US] * 10, 2), (3, [170 * US, 172 * US] * 10, 3)]:
        for d in durs:
            s.kernel(k, start, d, corr, scope=scope)
            start += d + 10 * US
            corr += 1
    memcpy(s, "DtoH", 65536, start + 10 * US, 10_000, corr, src="device", dst="pinned")
    # 16 MiB read in 168 us = 99.86 GB/s.
    s.add("device", "benchmark", name="block_reduce_optimized", shape="n=4194304", dtype="fp32", device=0,
          ts_ns=start + 20 * US, method="events", reps=100, warmup_reps=10, ops_per_rep=1, median_ns=168_000,
          min_ns=166_000, p10_ns=167_000, p90_ns=172_000, max_ns=181_000, mean_ns=169_500, bytes=16_777_216,
          gbps=99.86)
    s.add("scope", "scope_path", p=1, parent=0, name="reduce", depth=0)
    s.add("scope", "scope_path", p=2, parent=1, name="naive", depth=1)
    s.add("scope", "scope_path", p=3, parent=1, name="optimized", depth=1)
    s.add("scope", "scope_path", p=4, parent=0, name="teardown", depth=0)
    # reduce [0.9, 9.5] ms holds naive [0.95, 5.0] and optimized [5.1, 9.0]; teardown never ends.
    s.add("scope", "scope_begin", p=1, name="reduce", tag="", depth=0, tid=9, id=1, ts_ns=t0 + 900 * US)
    s.add("scope", "scope_begin", p=2, name="naive", tag="", depth=1, tid=9, id=2, ts_ns=t0 + 950 * US)
    s.add("scope", "scope_end", p=2, tid=9, id=2, ts_ns=t0 + 5_000 * US)
    s.add("scope", "scope_begin", p=3, name="optimized", tag="", depth=1, tid=9, id=3, ts_ns=t0 + 5_100 * US)
    s.add("scope", "scope_end", p=3, tid=9, id=3, ts_ns=t0 + 9_000 * US)
    s.add("scope", "scope_end", p=1, tid=9, id=1, ts_ns=t0 + 9_500 * US)
    s.add("scope", "scope_begin", p=4, name="teardown", tag="", depth=0, tid=9, id=4, ts_ns=t0 + 9_800 * US)
    s.add("system", "system_sample", gpu=0, ts_ns=t0 + 5 * MS, util_gpu=75, temp_c=61, power_mw=310000,
          clk_sm=1695, clk_mem=9751, mem_used_bytes=600 * MIB, mem_total_bytes=24576 * MIB)
    s.add("system", "host_sample", ts_ns=t0 + 5 * MS, cpu_pct=12.5, proc_cpu_pct=99.0,
          ram_used_bytes=8000 * MIB, ram_total_bytes=64000 * MIB)
    # session_end counts memsets among the copies (the session sink sees both as copies): 2 + 1.
    s.end(t0 + 10 * MS, 41, 3, 4, {"cupti_callbacks": 80_000, "writer": 120_000}, 1 * MS, 1, 12000)
    s.write()


def launch_bound():
    t0 = 30_000 * SEC
    h200 = device(name="NVIDIA H200", cc_major=9, cc_minor=0, sm_count=132, max_threads_per_sm=2048,
                  max_blocks_per_sm=32, smem_per_sm_bytes=233472, smem_per_block_optin_bytes=232448,
                  l2_bytes=60 * MIB, global_mem_bytes=143771 * MIB, mem_bus_bits=6144)
    s = Session("launch_bound", "1a2b3c4d-0000-4000-8000-00000000cafe", "tiny_kernels", "None", t0, 1779000000,
                [h200])
    s.add("device", "note", ts_ns=t0, feature="cupti_activity", status="on", reason="")
    s.add("device", "note", ts_ns=t0, feature="nvml", status="off", reason="libnvidia-ml.so.1 not found")
    # 32-thread blocks: the 32-blocks-per-SM cap allows 32 of 64 warps, 50% occupancy.
    kdef(s, 1, "_Z7add_onePfi", "add_one(float*, int)", "(1,1,1)", "(32,1,1)", 10, occ=(0.5, 1, 1, 1, 0.5),
         limit="blocks", blocks=32, waves=1 / (32 * 132))
    start = t0 + 1 * MS
    durs = [1800, 2000, 2200, 2000]
    for i in range(500):
        d = durs[i % 4]
        s.kernel(1, start, d, 100 + i)
        start += 20 * US
    s.end(t0 + 12 * MS, 500, 0, 0, {"cupti_callbacks": 400_000, "writer": 700_000}, 2 * MS, 2, 40000)
    s.write()


def empty():
    t0 = 40_000 * SEC
    s = Session("empty", "eeeeeeee-0000-4000-8000-000000000000", "no_gpu_here", "None", t0, 1779000100, [])
    s.add("device", "note", ts_ns=t0, feature="cupti_activity", status="off",
          reason="CUPTI_ERROR_UNKNOWN: no GPU or driver on this machine")
    s.add("device", "note", ts_ns=t0, feature="nvml", status="off", reason="libnvidia-ml.so.1 not found")
    s.end(t0 + 250 * MS, 0, 0, 0, {"writer": 50_000}, 1 * MS, 0, 1200)
    s.write()


def garbage():
    """A short session with broken lines among good ones; the report must still come out, with warnings."""
    t0 = 50_000 * SEC
    s = Session("garbage", "badc0ffe-0000-4000-8000-000000000000", "crashy", "None", t0, 1779000200,
                [device(), device(id=1, uuid="GPU-5d1c2b3a-0000-4000-8000-000000000002")])
    kdef(s, 1, "_Z4stepPfi", "step(float*, int)", "(64,1,1)", "(128,1,1)", 24, waves=64 / (12 * 26), blocks=12)
    s.raw("device", "this is not json at all\n")
    s.kernel(1, t0 + 1 * MS, 100 * US, 1)
    s.kernel(1, t0 + 2 * MS, 100 * US, 2)
    s.raw("device", '{"sid":"badc0ffe","k":1,"dur_ns":5}\n')  # no type
    s.raw("device", '{"type":"kernel_event","sid":"badc0ffe","k":1,"stream":7,"scope":0,"dur_ns":"fast","dt_ns'
                    '":1000000,"dcorr":1}\n')  # wrong type of field: the chain of differences breaks here
    s.kernel(1, t0 + 4 * MS, 100 * US, 4)  # a difference after the break: skipped with a warning
    s.kernel(1, t0 + 5 * MS, 100 * US, 5, absolute=True)  # resynchronises
    s.kernel(1, t0 + 6 * MS, 100 * US, 6)
    s.raw("device", '{"type":"a_future_record","sid":"badc0ffe","x":1}\n')  # unknown type: skipped silently
    memcpy(s, "HtoD", 4096, t0 + 7 * MS, 1_000, 7, src="pinned")
    for i in range(3):
        for gpu in (0, 1):
            s.add("system", "system_sample", gpu=gpu, ts_ns=t0 + i * MS, util_gpu=10 * (i + 1) + gpu,
                  temp_c=40 + i + gpu, power_mw=50000 + 10000 * i)
    s.raw("system", '{"type":"system_sample","sid":"badc0ffe","gpu":0,"ts_ns":')  # cut off by a crash
    s.write()  # no session_end: the program died


# ---- incidents (docs/incidents.md): one session per kind ---------------------------------------------------

def h100():
    return device(name="NVIDIA H100 80GB HBM3", cc_major=9, cc_minor=0, sm_count=132, max_threads_per_sm=2048,
                  max_blocks_per_sm=32, smem_per_sm_bytes=233472, smem_per_block_optin_bytes=232448,
                  l2_bytes=50 * MIB, global_mem_bytes=81559 * MIB, mem_bus_bits=5120)


GIB = 1 << 30


def launch(corr, name, launch_ns, stream=7, handle=0x5555a000, context=0x7f00c000, tid=4242, scope=0, stack=0,
           kind="kernel", suspect=False):
    rec = dict(corr=corr, kind=kind, name=name, stream=stream, stream_handle=handle, context=context, tid=tid)
    if scope:
        rec["scope"] = scope
    if stack:
        rec["stack"] = stack
    rec["launch_ns"] = launch_ns
    if suspect:
        rec["suspect"] = True
    return rec


def gpu_state(used_mib, util, temp, clk, power_mw, age_ms):
    return dict(gpu_mem_used_bytes=used_mib * MIB, gpu_mem_total_bytes=81559 * MIB, gpu_util=util, gpu_temp_c=temp,
                gpu_clk_sm=clk, gpu_power_mw=power_mw, gpu_sample_age_ns=age_ms * MS)


def incident_cuda_error():
    """An out-of-bounds write in one of three kernels launched after the last good synchronize: CUPTI then delivers
    every kernel of the faulted context without times (76 untimed, none in the kernel tables)."""
    t0 = 60_000 * SEC
    s = Session("incident_cuda_error", "c0da0700-0000-4000-8000-000000000001", "oob_write", "None", t0, 1779100000,
                [h100()])
    s.add("device", "note", ts_ns=t0, feature="cupti_activity", status="on", reason="")
    s.add("device", "stack", id=1, frames=["scale_rows(float*, int) at oob.cu:31", "main at oob.cu:88",
                                            "__libc_start_main", "_start"])
    s.add("scope", "scope_path", p=1, parent=0, name="train", depth=0)
    s.add("scope", "scope_path", p=2, parent=1, name="step", depth=1)
    s.add("scope", "scope_begin", p=1, name="train", tag="", depth=0, tid=4242, id=1, ts_ns=t0 + 100 * MS)
    s.add("scope", "scope_begin", p=2, name="step", tag="", depth=1, tid=4242, id=2, ts_ns=t0 + 2_300 * MS)
    ts = t0 + 2_350 * MS
    s.add("device", "incident", ts_ns=ts, kind="cuda_error",
          reason="cudaDeviceSynchronize returned cudaErrorIllegalAddress (700): the context is unusable from "
                 "here on",
          api="cudaDeviceSynchronize", error_code=700, error_name="cudaErrorIllegalAddress", tid=4242, scope=2,
          attribution="one of 3 launches on this context made since the last successful synchronize (the first "
                      "of each stream ran first; later ones on its stream never ran)",
          in_flight_count=4,
          in_flight=[launch(301, "_Z10scale_rowsPfi", ts - 12 * MS, scope=2, stack=1, suspect=True),
                     launch(302, "_Z8add_biasPfPKfi", ts - 11 * MS, scope=2, suspect=True),
                     launch(303, "_Z6reducePKfPfi", ts - 10 * MS, scope=2, suspect=True),
                     launch(304, "_Z4idlev", ts - 9 * MS, stream=21, handle=0x5555b000, context=0x7f00d000,
                            tid=4243)],
          blocked=[], last_kernels=[], **gpu_state(2100, 100, 64, 1980, 310_000, 40))
    s.add("scope", "scope_end", p=2, tid=4242, id=2, ts_ns=ts + 1 * MS)
    s.add("scope", "scope_end", p=1, tid=4242, id=1, ts_ns=ts + 2 * MS)
    s.add("device", "note", ts_ns=ts + 5 * MS, feature="cupti_activity", status="degraded",
          reason="76 kernel records came from CUPTI without timestamps (start = end = 0): left out of the kernel "
                 "list, counted as dropped (untimed_kernels); after a fatal CUDA error these are the faulted "
                 "context's kernels, listed in the incident")
    s.end(ts + 10 * MS, 0, 0, 2, {"cupti_callbacks": 90_000, "writer": 400_000}, 3 * MS, 2, 18000,
          dropped={"activity": 0, "launch": 0, "scope": 0, "untimed_kernels": 76})
    s.write()


def incident_hang():
    """A kernel spins on a flag the host never sets; the host waits in cudaStreamSynchronize; the 60 s watchdog
    records the hang; the kernel gives up by itself later and the program ends normally. PC sampling was on."""
    t0 = 61_000 * SEC
    s = Session("incident_hang", "4a4a0000-0000-4000-8000-000000000002", "spin_wait", "PcSampling", t0, 1779100100,
                [h100()])
    s.add("device", "note", ts_ns=t0, feature="cupti_activity", status="on", reason="")
    s.add("device", "note", ts_ns=t0, feature="pc_sampling", status="on", reason="continuous, period 2^12 cycles")
    kdef(s, 1, "_Z4initPii", "init(int*, int)", "(1,1,1)", "(32,1,1)", 8)
    kdef(s, 2, "_Z9wait_flagPVii", "wait_flag(int volatile*, int)", "(1,1,1)", "(32,1,1)", 12)
    s.kernel(1, t0 + 1_000 * MS, 5 * US, 10, stream=13)
    s.kernel(2, t0 + 1_010 * MS, 84_000 * MS, 11, stream=13, instr=True)  # gave up after 84 s
    for pc, stall, n, line in [(0x90, "branch_resolving", 1400, 17), (0x80, "wait", 450, 16),
                               (0xA0, "long_scoreboard", 150, 16)]:
        s.add("device", "pc_sample", func="_Z9wait_flagPVii", pc=pc, stall=stall, count=n, source=f"spin.cu:{line}")
    s.add("scope", "scope_path", p=1, parent=0, name="wait_for_device", depth=0)
    s.add("scope", "scope_begin", p=1, name="wait_for_device", tag="", depth=0, tid=5151, id=1, ts_ns=t0 + 1_020 * MS)
    ts = t0 + 61_100 * MS
    s.add("device", "incident", ts_ns=ts, kind="hang",
          reason="a host thread has waited in cudaStreamSynchronize for more than 60 s, and launches that old are "
                 "unfinished",
          api="cudaStreamSynchronize", tid=5151,
          attribution="the oldest unfinished launch of each stream (a stream runs in order: it is running or "
                      "waiting, the others queue behind it)",
          in_flight_count=2,
          in_flight=[launch(11, "_Z9wait_flagPVii", t0 + 1_010 * MS, stream=13, tid=5151, suspect=True),
                     launch(12, "cudaMemcpyAsync", t0 + 1_015 * MS, stream=13, tid=5151, kind="copy")],
          blocked=[dict(tid=5151, api="cudaStreamSynchronize", since_ns=t0 + 1_020 * MS, stream_handle=0x5555a000,
                        scope=1)],
          last_kernels=[dict(stream=13, k=1, corr=10, end_ns=t0 + 1_000 * MS + 5 * US)],
          **gpu_state(900, 100, 71, 1980, 120_000, 300))
    s.add("scope", "scope_end", p=1, tid=5151, id=1, ts_ns=t0 + 85_020 * MS)
    s.end(t0 + 85_100 * MS, 2, 0, 1, {"cupti_callbacks": 20_000, "writer": 600_000}, 4 * MS, 3, 21000)
    s.write()


def incident_oom():
    """A training loop asks for 40 GiB with 2 GiB free; memory events show what held the rest. The program catches
    the error, frees its activations and ends normally."""
    t0 = 62_000 * SEC
    s = Session("incident_oom", "00a00000-0000-4000-8000-000000000003", "grow_until_oom", "None", t0, 1779100200,
                [h100()], options={"enable_memory_events": "true"})
    s.add("device", "note", ts_ns=t0, feature="cupti_activity", status="on", reason="")
    s.add("scope", "scope_path", p=1, parent=0, name="load_model", depth=0)
    s.add("scope", "scope_path", p=2, parent=0, name="train", depth=0)
    s.add("scope", "scope_path", p=3, parent=2, name="forward", depth=1)

    def mem(ts, op, addr, nbytes, scope, corr):
        s.add("device", "memory_event", op=op, kind="device", bytes=nbytes, address=addr, device=0, corr=corr,
              ts_ns=ts, scope=scope)

    # Weights: 4 x 4 GiB; activations: 6 x 8 GiB, one released before the failing request; a 1 GiB workspace
    # outside any scope; the 2 GiB scratch allocated after the failure is not held at it.
    corr = 1
    for i in range(4):
        mem(t0 + (10 + i) * MS, "alloc", 0x7000_0000_0000 + i * 4 * GIB, 4 * GIB, 1, corr)
        corr += 1
    mem(t0 + 20 * MS, "alloc", 0x7100_0000_0000, 1 * GIB, 0, corr)
    corr += 1
    for i in range(6):
        mem(t0 + (100 + 10 * i) * MS, "alloc", 0x7200_0000_0000 + i * 8 * GIB, 8 * GIB, 3, corr)
        corr += 1
    mem(t0 + 170 * MS, "free", 0x7200_0000_0000 + 5 * 8 * GIB, 8 * GIB, 3, corr)
    corr += 1
    ts = t0 + 180 * MS
    s.add("device", "incident", ts_ns=ts, kind="out_of_memory",
          reason="cudaMalloc of 40 GiB failed: out of memory (2 GiB free of 79.6 GiB)",
          api="cudaMalloc", error_code=2, error_name="cudaErrorMemoryAllocation", tid=6161, scope=3,
          requested_bytes=40 * GIB, free_bytes=2 * GIB, total_bytes=81559 * MIB, in_flight_count=0, in_flight=[],
          blocked=[], last_kernels=[], **gpu_state(79_000, 35, 58, 1755, 180_000, 60))
    for i in range(5):
        mem(t0 + (200 + i) * MS, "free", 0x7200_0000_0000 + i * 8 * GIB, 8 * GIB, 3, corr)
        corr += 1
    mem(t0 + 210 * MS, "alloc", 0x7300_0000_0000, 2 * GIB, 3, corr)
    s.add("scope", "scope_begin", p=1, name="load_model", tag="", depth=0, tid=6161, id=1, ts_ns=t0 + 5 * MS)
    s.add("scope", "scope_end", p=1, tid=6161, id=1, ts_ns=t0 + 30 * MS)
    s.add("scope", "scope_begin", p=2, name="train", tag="", depth=0, tid=6161, id=2, ts_ns=t0 + 90 * MS)
    s.add("scope", "scope_begin", p=3, name="forward", tag="", depth=1, tid=6161, id=3, ts_ns=t0 + 95 * MS)
    s.add("scope", "scope_end", p=3, tid=6161, id=3, ts_ns=t0 + 190 * MS)
    s.add("scope", "scope_end", p=2, tid=6161, id=2, ts_ns=t0 + 220 * MS)
    s.end(t0 + 250 * MS, 0, 0, 3, {"cupti_callbacks": 10_000, "writer": 200_000}, 1 * MS, 1, 9000)
    s.write()


def incident_signal():
    """A host SIGSEGV after launching kernels: the incident is written and flushed, then the program dies by the
    signal; there is no session_end."""
    t0 = 63_000 * SEC
    s = Session("incident_signal", "5e6f0000-0000-4000-8000-000000000004", "segv_after_launch", "None", t0,
                1779100300, [h100()])
    s.add("device", "note", ts_ns=t0, feature="cupti_activity", status="on", reason="")
    kdef(s, 1, "_Z4stepPfi", "step(float*, int)", "(528,1,1)", "(256,1,1)", 24)
    for i in range(3):
        s.kernel(1, t0 + (10 + i) * MS, 200 * US, 1 + i)
    s.add("scope", "scope_path", p=1, parent=0, name="postprocess", depth=0)
    s.add("scope", "scope_begin", p=1, name="postprocess", tag="", depth=0, tid=7171, id=1, ts_ns=t0 + 14 * MS)
    ts = t0 + 15 * MS
    s.add("device", "incident", ts_ns=ts, kind="signal", reason="SIGSEGV at address 0x10 in thread 7171",
          error_code=11, error_name="SIGSEGV", tid=7171, scope=1, in_flight_count=2,
          in_flight=[launch(4, "_Z4stepPfi", ts - 1 * MS, tid=7171), launch(5, "_Z4stepPfi", ts - 1 * MS, tid=7171)],
          blocked=[], last_kernels=[dict(stream=7, k=1, corr=3, end_ns=t0 + 12 * MS + 200 * US)],
          **gpu_state(1200, 12, 45, 1980, 95_000, 15))
    s.write()  # no session_end: the program died by the signal


def incident_terminate():
    """An uncaught exception: std::terminate records the incident, flushes, and the log ends with session_end."""
    t0 = 64_000 * SEC
    s = Session("incident_terminate", "7e770000-0000-4000-8000-000000000005", "uncaught", "None", t0, 1779100400,
                [h100()])
    s.add("device", "note", ts_ns=t0, feature="cupti_activity", status="on", reason="")
    ts = t0 + 40 * MS
    s.add("device", "incident", ts_ns=ts, kind="terminate",
          reason="std::terminate: vector::_M_range_check: __n (which is 9) >= this->size() (which is 8)",
          api="std::terminate", tid=8181, in_flight_count=0, in_flight=[], blocked=[], last_kernels=[])
    s.end(ts + 1 * MS, 0, 0, 0, {"writer": 50_000}, 1 * MS, 1, 3000)
    s.write()


def incident_dump():
    """`gpufl dump PID --reason ...` while a thread waits on a copy: informational, the program runs on."""
    t0 = 65_000 * SEC
    s = Session("incident_dump", "d0d00000-0000-4000-8000-000000000006", "long_job", "None", t0, 1779100500,
                [h100()])
    s.add("device", "note", ts_ns=t0, feature="cupti_activity", status="on", reason="")
    kdef(s, 1, "_Z4stepPfi", "step(float*, int)", "(528,1,1)", "(256,1,1)", 24)
    s.kernel(1, t0 + 10 * MS, 500 * US, 1)
    ts = t0 + 3_000 * MS
    s.add("device", "incident", ts_ns=ts, kind="dump", reason="checking on the nightly run", in_flight_count=1,
          in_flight=[launch(2, "_Z4stepPfi", ts - 2 * MS, tid=9191)],
          blocked=[dict(tid=9191, api="cudaMemcpy", since_ns=ts - 1 * MS)],
          last_kernels=[dict(stream=7, k=1, corr=1, end_ns=t0 + 10_500 * US)],
          **gpu_state(5000, 99, 60, 1980, 400_000, 250))
    s.kernel(1, ts - 2 * MS + 100 * US, 2_500 * US, 2)
    s.end(t0 + 4_000 * MS, 2, 0, 0, {"writer": 90_000}, 1 * MS, 1, 6000)
    s.write()


if __name__ == "__main__":
    numba_matmul()
    coalescing()
    occupancy()
    launch_bound()
    empty()
    garbage()
    incident_cuda_error()
    incident_hang()
    incident_oom()
    incident_signal()
    incident_terminate()
    incident_dump()
