"""gpufl.report.generate_report: the C++ report, called from Python (seed 01's call, verbatim)."""
import os
import warnings

import pytest

import gpufl
from gpufl.report import generate_report, generate_report_json

SECTIONS = ["GPU Flight Session Report", "Session Summary", "Kernel Execution Summary", "Kernels by Total GPU Time",
            "Kernel Details", "Memory Transfer Summary", "System Metrics", "Scope Summary",
            "Profile / SASS Analysis"]


def test_report_sections_and_values(data_dir):
    text = generate_report(str(data_dir), log_prefix="sample", top_n=10)
    for section in SECTIONS:
        assert section in text, section
    for value in ("fixture_app", "5e55b0b0-1111-4222-8333-444455556666", "NVIDIA H200", "matmul_row_per_thread",
                  "block_reduce_naive", "HtoD", "train", "smsp__sass_sectors_mem_global"):
        assert value in text, value


def test_seed01_call_shape(data_dir, monkeypatch):
    monkeypatch.chdir(data_dir)
    LOG_PATH = "./sample"
    text = generate_report(os.path.dirname(LOG_PATH) or ".", log_prefix=os.path.basename(LOG_PATH), top_n=10)
    assert "Session Summary" in text
    assert gpufl.report.generate_report is generate_report


def test_top_n_and_session_selection(data_dir):
    assert "Top 1 Kernel by Total GPU Time" in generate_report(str(data_dir), log_prefix="sample", top_n=1)
    old = generate_report(str(data_dir), log_prefix="sample", session_id="0a0a0a0a")
    assert "old_run" in old and "fixture_app" not in old


def test_json_report(data_dir):
    d = generate_report_json(str(data_dir), log_prefix="sample")
    assert d["session"]["app"] == "fixture_app"
    assert d["kernels"]["launches"] == 7


def test_missing_log(tmp_path):
    with pytest.raises(FileNotFoundError):
        generate_report(str(tmp_path), log_prefix="nothing")


def test_damaged_log_warns(data_dir):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        text = generate_report(str(data_dir), log_prefix="damaged")
    assert "damaged_app" in text
    assert any("damaged" in str(x.message) for x in w)


def test_default_prefix_is_last_init(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gpufl.init("lastrun", log_path=str(tmp_path / "lastrun"), system_sample_rate_ms=0)
    with gpufl.Scope("only"):
        pass
    gpufl.shutdown()
    assert gpufl.last_log_path() == str(tmp_path / "lastrun")
    assert "lastrun" in generate_report()


def test_verbose_and_wide_as_in_the_cli():
    """generate_report(verbose=, wide=) are `gpufl report -v` and `--wide`."""
    h200 = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "h200")

    def notes(text):
        return text[text.index("Collection Notes"):]

    plain = generate_report(h200, log_prefix="pytorch_train_trace")
    verbose = generate_report(h200, log_prefix="pytorch_train_trace", verbose=True)
    assert len(notes(verbose).splitlines()) > len(notes(plain).splitlines())

    def top(text):
        start = text.index("Top 10 Kernels")
        return text[start:text.index("Kernel Details", start)]

    wide = generate_report(h200, log_prefix="pytorch_train_trace", wide=True)
    assert "..." in top(plain) and "..." not in top(wide)
    assert "multi_tensor_apply_kernel<" in top(wide)
