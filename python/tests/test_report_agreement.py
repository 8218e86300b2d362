"""The analyzer and the C++ report agree on every fixture: real H200 logs (tests/data/h200) and the report's golden
inputs (tests/golden). The analyzer takes its figures from the report's JSON, so this holds by construction; the
test guards it, and checks that the tables the analyzer explores (read by the loader) hold what the report
counted."""
import json

import pytest

pd = pytest.importorskip("pandas")
np = pytest.importorskip("numpy")

from gpufl import _gpufl as _C  # noqa: E402
from gpufl.analyzer import GpuFlightSession  # noqa: E402
from conftest import REPO  # noqa: E402

H200 = sorted({p.name.split(".")[0] for p in (REPO / "tests" / "data" / "h200").glob("*.device.log")})
GOLDEN = sorted(p.name for p in (REPO / "tests" / "golden").iterdir() if (p / "case.device.log").exists()) \
    if (REPO / "tests" / "golden").is_dir() else []
CASES = [("h200", REPO / "tests" / "data" / "h200" / n) for n in H200] + \
        [("golden", REPO / "tests" / "golden" / n / "case") for n in GOLDEN]


def _report(prefix, session_id):
    ok, text, _, error = _C.report(str(prefix), session_id or "", 10, True)
    assert ok, error
    return json.loads(text)


def _nan_or(x):
    return None if x is None or x != x else x


@pytest.mark.skipif(not CASES, reason="fixtures not present (installed without the source tree)")
@pytest.mark.parametrize("kind,prefix", CASES, ids=[f"{k}/{p.parent.name if k == 'golden' else p.name}"
                                                     for k, p in CASES])
def test_analyzer_equals_report(kind, prefix):
    s = GpuFlightSession(str(prefix.parent), log_prefix=prefix.name, use_rich=False)
    r = _report(prefix, s.info.get("session_id"))
    r["generated_at"] = s.report_data["generated_at"]
    assert s.report_data == r

    # Summary
    got = s.summary()
    k, tr = r["kernels"], r["transfers"]
    assert got["session_id"] == r["session"]["session_id"]
    assert got["duration_ns"] == (r["session"]["duration_ns"] or 0)
    assert got["kernel_count"] == k["launches"] and got["unique_kernels"] == k["unique_functions"]
    assert got["gpu_time_ns"] == k["total_ns"] and got["gpu_busy_ns"] == k["busy_ns"]
    assert got["instrumented_kernels"] == k["instrumented"]
    assert got["memcpy_count"] == tr["copies"] and got["memcpy_bytes"] == tr["bytes"]
    assert got["memset_count"] == tr["memsets"]["count"]
    assert got["warnings"] == r["collection"]["reader_warnings"]
    assert got["dropped"] == r["collection"]["dropped"]
    gpus = r["system"]["gpus"]
    if len(gpus) == 1:
        g = gpus[0]
        util = g["util_gpu"]
        assert _nan_or(got["avg_gpu_util_pct"]) == (util["avg"] if util else None)
        assert _nan_or(got["peak_vram_bytes"]) == g["vram_peak_bytes"]

    # Hot spots: one row per report group; per function, the groups folded
    by_shape = s.hotspots(top_n=None, by_shape=True)
    groups = [g for g in r["kernel_groups"] if g["durations"]]
    assert len(by_shape) == len(groups)
    assert by_shape["calls"].tolist() == [g["durations"]["count"] for g in groups]
    assert by_shape["total_ns"].tolist() == [g["durations"]["total_ns"] for g in groups]
    assert by_shape["min_ns"].tolist() == [g["durations"]["min_ns"] for g in groups]
    assert by_shape["max_ns"].tolist() == [g["durations"]["max_ns"] for g in groups]
    assert by_shape["grid"].tolist() == [g["grid"] for g in groups]
    assert [_nan_or(x) for x in by_shape["occupancy"]] == [(g["occupancy"] or {}).get("occupancy") for g in groups]
    hot = s.hotspots(top_n=None)
    assert hot["calls"].sum() == k["launches"] and hot["total_ns"].sum() == k["total_ns"]
    assert hot["mangled"].is_unique

    # Scopes (with the ancestor roll-up), transfers, stalls, SASS, ranges, hints
    sc = s.scope_summary()
    paths = r["scopes"]["paths"]
    assert sc["calls"].tolist() == [p["calls"] for p in paths]
    assert sc["open"].tolist() == [p["unfinished"] for p in paths]
    assert sc["total_ns"].tolist() == [p["total_ns"] for p in paths]
    assert sc["kernels"].tolist() == [p["kernels_incl"] for p in paths]
    assert sc["gpu_time_ns"].tolist() == [p["gpu_incl_ns"] for p in paths]
    assert sc["self_gpu_time_ns"].tolist() == [p["gpu_self_ns"] for p in paths]
    assert sc["copy_bytes"].tolist() == [p["copy_bytes_incl"] for p in paths]

    ms = s.memcpy_summary().set_index("kind")
    for d in tr["directions"]:
        assert (ms.loc[d["kind"], "count"], ms.loc[d["kind"], "bytes"]) == (d["count"], d["bytes"])
        assert ms.loc[d["kind"], "time_ns"] == d["total_ns"]

    funcs = r["profile"]["functions"]
    st = s.stalls()
    assert st["samples"].sum() == sum(x["samples"] for f in funcs for x in f["stalls"])
    for f in funcs:
        mine = st[st["func"] == f["func"]]
        assert dict(zip(mine["stall"], mine["samples"])) == {x["reason"]: x["samples"] for x in f["stalls"]}
        assert set(mine["reason"]) <= {x["label"] for x in f["stalls"]}
    ps = s.profile_samples().set_index("func")
    for f in (f for f in funcs if f["has_sass"]):
        row = ps.loc[f["func"]]
        assert row["warp_insts"] == f["sass"]["inst_executed"]
        assert row["sectors_global"] == f["sass"]["sectors_global"]
        if f["sass"]["inst_executed"]:  # the JSON's figures are rounded for display
            assert row["warp_efficiency"] * 100 == pytest.approx(f["sass"]["warp_efficiency_pct"], abs=0.006)
            assert row["avg_threads_per_warp"] == pytest.approx(f["sass"]["threads_per_warp"], abs=0.0006)
        if f["sass"]["sectors_global"]:
            assert row["memory_efficiency"] * 100 == pytest.approx(f["sass"]["memory_efficiency_pct"], abs=0.006)
    pm = s.perf_metrics()
    assert len(pm) == len(r["profile"]["ranges"])
    for name, rng in zip(pm.index, r["profile"]["ranges"]):
        assert name.startswith(rng["range"])
        assert {m: v for m, v in pm.loc[name].items() if v == v} == pytest.approx(rng["metrics"])
    assert s.hints().to_dict("records") == r["hints"]

    # The tables the analyzer explores hold what the report counted (same reader, same session).
    kern = s.kernels
    assert len(kern) == k["launches"]
    assert int(kern["duration_ns"].sum()) == k["total_ns"]
    m = s.memcpy
    copies = m[~m["is_memset"]] if len(m) else m
    assert len(copies) == tr["copies"] and int(copies["bytes"].sum()) == tr["bytes"]
    assert len(s.scopes) == sum(p["calls"] + p["unfinished"] for p in paths)
    assert s.duration_ns == (r["session"]["duration_ns"] or 0)  # the span viz plots, from the loader's info

    # The golden cases: the same figures as the committed expected.json.
    if kind == "golden":
        want = json.loads((prefix.parent / "expected.json").read_text())
        assert got["kernel_count"] == want["kernels"]["launches"]
        assert got["gpu_busy_ns"] == want["kernels"]["busy_ns"]
        assert got["memcpy_bytes"] == want["transfers"]["bytes"]
        assert s.hints().to_dict("records") == want["hints"]


def test_printing_on_a_real_log():
    """print_summary and inspect_* on a real H200 log print the report's figures."""
    import io

    if "sass_divergence" not in H200:
        pytest.skip("tests/data/h200 not present")
    buf = io.StringIO()
    s = GpuFlightSession(str(REPO / "tests" / "data" / "h200"), log_prefix="sass_divergence", use_rich=False,
                         file=buf)
    for method in ("print_summary", "inspect_hotspots", "inspect_stalls", "inspect_profile_samples",
                   "inspect_scopes", "inspect_perf_metrics", "inspect_memcpy", "inspect_hints"):
        getattr(s, method)()
    out = buf.getvalue()
    assert "GPU Flight Session Summary" in out and "Top " in out
