"""GpuFlightSession on the hand-written fixtures (data/make_fixtures.py gives every figure used here)."""
import io
import json
import math
import pickle

import pytest

pd = pytest.importorskip("pandas")
np = pytest.importorskip("numpy")

from gpufl.analyzer import GpuFlightSession, pretty_stall  # noqa: E402
from conftest import REPO  # noqa: E402

MS = 1_000_000
MIB = 1 << 20
T0 = 10_000_000_000
MATMUL = "_Z21matmul_row_per_threadPKfS0_Pfiii"
REDUCE = "_Z18block_reduce_naivePKfPfi"


def test_session_info(sample):
    info = sample.info
    assert info["app"] == "fixture_app"
    assert info["session_id"] == "5e55b0b0-1111-4222-8333-444455556666"
    assert info["engine"] == "PcSamplingWithSass"
    assert info["start_ns"] == T0 and info["end_ns"] == T0 + 2000 * MS
    assert sample.duration_ns == 2000 * MS
    assert sample.devices[0]["name"] == "NVIDIA H200" and sample.devices[0]["sm_count"] == 132
    assert info["options"]["system_sample_rate_ms"] == 100 and info["options"]["enable_stack_trace"] is True
    assert info["dropped"]["launch"] == 2
    assert [s["app"] for s in sample.sessions] == ["old_run", "fixture_app"]
    assert sample.warnings == []


def test_kernels_table(sample):
    k = sample.kernels
    assert len(k) == 7
    # delta decoding, including a negative dt (the last record starts before the one above it)
    assert (k["start_ns"] - T0).tolist() == [100 * MS, 120 * MS, 140 * MS, 300 * MS, 305 * MS, 1000 * MS, 900 * MS]
    assert k["corr"].tolist() == [100, 102, 104, 110, 111, 120, 121]
    assert (k["duration_ns"] // MS).tolist() == [10, 10, 5, 25, 5, 5, 1]
    assert (k["end_ns"] - k["start_ns"] == k["duration_ns"]).all()
    assert k["start_s"].iloc[0] == pytest.approx(0.1)
    assert k["name"].astype(str).tolist()[:4] == ["matmul_row_per_thread"] * 2 + ["block_reduce_naive",
                                                                                  "matmul_row_per_thread"]
    assert set(k["mangled"].astype(str)) == {MATMUL, REDUCE}
    assert k.loc[0, "demangled"].startswith("matmul_row_per_thread(float const*")
    assert k["grid"].astype(str).tolist()[:4] == ["(2,1,1)", "(2,1,1)", "(16384,1,1)", "(4,1,1)"]
    assert set(k["block"].astype(str)) == {"(256,1,1)"}
    assert k.loc[2, "occupancy"] == pytest.approx(0.833333)
    assert k.loc[2, "limiting_resource"] == "shared_mem" and k.loc[2, "static_shared_bytes"] == 16384
    assert k.loc[0, "num_regs"] == 40 and k.loc[0, "max_active_blocks"] == 8
    assert k["stream"].tolist() == [7, 7, 7, 7, 14, 14, 7]
    assert k["scope"].astype(object).where(k["scope"].notna(), None).tolist() == \
        ["train/step"] * 3 + ["train", None, None, None]
    assert k["instrumented"].tolist() == [False] * 5 + [True, False]
    assert k["stack"].tolist()[0] == 1
    assert isinstance(k["name"].dtype, pd.CategoricalDtype)  # no str object per row


def test_kernel_def_fields_on_kernels_are_the_defs_values(sample):
    """Every kernel_def field on a kernel row holds its def's value: text fields as a Categorical over the def
    table's values (one small code per row, not a copy), number fields as numbers of the def table's dtype."""
    k, d = sample.kernels, sample.kernel_defs.set_index("k")
    fields = [c for c in d.columns if c in k or (c == "name" and "mangled" in k)]
    assert {"num_regs", "occupancy", "waves", "grid", "limiting_resource", "max_active_blocks"} <= set(fields)
    for c in fields:
        col = k["mangled" if c == "name" else c]
        if isinstance(d[c].dtype, pd.CategoricalDtype):
            assert isinstance(col.dtype, pd.CategoricalDtype), c
            assert col.array.codes.itemsize == 1, c  # a few distinct values: one byte per row
        else:
            assert col.dtype == d[c].dtype, c
        want = d[c].astype(object).reindex(k["k"].to_numpy()).to_numpy()
        got = col.astype(object).to_numpy()
        assert [None if pd.isna(x) else x for x in got] == [None if pd.isna(x) else x for x in want], c
    assert k["num_regs"].max() == 40 and k["occupancy"].min() == pytest.approx(0.833333)
    assert len(k[k["occupancy"] < 0.9]) > 0 and k["occupancy"].mean() > 0  # numbers: comparisons, arithmetic
    assert (k["start_s"] == (k["start_ns"] - T0) / 1e9).all()  # seconds computed in place, exactly as before


def test_kernels_hold_their_own_fields_and_compute_the_definition_s(sample):
    """The kernels table's real columns are the kernel's own fields (ids as narrow as their values); the
    kernel_def fields are not stored per row, yet every documented query on them works (python/README.md)."""
    k = sample.kernels
    assert list(k.columns) == ["start_ns", "duration_ns", "name", "k", "stream", "scope_id", "corr", "instrumented",
                               "stack", "graph"]
    assert {"occupancy", "num_regs", "mangled", "grid", "end_ns", "dur_ns", "start_s", "scope"} <= \
        set(k.computed_columns)
    assert k["k"].dtype == np.uint8 and k["corr"].dtype == np.uint8 and k["stream"].dtype == np.uint8
    row_bytes = sum(k[c].array.codes.nbytes if isinstance(k[c].dtype, pd.CategoricalDtype) else k[c].to_numpy().nbytes
                    for c in k.columns) / len(k)
    assert row_bytes == 8 + 8 + 1 + 7  # start and duration, the name's code, seven ids and flags of a byte each
    d = sample.kernel_defs
    low_defs = set(d.loc[d["occupancy"] < 0.9, "k"])
    want = k["corr"][k["k"].isin(low_defs)].tolist()
    low = k[k.occupancy < 0.9]
    assert type(low) is type(k) and low["corr"].tolist() == want and len(want) not in (0, len(k))
    assert (low.occupancy < 0.9).all() and low.num_regs.notna().all()
    by_name = k.groupby("name", observed=True).dur_ns.sum()
    assert by_name.to_dict() == k.groupby("name", observed=True)["duration_ns"].sum().to_dict()
    assert k.groupby("mangled", observed=True).dur_ns.sum().sum() == k["duration_ns"].sum()
    assert k.groupby(["mangled", "grid"], observed=True)["occupancy"].mean().index.names == ["mangled", "grid"]
    assert k.sort_values("occupancy", kind="stable")["corr"].tolist()[:len(want)] == want
    assert list(k[["corr", "num_regs"]].columns) == ["corr", "num_regs"]
    assert (k.loc[k["k"].isin(low_defs), "occupancy"] < 0.9).all()
    full = k.with_defs()
    assert {"occupancy", "mangled", "end_ns"} <= set(full.columns) and len(full) == len(k)
    assert full.query("occupancy < 0.9")["corr"].tolist() == want
    again = pickle.loads(pickle.dumps(k))
    assert again.occupancy.tolist() == k.occupancy.tolist()
    with pytest.raises(KeyError, match="computed from 'k'"):
        k[["corr", "start_ns"]].occupancy  # noqa: B018


def test_kernel_ids_widen_past_a_byte_and_two(tmp_path):
    """Ids are kept in the narrowest width that holds every value read: a column widens when a value needs it,
    keeping the values before it."""
    lines = [{"type": "session_start", "sid": "w1", "session_id": "w1-0", "start_ns": 1000, "start_unix_ns": 1}]
    lines += [{"type": "kernel_def", "sid": "w1", "k": d, "name": f"_Z{d}f", "num_regs": d % 200}
              for d in (1, 300)]
    corrs = [5, 255, 256, 70_000, 4_300_000_000, 7]
    lines += [{"type": "kernel_event", "sid": "w1", "k": (1, 300)[i % 2], "stream": 7 if i < 4 else 70_000,
               "corr": c, "start_ns": 2000 + i, "dur_ns": 10} for i, c in enumerate(corrs)]
    (tmp_path / "w.device.log").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    k = GpuFlightSession(str(tmp_path), log_prefix="w").kernels
    assert k["corr"].tolist() == corrs and k["corr"].dtype == np.uint64
    assert k["k"].tolist() == [1, 300] * 3 and k["k"].dtype == np.uint16
    assert k["stream"].tolist() == [7] * 4 + [70_000] * 2 and k["stream"].dtype == np.uint32
    assert k["num_regs"].tolist() == [1, 100] * 3


def test_kernel_with_an_unknown_def_has_missing_def_fields(tmp_path):
    """A kernel whose kernel_def was lost (a damaged line): its def fields are missing, the others intact."""
    start = ('{"type":"session_start","sid":"u1","schema":1,"session_id":"u1-0","app":"u","pid":1,'
             '"host":"h","version":"0.1.0","engine":"None","start_ns":1000,"start_unix_ns":1,"options":{}}')
    kdef = ('{"type":"kernel_def","sid":"u1","k":1,"name":"_Z1fv","demangled":"f()","grid":"(2,1,1)",'
            '"block":"(32,1,1)","num_regs":16,"occupancy":0.5,"limiting_resource":"warps"}')
    events = [json.dumps({"type": "kernel_event", "sid": "u1", "k": k, "stream": 7, "corr": i, "start_ns": 2000 + i,
                          "dur_ns": 10}) for i, k in enumerate([1, 9, 1])]
    (tmp_path / "u.device.log").write_text("\n".join([start, kdef] + events) + "\n")
    k = GpuFlightSession(str(tmp_path), log_prefix="u").kernels
    assert k["corr"].tolist() == [0, 1, 2] and k["stream"].tolist() == [7, 7, 7]
    assert k["num_regs"].isna().tolist() == [False, True, False] and k.loc[0, "num_regs"] == 16
    assert k["mangled"].astype(object).where(k["mangled"].notna(), None).tolist() == ["_Z1fv", None, "_Z1fv"]
    assert k["occupancy"].tolist()[::2] == [0.5, 0.5] and math.isnan(k.loc[1, "occupancy"])


def test_kernel_defs_table(sample):
    d = sample.kernel_defs
    assert d["k"].tolist() == [1, 2, 3]
    assert d["short_name"].astype(str).tolist() == ["matmul_row_per_thread", "block_reduce_naive",
                                                    "matmul_row_per_thread"]
    assert d["grid_x"].tolist() == [2, 16384, 4]
    assert d["waves"].tolist() == pytest.approx([0.0019, 24.8, 0.0038])


def test_summary_figures(sample):
    s = sample.summary()
    assert s["kernel_count"] == 7 and s["unique_kernels"] == 2
    assert s["gpu_time_ns"] == 61 * MS
    assert s["gpu_busy_ns"] == 56 * MS  # [300,325] and [305,310] overlap
    assert s["gpu_busy_fraction"] == pytest.approx(0.028)
    assert s["memcpy_count"] == 4 and s["memcpy_bytes"] == 64 * MIB and s["memset_count"] == 1
    assert s["scope_count"] == 5
    assert s["avg_gpu_util_pct"] == pytest.approx(50.0)
    assert s["peak_vram_bytes"] == 3 * (1 << 30)
    assert s["peak_temp_c"] == 55  # the sample without temp_c is missing, not zero
    assert s["avg_power_mw"] == pytest.approx(324000)
    assert s["avg_host_cpu_pct"] == pytest.approx(20.5)
    assert s["instrumented_kernels"] == 1


def test_hotspots(sample):
    h = sample.hotspots()
    assert h["kernel"].tolist() == ["matmul_row_per_thread", "block_reduce_naive"]
    assert h["calls"].tolist() == [3, 4]
    assert h["total_ns"].tolist() == [45 * MS, 16 * MS]
    assert h["avg_ns"].tolist() == [15 * MS, 4 * MS]
    assert h["min_ns"].tolist() == [10 * MS, 1 * MS] and h["max_ns"].tolist() == [25 * MS, 5 * MS]
    assert h["pct_gpu_time"].tolist() == pytest.approx([45 / 61, 16 / 61])
    assert h["grid"].tolist() == ["(4,1,1)", "(16384,1,1)"]  # the shape with the most time
    assert h["shapes"].tolist() == [2, 1]
    assert h["limiting_resource"].tolist() == ["warps", "shared_mem"]
    assert h["instrumented_calls"].tolist() == [0, 1]
    assert len(sample.hotspots(top_n=1)) == 1
    by_shape = sample.hotspots(by_shape=True)
    assert by_shape["total_ns"].tolist() == [25 * MS, 20 * MS, 16 * MS]
    assert by_shape["grid"].tolist() == ["(4,1,1)", "(2,1,1)", "(16384,1,1)"]


def test_memcpy(sample):
    m = sample.memcpy
    assert m["kind"].astype(str).tolist() == ["HtoD", "HtoD", "HtoD", "memset", "DtoH"]
    assert m["is_memset"].tolist() == [False, False, False, True, False]
    assert m["src_kind"].astype(object).tolist()[:3] == ["pageable", "pageable", "pinned"]
    assert m["scope"].astype(object).tolist()[:2] == ["train", "train"]
    assert m.loc[3, "value"] == 0
    ms = sample.memcpy_summary().set_index("kind")
    assert ms.loc["HtoD", "count"] == 3 and ms.loc["HtoD", "bytes"] == 48 * MIB
    assert ms.loc["HtoD", "throughput_gbps"] == pytest.approx(48 * MIB / 0.008 / 1e9)
    assert ms.loc["DtoH", "throughput_gbps"] == pytest.approx(16 * MIB / 0.004 / 1e9)


def test_scopes(sample):
    sc = sample.scopes
    assert len(sc) == 5
    assert sc["path"].astype(str).tolist() == ["train", "worker", "train/step", "train/step", "worker"]
    assert sc["tid"].tolist() == [1000, 1001, 1000, 1000, 1001]
    assert sc["tag"].astype(str).tolist()[0] == "loop"
    assert sc["end_ns"].isna().tolist() == [False] * 4 + [True]  # never ended
    assert sc["duration_ns"].tolist()[:4] == [1195 * MS, 400 * MS, 60 * MS, 40 * MS]

    ss = sample.scope_summary().set_index("scope")
    assert ss.loc["train", "calls"] == 1 and ss.loc["train", "total_ns"] == 1195 * MS
    assert ss.loc["train/step", "calls"] == 2 and ss.loc["train/step", "avg_ns"] == 50 * MS
    assert ss.loc["train/step", "max_ns"] == 60 * MS
    assert ss.loc["worker", "calls"] == 1 and ss.loc["worker", "open"] == 1  # calls: ended instances
    # GPU time: inclusive of nested scopes, and self
    assert ss.loc["train", "kernels"] == 4 and ss.loc["train", "gpu_time_ns"] == 50 * MS
    assert ss.loc["train", "self_gpu_time_ns"] == 25 * MS
    assert ss.loc["train/step", "kernels"] == 3 and ss.loc["train/step", "gpu_time_ns"] == 25 * MS
    assert ss.loc["train", "copies"] == 2 and ss.loc["train", "copy_bytes"] == 32 * MIB


def test_system_and_host_samples(sample):
    g = sample.system
    assert len(g) == 5 and g["util_gpu"].tolist() == [10, 50, 90, 100, 0]
    assert math.isnan(g["temp_c"].iloc[4])
    assert g["t_s"].tolist() == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5])
    h = sample.host
    assert h["cpu_pct"].tolist() == pytest.approx([10.5, 20.5, 30.5])


def test_profile_samples(sample):
    p = sample.profile_samples().set_index("kernel")
    r = p.loc["matmul_row_per_thread"]
    assert r["warp_insts"] == 6000 and r["thread_insts"] == 144000
    assert r["avg_threads_per_warp"] == pytest.approx(24.0) and r["warp_efficiency"] == pytest.approx(0.75)
    assert r["sectors_global"] == 69468 and r["sectors_global_ideal"] == 10518
    assert r["memory_efficiency"] == pytest.approx(10518 / 69468)
    assert r["instructions"] == 3 and r["launches"] == 3 and r["stall_samples"] == 1000
    assert p.loc["block_reduce_naive", "memory_efficiency"] == pytest.approx(1.0)
    assert sample.sass_metrics["sass"].astype(object).tolist()[1].startswith("LDG.E.CONSTANT")


def test_stalls(sample):
    st = sample.stalls()
    mm = st[st["func"] == MATMUL]
    assert mm["reason"].tolist() == ["Long Scoreboard", "Wait", "Selected"]
    assert mm["samples"].tolist() == [600, 300, 100]
    assert mm["fraction"].tolist() == pytest.approx([0.6, 0.3, 0.1])
    assert st["kernel"].tolist()[0] == "matmul_row_per_thread"
    pcs = sample.pc_samples
    assert pcs["patched"].dtype == bool  # sampled on SASS-patched code: only the reduction's row here
    assert pcs.loc[pcs["patched"], "func"].astype(object).tolist() == [REDUCE]
    assert pretty_stall("smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued") == "Long Scoreboard (idle)"
    assert pretty_stall("lg_throttle") == "LG Throttle"  # the C++ report's label, not "Lg Throttle"
    assert pretty_stall("mio_throttle_not_issued") == "MIO Throttle (idle)"


def test_perf_metrics(sample):
    pm = sample.perf_metrics()
    assert pm.loc["train/step", "sm__throughput.avg.pct_of_peak_sustained_elapsed"] == pytest.approx(42.5)
    assert pm.loc["train", "dram__bytes_read.sum"] == 1048576
    assert len(sample.range_counters) == 4


def test_perf_metrics_over_many_instances_of_a_range(tmp_path):
    """A scope profiled several times: .sum metrics add up, rates are time-weighted means (not sums)."""
    start = ('{"type":"session_start","sid":"r1","schema":1,"session_id":"r1-0","app":"ranges","pid":1,'
             '"host":"h","version":"0.1.0","engine":"RangeProfiler","start_ns":1000,"start_unix_ns":1,"options":{}}')
    records = [
        {"gpu__time_duration.sum": 1000, "dram__bytes_read.sum": 64, "l1tex__t_sector_hit_rate.pct": 80},
        {"gpu__time_duration.sum": 3000, "dram__bytes_read.sum": 36, "l1tex__t_sector_hit_rate.pct": 40},
        {"sm__throughput.avg.pct_of_peak_sustained_elapsed": 30},
        {"sm__throughput.avg.pct_of_peak_sustained_elapsed": 50, "gpu__time_duration.sum": 10},
    ]
    lines = [start] + [json.dumps({"type": "range_counters", "sid": "r1", "range": "step" if i < 2 else "loop",
                                   "p": 1 if i < 2 else 2, "metrics": m}) for i, m in enumerate(records)]
    (tmp_path / "r.scope.log").write_text("\n".join(lines) + "\n")
    (tmp_path / "r.device.log").write_text(start + "\n")
    pm = GpuFlightSession(str(tmp_path), log_prefix="r").perf_metrics()
    assert list(pm.index) == ["step", "loop"]
    assert pm.loc["step", "gpu__time_duration.sum"] == 4000
    assert pm.loc["step", "dram__bytes_read.sum"] == 100
    assert pm.loc["step", "l1tex__t_sector_hit_rate.pct"] == pytest.approx(50.0)  # (80 x 1 + 40 x 3) / 4
    assert pm.loc["loop", "sm__throughput.avg.pct_of_peak_sustained_elapsed"] == pytest.approx(40.0)  # unweighted
    assert pm.loc["loop", "gpu__time_duration.sum"] == 10


def test_perf_metrics_per_kernel_ranges(tmp_path):
    """Per-kernel ranges (GPUFL_RANGE_PER_KERNEL) are rows "scope / kernel", apart from the scope's own row."""
    start = ('{"type":"session_start","sid":"r1","schema":1,"session_id":"r1-0","app":"ranges","pid":1,'
             '"host":"h","version":"0.1.0","engine":"RangeProfiler","start_ns":1000,"start_unix_ns":1,"options":{}}')
    records = [("f(int)", 10), ("g(int)", 30), ("f(int)", 12), ("", 100)]
    lines = [start] + [json.dumps({"type": "range_counters", "sid": "r1", "range": "step", "p": 1,
                                   **({"kernel": k} if k else {}), "metrics": {"gpu__time_duration.sum": t}})
                       for k, t in records]
    (tmp_path / "r.scope.log").write_text("\n".join(lines) + "\n")
    (tmp_path / "r.device.log").write_text(start + "\n")
    s = GpuFlightSession(str(tmp_path), log_prefix="r")
    assert list(s.range_counters["kernel"]) == ["f(int)", "g(int)", "f(int)", ""]
    pm = s.perf_metrics()
    assert list(pm.index) == ["step / f(int)", "step / g(int)", "step"]
    assert pm.loc["step / f(int)", "gpu__time_duration.sum"] == 22
    assert pm.loc["step", "gpu__time_duration.sum"] == 100


def test_sync_events_table(tmp_path):
    """sync_event records (enable_sync_events) become the syncs table, with their scope's path."""
    start = ('{"type":"session_start","sid":"y1","schema":1,"session_id":"y1-0","app":"syncs","pid":1,'
             '"host":"h","version":"0.1.0","engine":"None","start_ns":1000,"start_unix_ns":1,'
             '"options":{"enable_sync_events":true}}')
    lines = [start,
             '{"type":"sync_event","sid":"y1","corr":5,"start_ns":2000,"kind":"stream_synchronize","stream":7,'
             '"scope":1,"dur_ns":500}',
             '{"type":"sync_event","sid":"y1","corr":6,"start_ns":4000,"kind":"context_synchronize","dur_ns":250}']
    (tmp_path / "y.device.log").write_text("\n".join(lines) + "\n")
    (tmp_path / "y.scope.log").write_text(start + "\n" + '{"type":"scope_path","sid":"y1","p":1,"parent":0,'
                                          '"name":"train_step","depth":0}\n')
    sy = GpuFlightSession(str(tmp_path), log_prefix="y").syncs
    assert sy["kind"].astype(str).tolist() == ["stream_synchronize", "context_synchronize"]
    assert sy["duration_ns"].tolist() == [500, 250]
    assert sy["stream"].tolist() == [7, 0]
    assert sy["scope"].astype(str).tolist()[0] == "train_step"
    assert sy["start_s"].tolist()[0] == pytest.approx(1e-6)


def test_memory_events_table(tmp_path):
    """memory_event records (enable_memory_events) become the memory table."""
    start = ('{"type":"session_start","sid":"m1","schema":1,"session_id":"m1-0","app":"mem","pid":1,'
             '"host":"h","version":"0.1.0","engine":"None","start_ns":0,"start_unix_ns":1,'
             '"options":{"enable_memory_events":true}}')
    lines = [start,
             '{"type":"memory_event","sid":"m1","corr":3,"ts_ns":1000,"op":"alloc","bytes":4096,"address":65536,'
             '"device":0,"kind":"device","scope":1}',
             '{"type":"memory_event","sid":"m1","corr":4,"ts_ns":2000,"op":"free","bytes":4096,"address":65536,'
             '"device":0,"kind":"device"}']
    (tmp_path / "m.device.log").write_text("\n".join(lines) + "\n")
    (tmp_path / "m.scope.log").write_text(start + "\n" + '{"type":"scope_path","sid":"m1","p":1,"parent":0,'
                                          '"name":"alloc_step","depth":0}\n')
    mem = GpuFlightSession(str(tmp_path), log_prefix="m").memory
    assert mem["is_free"].tolist() == [False, True]
    assert mem["bytes"].tolist() == [4096, 4096]
    assert mem["memory_kind"].astype(str).tolist() == ["device", "device"]
    assert mem["scope"].astype(str).tolist()[0] == "alloc_step"


def test_notes_stacks_benchmarks(sample):
    n = sample.notes
    assert n["feature"].astype(str).tolist() == ["cupti_activity", "nvml", "pc_sampling"]
    assert n["status"].astype(str).tolist()[2] == "degraded"
    assert sample.stacks["frames"].tolist()[0].split("\n")[0] == "main+0x10 (app)"
    assert sample.benchmarks["median_ns"].tolist() == [9 * MS]


def test_select_older_session(data_dir):
    old = GpuFlightSession(str(data_dir), log_prefix="sample", session_id="0a0a", use_rich=False)
    assert old.info["app"] == "old_run"
    assert len(old.kernels) == 1 and old.kernels["name"].astype(str).tolist() == ["warmup"]
    assert len(old.scopes) == 0 and len(old.memcpy) == 0


def test_channel_file_name_as_prefix(data_dir):
    s = GpuFlightSession(str(data_dir), log_prefix="sample.device.log", use_rich=False)
    assert len(s.kernels) == 7


def test_missing_log_raises(tmp_path):
    with pytest.raises(FileNotFoundError):
        GpuFlightSession(str(tmp_path), log_prefix="nothing_here")


def test_damaged_log_is_tolerated(data_dir):
    s = GpuFlightSession(str(data_dir), log_prefix="damaged", use_rich=False)
    assert s.info["app"] == "damaged_app"
    assert len(s.warnings) >= 1
    assert any("damaged.device.log" in w[0] for w in s.warnings)
    assert 1 <= len(s.kernels) <= 2  # the delta record after the garbage line cannot be trusted
    s.print_summary()  # no session_end, no system channel: still prints


def _printed(session_factory, method, *args, **kwargs):
    buf = io.StringIO()
    s = session_factory(buf)
    getattr(s, method)(*args, **kwargs)
    return buf.getvalue()


@pytest.mark.parametrize("use_rich", [False, True])
def test_printing(data_dir, use_rich):
    if use_rich:
        pytest.importorskip("rich")

    def make(buf):
        return GpuFlightSession(str(data_dir), log_prefix="sample", use_rich=use_rich, file=buf)

    out = _printed(make, "print_summary")
    for text in ("fixture_app", "2.00 s", "56.00 ms", "2.8%", "50.0%", "3072 MiB", "NVIDIA H200", "pc_sampling"):
        assert text in out, text
    out = _printed(make, "inspect_hotspots", top_n=10)
    for text in ("matmul_row_per_thread", "block_reduce_naive", "45.00 ms", "83.3%", "shared_mem", "16.0 KB"):
        assert text in out, text
    out = _printed(make, "inspect_stalls")
    assert "Long Scoreboard" in out and "60.0%" in out
    out = _printed(make, "inspect_profile_samples")
    assert "24.0 / 32" in out and "15.1%" in out and "coalesced" in out
    out = _printed(make, "inspect_scopes")
    assert "train/step" in out and "50.00 ms" in out
    out = _printed(make, "inspect_perf_metrics")
    assert "dram__bytes_read.sum" in out and "1,048,576" in out
    out = _printed(make, "inspect_memcpy")
    assert "HtoD" in out and "6.29 GB/s" in out
    if not use_rich:
        assert "\x1b[" not in out


def test_plain_text_without_rich(data_dir, monkeypatch):
    monkeypatch.setenv("GPUFL_NO_RICH", "1")
    buf = io.StringIO()
    s = GpuFlightSession(str(data_dir), log_prefix="sample", file=buf)
    s.inspect_hotspots()
    out = buf.getvalue()
    assert "┃" not in out and "matmul_row_per_thread" in out and "Occupancy" in out


def test_empty_session_prints(tmp_path):
    import warnings

    import gpufl

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gpufl.init("empty", log_path=str(tmp_path / "empty"), system_sample_rate_ms=0)
    gpufl.shutdown()
    buf = io.StringIO()
    s = GpuFlightSession(str(tmp_path), log_prefix="empty", file=buf, use_rich=False)
    assert len(s.kernels) == 0 and s.hotspots().empty and s.stalls().empty and s.profile_samples().empty
    s.print_summary()
    s.inspect_hotspots()
    s.inspect_stalls()
    s.inspect_profile_samples()
    s.inspect_scopes()
    s.inspect_perf_metrics()
    s.inspect_memcpy()
    assert "No kernels" in buf.getvalue()


def test_real_h200_deep_session_matmul_tiling():
    """tests/data/h200/matmul_tiling: the C++ seed-01 pair under PcSamplingWithSass on the H200 (3 SASS launches
    of each kernel). Counters equal Nsight Compute's per launch (docs/measurements.md)."""
    pytest.importorskip("pandas")
    from gpufl.analyzer import GpuFlightSession

    s = GpuFlightSession(str(REPO / "tests" / "data" / "h200"), log_prefix="matmul_tiling", use_rich=False)
    prof = s.profile_samples().set_index("kernel")
    naive = prof.loc[[k for k in prof.index if k.startswith("matmul_naive")][0]]
    tiled = prof.loc[[k for k in prof.index if k.startswith("matmul_tiled")][0]]
    assert naive["warp_insts"] == 3 * 1_230_897_152
    assert naive["sectors_global"] == 3 * 4_565_499_904
    assert naive["sectors_global_ideal"] == 3 * 1_342_701_568
    assert abs(naive["memory_efficiency"] - 0.294) < 0.001
    assert tiled["memory_efficiency"] == 1.0
    assert naive["avg_threads_per_warp"] == 32.0
    stalls = s.stalls()
    top = stalls[stalls["kernel"].str.startswith("matmul_naive")].iloc[0]
    assert top["reason"] == "LG Throttle"
    assert naive["stall_samples"] > 1_000_000
