"""init / shutdown / Scope / ProfilingEngine, against the real runtime (libgpufl.so) on a machine without a GPU
(or with one: the assertions cover both outcomes of init)."""
import subprocess
import sys
import textwrap
import threading
import warnings

import pytest

import gpufl
from gpufl import ProfilingEngine


def test_version_comes_from_cpp():
    from gpufl import _gpufl

    assert gpufl.__version__ == _gpufl.VERSION
    assert gpufl.__version__.count(".") >= 2


def test_profiling_engine_members():
    names = list(ProfilingEngine.__members__)
    for n in ("None", "PcSampling", "SassMetrics", "PcSamplingWithSass", "RangeProfiler", "NoEngine", "Off"):
        assert n in names
    none = getattr(ProfilingEngine, "None")
    assert ProfilingEngine.NoEngine is none and ProfilingEngine.Off is none and ProfilingEngine["None"] is none
    assert int(none) == 0
    assert ProfilingEngine.PcSamplingWithSass.name == "PcSamplingWithSass"
    assert len(list(ProfilingEngine)) == 5  # aliases are not separate members


@pytest.mark.parametrize("value,expected", [
    (None, "None"), ("None", "None"), ("off", "None"), ("pcsampling", "PcSampling"),
    ("PC_SAMPLING_WITH_SASS", "PcSamplingWithSass"), ("ProfilingEngine.RangeProfiler", "RangeProfiler"),
    (ProfilingEngine.SassMetrics, "SassMetrics"), (4, "RangeProfiler"),
])
def test_engine_arguments(value, expected):
    from gpufl._api import _engine_value

    assert _engine_value(value) == int(ProfilingEngine[expected])


def test_engine_argument_errors():
    from gpufl._api import _engine_value

    with pytest.raises(ValueError):
        _engine_value("turbo")
    with pytest.raises(ValueError):
        _engine_value(17)
    with pytest.raises(TypeError):
        _engine_value(1.5)


def _run(code: str, tmp_path, env=None):
    import os

    full_env = dict(os.environ, **(env or {}))
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=tmp_path, env=full_env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    return p


def test_init_without_gpu_prints_one_message_and_runs_on(tmp_path):
    # A fresh process; CUDA_VISIBLE_DEVICES="" hides any GPU. The runtime prints one line saying why GPU
    # profiling is off; Python adds no second message (no GpuFlightWarning).
    p = _run("""
        import warnings, gpufl
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            first = gpufl.init("nogpu", log_path="./nogpu", system_sample_rate_ms=10)
            with gpufl.Scope("still_recorded"):
                pass
            gpufl.shutdown()
        print("RESULT", first, len(w))
    """, tmp_path, env={"CUDA_VISIBLE_DEVICES": ""})
    line = [x for x in p.stdout.splitlines() if x.startswith("RESULT")][0].split()
    first, n = line[1] == "True", int(line[2])
    assert n == 0, p.stdout  # no Python warning of any kind
    ours = [x for x in p.stderr.splitlines() if x.startswith("gpufl:")]
    if not first:
        assert len(ours) == 1, p.stderr
        assert "off" in ours[0], ours
    else:  # a GPU is visible despite the mask: nothing to say
        assert ours == [], p.stderr
    assert (tmp_path / "nogpu.scope.log").exists()
    assert "still_recorded" in (tmp_path / "nogpu.scope.log").read_text()


def test_init_accepts_seed_arguments(tmp_path):
    # Seed 01 / seed 03 argument spellings, verbatim.
    _run("""
        import gpufl as gfl
        from gpufl import ProfilingEngine
        gfl.init(app_name="matmul_sample", log_path="./gfl_logs", sampling_auto_start=True,
                 system_sample_rate_ms=100, profiling_engine=gfl.ProfilingEngine.PcSamplingWithSass)
        gfl.shutdown()
        gfl.init("smoke-test", log_path="./smoke_test", sampling_auto_start=True, enable_kernel_details=True,
                 enable_stack_trace=True, profiling_engine = ProfilingEngine.RangeProfiler)
        gfl.shutdown()
    """, tmp_path)
    assert (tmp_path / "gfl_logs.scope.log").exists()
    assert (tmp_path / "smoke_test.device.log").exists()


def _session(tmp_path, prefix):
    pytest.importorskip("pandas")
    from gpufl.analyzer import GpuFlightSession

    return GpuFlightSession(str(tmp_path), log_prefix=prefix, use_rich=False)


def _start(tmp_path, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpufl.GpuFlightWarning)
        gpufl.init(name, log_path=str(tmp_path / name), system_sample_rate_ms=0)


def test_scope_context_manager_and_decorator(tmp_path):
    _start(tmp_path, "scopes")

    @gpufl.Scope("decorated", "tagged")
    def work(n):
        """docstring kept"""
        if n:
            return work(n - 1) + 1  # recursion: each call is its own, nested scope
        return 0

    @gpufl.Scope()
    def unnamed():
        return "ok"

    with gpufl.Scope("matrix_mul_compute", "math") as s:
        assert isinstance(s, gpufl.Scope)
        assert work(2) == 2
    assert unnamed() == "ok"
    with pytest.raises(RuntimeError):
        with gpufl.Scope("raises"):
            raise RuntimeError("boom")
    gpufl.shutdown()

    assert work.__name__ == "work" and work.__doc__ == "docstring kept"
    sc = _session(tmp_path, "scopes").scopes
    paths = sorted(sc["path"].astype(str))
    assert paths == sorted([
        "matrix_mul_compute", "matrix_mul_compute/decorated", "matrix_mul_compute/decorated/decorated",
        "matrix_mul_compute/decorated/decorated/decorated",
        "test_scope_context_manager_and_decorator.<locals>.unnamed", "raises",
    ])
    assert set(sc.loc[sc["name"] == "decorated", "tag"].astype(str)) == {"tagged"}
    assert sc.loc[sc["name"] == "matrix_mul_compute", "tag"].astype(str).tolist() == ["math"]
    assert sc["end_ns"].notna().all()  # the exception still closed its scope
    assert (sc["duration_ns"] >= 0).all()
    assert sorted(sc.loc[sc["name"] == "decorated", "depth"].tolist()) == [1, 2, 3]


def test_scope_misuse():
    with pytest.raises(TypeError):
        gpufl.Scope(lambda: None)
    with pytest.raises(TypeError):
        with gpufl.Scope():
            pass


def test_nested_scopes_from_two_threads(tmp_path):
    _start(tmp_path, "threads")
    barrier = threading.Barrier(2)
    native = {}

    def worker(label):
        native[label] = threading.get_native_id()
        for _ in range(3):
            with gpufl.Scope(f"outer_{label}"):
                barrier.wait()  # both threads inside their outer scope at once
                with gpufl.Scope("inner", label):
                    barrier.wait()
                barrier.wait()

    shared = gpufl.Scope("shared")  # one object entered from both threads at the same time

    def both(label):
        worker(label)
        with shared:
            barrier.wait()

    threads = [threading.Thread(target=both, args=(x,)) for x in ("A", "B")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    gpufl.shutdown()

    sc = _session(tmp_path, "threads").scopes
    assert len(sc) == 2 * (3 * 2 + 1)
    assert set(sc["tid"]) == set(native.values())
    for label in ("A", "B"):
        mine = sc[sc["tid"] == native[label]]
        outer = mine[mine["name"] == f"outer_{label}"]
        inner = mine[mine["name"] == "inner"]
        assert len(outer) == 3 and len(inner) == 3
        assert set(inner["path"].astype(str)) == {f"outer_{label}/inner"}
        assert set(inner["depth"]) == {1} and set(outer["depth"]) == {0}
        assert set(inner["tag"].astype(str)) == {label}
        # each inner lies within one outer of the same thread
        for s, e in zip(inner["start_ns"], inner["end_ns"]):
            assert ((outer["start_ns"] <= s) & (outer["end_ns"] >= e)).sum() == 1
        shared_rows = mine[mine["name"] == "shared"]
        assert len(shared_rows) == 1 and shared_rows["depth"].iloc[0] == 0


def test_recording_flags(tmp_path):
    _start(tmp_path, "flags")
    assert gpufl.is_recording() is True
    gpufl.shutdown()
    gpufl.shutdown()  # idempotent
    assert gpufl.is_recording() is False
    assert gpufl.is_profiling() is False


def test_native_loader():
    from gpufl import _native

    assert _native.load() is gpufl._gpufl


def test_prefers_the_nvidia_wheels_cupti(tmp_path, monkeypatch):
    # Python only passes the wheel directories to the C++ search (GPUFL_CUPTI_DIRS); the order of the rest is
    # C++'s (src/cuda/cupti_loader_test.cpp checks it on fake trees).
    from gpufl import _api

    for site in ("a", "b"):
        for sub in ("nvidia/cu13/lib", "nvidia/cuda_cupti/lib"):
            (tmp_path / site / sub).mkdir(parents=True)
    (tmp_path / "a" / "nvidia" / "cuda_cupti" / "lib" / "libcupti.so.13").write_bytes(b"")
    (tmp_path / "b" / "nvidia" / "cu13" / "lib" / "libcupti.so.13").write_bytes(b"")
    (tmp_path / "b" / "nvidia" / "cuda_cupti" / "lib" / "libcupti.so.12").write_bytes(b"")
    monkeypatch.delenv("GPUFL_CUPTI_LIB", raising=False)
    monkeypatch.delenv("GPUFL_CUPTI_DIRS", raising=False)
    paths = [str(tmp_path / "elsewhere"), str(tmp_path / "a"), str(tmp_path / "b")]
    expected = ":".join(str(tmp_path / p) for p in ("a/nvidia/cuda_cupti/lib", "b/nvidia/cu13/lib",
                                                   "b/nvidia/cuda_cupti/lib"))
    assert _api._prefer_wheel_cupti(paths) == expected
    assert _api.os.environ["GPUFL_CUPTI_DIRS"] == expected
    assert "GPUFL_CUPTI_LIB" not in _api.os.environ
    # A choice already made stays: the user's directories, or an explicit library.
    monkeypatch.setenv("GPUFL_CUPTI_DIRS", "/opt/mine")
    assert _api._prefer_wheel_cupti(paths) is None
    assert _api.os.environ["GPUFL_CUPTI_DIRS"] == "/opt/mine"
    monkeypatch.delenv("GPUFL_CUPTI_DIRS")
    monkeypatch.setenv("GPUFL_CUPTI_LIB", "/opt/mine/libcupti.so")
    assert _api._prefer_wheel_cupti(paths) is None
    assert "GPUFL_CUPTI_DIRS" not in _api.os.environ
    monkeypatch.delenv("GPUFL_CUPTI_LIB")
    assert _api._prefer_wheel_cupti([str(tmp_path / "elsewhere")]) is None

