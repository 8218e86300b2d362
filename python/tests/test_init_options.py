"""gpufl.init against the C++ option table (GFL_INIT_OPTIONS in include/gpufl/init_options.hpp, exposed as
_gpufl.INIT_OPTIONS): the same keywords, the same defaults, and each keyword reaching session_start.options."""
import inspect
import json
import subprocess
import sys
import textwrap

import pytest

import gpufl
from gpufl import _gpufl

# The positional order of seeds 01/03 (gpufl.init("smoke-test", log_path=..., ...)); the rest keyword-only.
POSITIONAL = ["app_name", "log_path", "sampling_auto_start", "system_sample_rate_ms", "enable_kernel_details",
              "enable_stack_trace", "enable_debug_output", "profiling_engine"]


def _table():
    return {name: (kind, default, env, doc) for name, kind, default, env, doc in _gpufl.INIT_OPTIONS}


def test_table_rows_are_complete():
    rows = _gpufl.INIT_OPTIONS
    assert len(rows) >= 13
    for name, kind, _default, env, doc in rows:
        assert kind in ("str", "bool", "int", "ProfilingEngine"), name
        assert env.startswith("GPUFL_") and doc, name


def test_init_keywords_are_the_table():
    params = inspect.signature(gpufl.init).parameters
    table = _table()
    assert set(params) == set(table), "gpufl.init and include/gpufl/init_options.hpp disagree on the options"
    positional = [n for n, p in params.items() if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    assert positional == POSITIONAL


def test_init_defaults_are_the_tables():
    params = inspect.signature(gpufl.init).parameters
    for name, (_kind, default, _env, _doc) in _table().items():
        shown = params[name].default
        if shown is None:  # None means "the table's default" (log_path "", profiling_engine None)
            continue
        assert shown == default and type(shown) is type(default), f"gpufl.init({name}={shown!r}), table {default!r}"


def test_binding_rejects_unknown_and_mistyped_keywords():
    with pytest.raises(TypeError, match="unexpected keyword argument 'no_such_option'"):
        _gpufl.init(no_such_option=1)
    with pytest.raises(TypeError, match="rotate_bytes"):
        _gpufl.init(rotate_bytes="big")


def _changed(kind, default):
    """A value other than the table's default, and its JSON in session_start.options."""
    if kind == "str":
        return default + "x", default + "x"
    if kind == "bool":
        return not default, not default
    if kind == "int":
        return default + 3, default + 3
    engine = "SassMetrics" if default != int(gpufl.ProfilingEngine.SassMetrics) else "PcSampling"
    return engine, engine


def test_every_keyword_reaches_session_start(tmp_path):
    # In a fresh process: init is once per process in spirit, and GPUFL_* variables must not interfere.
    expected, call = {}, {}
    for name, (kind, default, _env, _doc) in _table().items():
        value, shown = _changed(kind, default)
        call[name], expected[name] = value, shown
    call["log_path"] = expected["log_path"] = str(tmp_path / "opts")
    call["sampling_auto_start"] = expected["sampling_auto_start"] = False  # no sampler thread needed
    code = textwrap.dedent(f"""
        import warnings, gpufl
        warnings.simplefilter("ignore")
        gpufl.init(**{call!r})
        gpufl.shutdown()
    """)
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("GPUFL_")}
    env["CUDA_VISIBLE_DEVICES"] = ""
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    first = (tmp_path / "opts.device.log").read_text().splitlines()[0]
    start = json.loads(first)
    assert start["type"] == "session_start"
    assert start["options"] == expected
