"""Incidents in Python (docs/incidents.md): the incidents tables of the analyzer, print_summary() showing them first,
and gpufl.dump(). The sessions are the report goldens' (tests/golden/incident_*)."""
import io

import pytest

import gpufl
from conftest import REPO

GOLDEN = REPO / "tests" / "golden"


def session(case, buf=None):
    pytest.importorskip("pandas")
    from gpufl.analyzer import GpuFlightSession

    return GpuFlightSession(str(GOLDEN / case), log_prefix="case", use_rich=False, file=buf)


def test_a_hang_gives_one_row_and_its_lists_as_tables():
    s = session("incident_hang")
    inc = s.incidents
    assert len(inc) == 1
    row = inc.iloc[0]
    assert row["kind"] == "hang" and row["api"] == "cudaStreamSynchronize" and row["in_flight_count"] == 2
    assert row["t_s"] == pytest.approx(61.1)
    launches = s.incident_launches
    assert list(launches["incident"]) == [0, 0]
    assert list(launches["short_name"]) == ["wait_flag", "cudaMemcpyAsync"]
    assert list(launches["suspect"]) == [True, False] and list(launches["kind"]) == ["kernel", "copy"]
    assert list(launches["stream"]) == [13, 13]
    blocked = s.incident_blocked
    assert list(blocked["tid"]) == [5151] and list(blocked["scope"]) == ["wait_for_device"]
    last = s.incident_last_kernels
    assert list(last["name"]) == ["init"] and list(last["stream"]) == [13]


def test_out_of_memory_carries_the_request_and_the_scope():
    s = session("incident_oom")
    row = s.incidents.iloc[0]
    assert row["kind"] == "out_of_memory" and row["requested_bytes"] == 40 * 2**30
    assert row["free_bytes"] == 2 * 2**30 and row["scope"] == "train/forward"
    assert len(s.incident_launches) == 0


def test_sessions_without_incidents_have_empty_tables(sample):
    assert len(sample.incidents) == 0 and "kind" in sample.incidents.columns
    assert len(sample.incident_launches) == 0 and "suspect" in sample.incident_launches.columns


def test_print_summary_shows_the_incidents_first():
    buf = io.StringIO()
    session("incident_hang", buf).print_summary()
    out = buf.getvalue()
    assert out.index("Incident #1: hang at 61.100 s") < out.index("GPU Flight Session Summary")
    for text in ("wait_flag (stream 13)", "Branch Resolving (70.0%)", "py-spy dump --pid 4242",
                 "5151 in cudaStreamSynchronize"):
        assert text in out, text
    assert "without a session_end" not in out


def test_print_summary_says_when_the_program_died():
    buf = io.StringIO()
    session("incident_signal", buf).print_summary()
    out = buf.getvalue()
    assert out.index("ended without a session_end") < out.index("Incident #1: signal")
    assert "SIGSEGV (11)" in out


def test_dump_without_a_session_is_false():
    gpufl.shutdown()
    assert gpufl.is_recording() is False
    assert gpufl.dump("nothing records") is False
    assert gpufl.dump() is False


def test_dump_records_an_incident(tmp_path):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpufl.GpuFlightWarning)
        gpufl.init("dumped", log_path=str(tmp_path / "dumped"), system_sample_rate_ms=0)
    try:
        assert gpufl.dump("checking in") is True
    finally:
        gpufl.shutdown()
    pytest.importorskip("pandas")
    from gpufl.analyzer import GpuFlightSession

    inc = GpuFlightSession(str(tmp_path), log_prefix="dumped", use_rich=False).incidents
    assert list(inc["kind"]) == ["dump"] and list(inc["reason"]) == ["checking in"]
