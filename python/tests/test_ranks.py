"""Many processes, one report: `gpufl report PREFIX...` and `gpufl export --perfetto PREFIX...` on a synthetic job
of four ranks with a planted straggler (ranks_fixture.py), and on a real two-rank gloo job recorded on the H200."""
import os
import re

import pytest

import ranks_fixture as job
from trace_decode import PerfettoTrace, log_records, run


@pytest.fixture(scope="module")
def prefixes(tmp_path_factory):
    return job.write_job(tmp_path_factory.mktemp("ranks"))


def stragglers_section(text):
    return text[text.index("Stragglers"):]


def test_report_names_the_straggler_how_far_behind_and_where(prefixes):
    text = run("report", *prefixes).stdout
    assert "4 ranks" in text
    for r in range(job.RANKS):
        assert re.search(rf"^  {r} +node1 +{5000 + r} .*trainer$", text, re.M), text
    strag = stragglers_section(text)
    behind_ms = job.STEPS * (job.gemm_ns(job.SLOW) - job.gemm_ns(0)) / 1e6
    assert f"rank {job.SLOW} (pid {5000 + job.SLOW} @node1) is {behind_ms:.2f} ms behind" in strag
    assert len(re.findall(r"^  rank \d .* behind", strag, re.M)) == 1  # only the planted one
    assert re.search(rf"scope +train/step +\+{behind_ms:.2f} ms +\({job.STEPS} calls", strag)
    assert re.search(rf"kernel +gemm +\+{behind_ms:.2f} ms +\({job.STEPS} launches", strag)
    assert not re.search(r"kernel +allreduce", strag)


def test_report_states_the_clock_alignment_and_its_uncertainty(prefixes):
    text = run("report", *prefixes).stdout
    assert f"agree within {job.JITTER_NS / 1000:.2f} us" in text
    assert re.search(r"^  2 +node1 .* \+20\.00 ms .*trainer$", text, re.M)  # launched 10 ms apart


def test_no_straggler_when_ranks_are_alike(prefixes):
    text = run("report", prefixes[0], prefixes[1], prefixes[3]).stdout
    assert "None: every rank is within" in stragglers_section(text)


def test_a_late_rank_in_a_collective_job_is_named_though_every_step_takes_as_long(tmp_path):
    prefixes = job.write_job(tmp_path, collective=True)
    text = run("report", *prefixes).stdout
    assert "In NCCL collectives (GPU time):" in text
    strag = stragglers_section(text)
    assert "Work measured as time in top-level scopes outside NCCL collectives" in strag
    behind_ms = job.STEPS * job.HOST_DELAY_NS / 1e6  # the others' extra wait, over the steps
    assert f"rank {job.SLOW} (pid {5000 + job.SLOW} @node1) is {behind_ms:.2f} ms behind" in strag, strag
    assert len(re.findall(r"^  rank \d .* behind", strag, re.M)) == 1
    assert f"the other ranks spent {behind_ms:.2f} ms more in NCCL collectives" in strag


def test_a_late_rank_of_a_gloo_job_is_named_from_its_collective_scopes(tmp_path):
    prefixes = job.write_job(tmp_path, collective="scopes")
    text = run("report", *prefixes).stdout
    assert "In collective scopes (host time):" in text and "NCCL" not in text
    strag = stragglers_section(text)
    assert "Work measured as time in top-level scopes outside collective scopes" in strag
    behind_ms = job.STEPS * job.HOST_DELAY_NS / 1e6
    assert f"rank {job.SLOW} (pid {5000 + job.SLOW} @node1) is {behind_ms:.2f} ms behind" in strag, strag
    assert len(re.findall(r"^  rank \d .* behind", strag, re.M)) == 1
    assert re.search(rf"scope  train/step/compute +\+{behind_ms:.2f} ms", strag), strag
    assert f"the other ranks spent {behind_ms:.2f} ms more in collective scopes" in strag


H200 = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "h200")


def test_the_late_rank_of_a_real_gloo_job_on_the_h200_is_named_in_its_compute_scope():
    # examples/python/ranks_gloo.py, two ranks sharing the H200 under `gpufl trace` (scripts/gpu-run.sh gloo):
    # rank 1 sleeps 50 ms in `compute` every 10th of 60 steps, 300 ms in all; rank 0 waits in `all_reduce`.
    text = run("report", os.path.join(H200, "gloo_rank0"), os.path.join(H200, "gloo_rank1")).stdout
    assert "In collective scopes (host time):" in text
    strag = stragglers_section(text)
    found = re.findall(r"^  rank (\d) \(pid \d+ @\S+\) is ([\d.]+) ms behind", strag, re.M)
    assert len(found) == 1 and found[0][0] == "1", strag
    assert 270 <= float(found[0][1]) <= 330, strag  # the 300 ms planted, less what the sleep overlapped
    excess = re.search(r"scope  step/compute +\+([\d.]+) ms", strag)
    assert excess and 270 <= float(excess.group(1)) <= 330, strag


def test_json_is_refused_for_several_prefixes(prefixes):
    p = run("report", "--json", *prefixes, check=False)
    assert p.returncode == 2 and "--json" in p.stderr


def test_perfetto_export_of_ranks_is_one_process_each_on_one_clock(prefixes, tmp_path):
    out = tmp_path / "job.pftrace"
    run("export", "--perfetto", out, *prefixes)
    trace = PerfettoTrace(out)
    procs = {d.uuid: d for d in trace.tracks.values() if d.HasField("process")}
    assert sorted(d.process.pid for d in procs.values()) == [5000 + r for r in range(job.RANKS)]
    assert all(f"[rank {d.process.pid - 5000}]" in d.process.process_name for d in procs.values())
    pairing0 = None
    for r, prefix in enumerate(prefixes):
        log = log_records(prefix)
        start = log["session_start"][0]
        pairing = start["start_unix_ns"] - start["start_ns"]
        pairing0 = pairing if pairing0 is None else pairing0
        pid = 5000 + r
        kernels = sorted((s["ts"], s["dur"]) for s in trace.slices
                         if s["cat"] == "kernel" and trace.process_of(s["track"]).process.pid == pid)
        want = sorted((k["start_ns"] + pairing - pairing0, k["end_ns"] - k["start_ns"]) for k in log["kernel_event"])
        assert kernels == want
        flows = {f for s in trace.slices if trace.process_of(s["track"]).process.pid == pid for f in s["flows"]}
        assert flows and all(f >> 56 == r + 1 for f in flows)  # no flow crosses ranks


def test_python_compare_ranks_is_the_same_report(prefixes):
    from gpufl import report

    text = report.compare_ranks(prefixes)
    cli = run("report", *prefixes).stdout
    strip = lambda t: re.sub(r"Generated: .*", "", t).strip()  # noqa: E731
    assert strip(text) == strip(cli)
    with pytest.raises(FileNotFoundError):
        report.compare_ranks([prefixes[0], prefixes[0] + "_missing"])
