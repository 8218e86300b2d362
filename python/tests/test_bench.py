"""gpufl.bench and gpufl.bench.sweep without a GPU: a fake backend stands in for the CUDA events (it returns
scripted GPU times) and a fake NVML for the clocks; the statistics and warnings come from the C++ core."""
import json
import warnings

import pytest

import gpufl
from gpufl import _bench


class FakeBackend:
    """Each call of the timed function "takes" call_ns (or the next scripted time) on the GPU."""

    def __init__(self, call_ns=50e3, script=(), overhead_ns=4000.0, name="NVIDIA H200", sm_count=132):
        self.call_ns = call_ns
        self.script = list(script)
        self.overhead_ns = overhead_ns
        self.name = name
        self.sms = sm_count
        self.calls = self.flushes = self.replays = 0
        self.captured = 0

    def timed(self, fn):
        fn()
        self.calls += 1
        return self.script.pop(0) if self.script else self.call_ns

    def capture(self, fn, calls):
        for _ in range(calls):
            fn()
        self.captured = calls

    def replay(self):
        self.replays += 1
        return self.call_ns * self.captured + 3000.0

    def flush_l2(self):
        self.flushes += 1

    def launch_overhead_ns(self):
        return self.overhead_ns

    def device_name(self):
        return self.name

    def device_index(self):
        return 0

    def sm_count(self):
        return self.sms


class FakeNvml:
    def __init__(self, clocks=(1980,), limit=1980, reasons=(), others=()):
        self.clocks = list(clocks)
        self.lim, self.rs, self.os = limit, list(reasons), list(others)

    def clock(self):
        return self.clocks.pop(0) if len(self.clocks) > 1 else self.clocks[0]

    def limit(self):
        return self.lim

    def reasons(self):
        return self.rs

    def others(self):
        return self.os


def run(fn=lambda: None, backend=None, nvml=None, **kw):
    kw.setdefault("record", False)
    return gpufl.bench(fn, backend=backend or FakeBackend(), nvml=nvml or FakeNvml(), **kw)


def test_time_based_warmup_then_repetitions_filling_the_target():
    dev = FakeBackend(call_ns=50e3)
    calls = []
    r = run(lambda: calls.append(1), backend=dev, warmup=0.001, target_ms=2.5, flops=2 * 1024**3,
            name="gemm", shape="1024x1024x1024", dtype="torch.bfloat16")
    assert r.warmup_reps == 20  # 1 ms of 50 us calls
    assert r.reps == 50  # 2.5 ms of them
    assert len(calls) == 70
    assert r.median_ms == pytest.approx(0.05)
    assert r.tflops == pytest.approx(2 * 1024**3 / 50e3 / 1e3)
    assert r.dtype == "bfloat16"
    assert r.peak_tflops == pytest.approx(989.4)  # the H200's data-sheet bf16 peak, from the C++ table
    assert r.clk_sm_min_mhz == 1980 and r.clk_sm_limit_mhz == 1980
    assert r.warnings == []
    assert "1024x1024x1024" in str(r) and "TFLOP/s" in str(r)


def test_warmup_as_a_count_and_slow_first_calls_stay_out_of_the_timing():
    dev = FakeBackend(call_ns=50e3, script=[900e3, 400e3])  # lazy init, autotuning
    r = run(backend=dev, warmup=2, reps=15)
    assert r.warmup_reps == 2 and r.reps == 15
    assert r.max_ms == pytest.approx(0.05)


def test_tiny_operations_warn_and_graph_replay_amortises_the_launch():
    dev = FakeBackend(call_ns=2000.0, overhead_ns=4200.0)
    r = run(backend=dev, warmup=3, reps=20)
    assert any("shorter than the launch overhead (4.20 us)" in w for w in r.warnings), r.warnings
    g = run(backend=dev, warmup=3, reps=20, graph=True)
    assert dev.captured == 100 and g.ops_per_rep == 100 and g.method == "graph"
    assert g.median_ms == pytest.approx((2000.0 * 100 + 3000) / 100 / 1e6)
    assert g.warnings == []


def test_flush_l2_before_every_repetition():
    dev = FakeBackend()
    r = run(backend=dev, warmup=1, reps=12, flush_l2=True)
    assert dev.flushes == 12 and r.flush_l2


def test_warnings_carry_their_numbers():
    times = [1000.0 * (1 + i % 2) for i in range(20)]  # 1 us and 2 us alternating: p90/p10 = 2
    dev = FakeBackend(script=[50e3, 50e3, 50e3] + times)
    nv = FakeNvml(clocks=[1980, 1500, 1980], reasons=["sw_power_cap"], others=["pid 4242 (python3)"])
    r = run(backend=dev, nvml=nv, warmup=3, reps=20)
    text = "\n".join(r.warnings)
    assert "spread p90/p10 = 2.00" in text
    assert "SM clock 1500..1980 MHz (max 1980 MHz)" in text and "sw_power_cap" in text
    assert "GPU shared with 1 other process: pid 4242 (python3)" in text


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="reps must be a positive int"):
        run(reps=0)
    with pytest.raises(ValueError, match="warmup must be"):
        run(warmup=-1)


def test_result_is_a_benchmark_record_in_the_session_and_the_report(tmp_path):
    prefix = str(tmp_path / "b")
    with warnings.catch_warnings():  # no GPU here: profiling off is expected
        warnings.simplefilter("ignore", gpufl.GpuFlightWarning)
        gpufl.init(app_name="bench_test", log_path=prefix, system_sample_rate_ms=0)
    try:
        r = gpufl.bench(lambda: None, backend=FakeBackend(), nvml=FakeNvml(), warmup=1, reps=11, flops=1e9,
                        name="axpy", shape="n=1e6", dtype="fp32")
    finally:
        gpufl.shutdown()
    assert r.recorded
    lines = [json.loads(line) for line in open(prefix + ".device.log") if '"benchmark"' in line]
    assert len(lines) == 1
    rec = lines[0]
    assert rec["name"] == "axpy" and rec["shape"] == "n=1e6" and rec["reps"] == 11
    assert rec["median_ns"] == 50000 and rec["peak_tflops"] == 67
    b = gpufl._gpufl.load_session(prefix)["tables"]["benchmarks"]
    assert b["median_ns"].tolist() == [50000.0]
    text = gpufl.report.generate_report(str(tmp_path), log_prefix="b")
    assert "Benchmarks" in text and "axpy [n=1e6] fp32" in text and "of 67.0 peak" in text


def test_without_a_session_nothing_is_recorded():
    assert not run(record=True).recorded


# ---- sweep ----------------------------------------------------------------------------------------------------


class MatmulBackend(FakeBackend):
    """A matmul at a made-up rate per size (TFLOP/s): the best at 4096, within 10% of it from 2048, and 256 faster
    than twice the 5 us launch overhead."""

    RATES = {256: 5.0, 512: 20.0, 1024: 150.0, 2048: 760.0, 4096: 800.0, 8192: 790.0}

    def __init__(self):
        super().__init__(overhead_ns=5000.0)
        self.n = 0

    def timed(self, fn):
        fn()
        return 2 * self.n**3 / (self.RATES[self.n] * 1e3)  # 1 TFLOP/s = 1e3 flop per ns


def test_sweep_table_flattening_bound_line_and_plot(tmp_path):
    dev = MatmulBackend()

    def make(n):
        dev.n = n
        return lambda: None

    sizes = [256, 512, 1024, 2048, 4096, 8192]
    s = gpufl.bench.sweep(make, sizes, name="matmul", dtype="bf16", backend=dev, nvml=FakeNvml(), warmup=1,
                          reps=11, record=False)
    rates = s.rates()
    assert rates == pytest.approx(list(MatmulBackend.RATES.values()))
    assert s.flattening_size == 2048 and s.best_size == 4096
    assert s.peak == pytest.approx(989.4)
    s.blocks = {512: 16, 1024: 64}  # as attach_trace would find them
    line = s.small_sizes_bound()
    assert "launch-bound at 256 (median under 2x the launch overhead of 5.0 us)" in line
    assert "occupancy-bound at 512, 1024 (16 blocks, 64 blocks for 132 SMs)" in line
    table = s.table()
    assert "<- flattens" in table.splitlines()[5] and "2048" in table.splitlines()[5]
    png = tmp_path / "sweep.png"
    s.plot(path=str(png))
    assert png.stat().st_size > 1000


def test_sweep_attach_trace_counts_blocks_of_the_main_kernel_per_size(tmp_path):
    sid = "ab12cd34"
    rows = [
        {"type": "session_start", "sid": sid, "session_id": sid + "-0000", "start_ns": 1, "start_unix_ns": 1},
        {"type": "kernel_def", "sid": sid, "k": 1, "name": "gemm_small", "grid": "(4,2,1)", "block": "(128,1,1)"},
        {"type": "kernel_def", "sid": sid, "k": 2, "name": "fill", "grid": "(1000,1,1)", "block": "(128,1,1)"},
        {"type": "kernel_def", "sid": sid, "k": 3, "name": "gemm_big", "grid": "(64,32,1)", "block": "(128,1,1)"},
        {"type": "kernel_event", "sid": sid, "k": 1, "corr": 1, "start_ns": 100, "dur_ns": 50, "scope": 1},
        {"type": "kernel_event", "sid": sid, "k": 2, "corr": 2, "start_ns": 200, "dur_ns": 5, "scope": 1},
        {"type": "kernel_event", "sid": sid, "k": 3, "corr": 3, "start_ns": 300, "dur_ns": 500, "scope": 2},
    ]
    scope_rows = [rows[0], {"type": "scope_path", "sid": sid, "p": 1, "name": "mm@256"},
                  {"type": "scope_path", "sid": sid, "p": 2, "name": "mm@4096"}]
    (tmp_path / "t.device.log").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "t.scope.log").write_text("".join(json.dumps(r) + "\n" for r in scope_rows))
    s = _bench.SweepResult(name="mm", dtype="", sizes=[256, 4096], results=[], sm_count=132)
    s.attach_trace(str(tmp_path / "t"))
    assert s.blocks == {256: 8, 4096: 2048}


def test_throttle_reason_names_are_the_system_samples():
    assert list(gpufl._gpufl.throttle_reason_names(0x5)) == ["gpu_idle", "sw_power_cap"]
