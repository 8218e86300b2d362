"""`gpufl export --perfetto / --chrome`: the output decoded with Perfetto's own protos (and json), every value
checked against the log as `gpufl cat` prints it, on the real H200 fixtures and the synthetic `sample` session
(two threads of nested scopes, one left open, kernels out of start order, deep data)."""
import collections

import pytest

from trace_decode import PerfettoTrace, log_records, run
from conftest import DATA, REPO

H200 = REPO / "tests" / "data" / "h200"
PREFIXES = [H200 / n for n in ("kernel_zoo_trace", "matmul_tiling", "memory_coalescing", "occupancy_reduction",
                               "pytorch_train_trace", "range_per_kernel", "sass_divergence")] + [DATA / "sample"]
IDS = [p.name for p in PREFIXES]


@pytest.fixture(scope="module", params=PREFIXES, ids=IDS)
def exported(request, tmp_path_factory):
    prefix = request.param
    out = tmp_path_factory.mktemp("export") / f"{prefix.name}.pftrace"
    run("export", "--perfetto", out, prefix)
    return PerfettoTrace(out), log_records(prefix)


def kernel_slices(trace):
    return [s for s in trace.slices if s["cat"] == "kernel"]


def test_every_kernel_is_a_slice_with_its_definition(exported):
    trace, log = exported
    defs = {d["k"]: d for d in log["kernel_def"]}
    by_corr = {(s["args"]["correlation_id"], s["ts"]): s for s in kernel_slices(trace)}
    assert len(by_corr) == len(kernel_slices(trace)) == len(log["kernel_event"])
    for k in log["kernel_event"]:
        s, d = by_corr[(k["corr"], k["start_ns"])], defs[k["k"]]
        assert (s["ts"], s["dur"]) == (k["start_ns"], k["end_ns"] - k["start_ns"])
        assert s["name"] == d["demangled"]
        assert trace.track_name(s["track"]).startswith(f"GPU {d['device']} stream {k['stream']}")
        assert "copies" not in trace.track_name(s["track"])
        assert s["depth"] == 0
        a = s["args"]
        for field in ("grid", "block", "num_regs", "static_shared_bytes", "dyn_shared_bytes"):
            assert a[field] == d[field], field
        if "occupancy" in d:
            assert a["occupancy"] == pytest.approx(d["occupancy"], abs=0)
            assert a["limiting_resource"] == d["limiting_resource"]
            assert a["max_active_blocks"] == d["max_active_blocks"]
        assert a.get("instrumented", False) == k.get("instr", False)


def test_copies_and_memsets_on_their_stream(exported):
    trace, log = exported
    copies = [s for s in trace.slices if s["cat"] in ("memcpy", "memset")]
    by_corr = {(s["args"]["correlation_id"], s["ts"]): s for s in copies}
    expected = log["memcpy_event"] + log["memset_event"]
    assert len(copies) == len(expected)
    for m in expected:
        s = by_corr[(m["corr"], m["start_ns"])]
        assert s["dur"] == m["dur_ns"] and s["args"]["bytes"] == m["bytes"]
        assert trace.track_name(s["track"]).startswith(f"GPU {m['device']} stream {m['stream']} copies")
        if m["type"] == "memcpy_event":
            assert s["name"] == "memcpy " + m["kind"] and s["args"]["kind"] == m["kind"]
        else:
            assert s["name"] == "memset"


def test_scopes_nest_per_thread_as_logged(exported):
    trace, log = exported
    scopes = {s["args"]["scope_id"]: s for s in trace.slices if "scope_id" in s["args"]}
    assert len(scopes) == len(log["scope_begin"])
    ends = {e["id"]: e for e in log["scope_end"]}
    open_by_tid = collections.defaultdict(list)  # the log's own nesting: per thread, in record order
    events = sorted([(b["ts_ns"], 1, b) for b in log["scope_begin"]] + [(e["ts_ns"], 0, e) for e in log["scope_end"]],
                    key=lambda x: (x[0], x[1]))
    expected_parent = {}
    for _, is_begin, r in events:
        stack = open_by_tid[r["tid"]]
        if is_begin:
            expected_parent[r["id"]] = stack[-1] if stack else None
            stack.append(r["id"])
        else:
            stack.remove(r["id"])
    for b in log["scope_begin"]:
        s = scopes[b["id"]]
        d = trace.tracks[s["track"]]
        assert d.HasField("thread") and d.thread.tid == b["tid"]
        assert s["name"] == b["name"] and s["ts"] == b["ts_ns"] and s["args"]["path"] == b["p"]
        assert s["cat"] == (b["tag"] or "scope")
        assert s["dur"] == (ends[b["id"]]["ts_ns"] - b["ts_ns"] if b["id"] in ends else None)
        parent = s["parent"]["args"]["scope_id"] if s["parent"] else None
        assert parent == expected_parent[b["id"]]


def test_flows_link_each_kernel_to_the_scope_that_launched_it(exported):
    trace, log = exported
    scope_flow = {s["args"]["scope_id"]: s["flows"] for s in trace.slices if "scope_id" in s["args"]}
    begins = collections.defaultdict(list)
    for b in log["scope_begin"]:
        begins[b["p"]].append((b["ts_ns"], b["id"]))
    by_corr = {(s["args"]["correlation_id"], s["ts"]): s for s in kernel_slices(trace)}
    linked = 0
    for k in log["kernel_event"]:
        s = by_corr[(k["corr"], k["start_ns"])]
        before = [i for ts, i in sorted(begins.get(k.get("scope", 0), [])) if ts <= k["start_ns"]]
        if k.get("scope", 0) == 0 or not before:
            assert s["flows"] == []
            continue
        assert len(s["flows"]) == 1 and s["flows"] == scope_flow[before[-1]]
        linked += 1
    if any(k.get("scope", 0) for k in log["kernel_event"]):
        assert linked > 0


def test_samples_are_counter_tracks(exported):
    trace, log = exported
    fields = ("util_gpu", "util_mem", "mem_used_bytes", "temp_c", "power_mw", "clk_sm", "clk_mem")
    for field in fields:
        for gpu in {r["gpu"] for r in log["system_sample"]}:
            want = [(r["ts_ns"], float(r[field])) for r in log["system_sample"] if r["gpu"] == gpu and field in r]
            if want:
                assert sorted(trace.counter_named(f"GPU {gpu} {field}")) == sorted(want), field
    for field in ("cpu_pct", "proc_cpu_pct", "ram_used_bytes", "proc_rss_bytes"):
        want = [(r["ts_ns"], float(r[field])) for r in log["host_sample"] if field in r]
        if want:
            assert sorted(trace.counter_named(f"host {field}")) == sorted(want), field


def test_deep_data_is_on_every_launch_of_its_function(exported):
    trace, log = exported
    sass = collections.defaultdict(lambda: [0, 0, 0, 0])
    for m in log["sass_metric"]:
        t = sass[m["func"]]
        t[0] += m["inst_executed"]
        t[1] += m["thread_inst_executed"]
        t[2] += m["sectors_global"]
        t[3] += m["sectors_global_ideal"]
    stalls = collections.defaultdict(collections.Counter)
    for p in log["pc_sample"]:
        stalls[p["func"]][p["stall"]] += p["count"]
    defs = {d["k"]: d for d in log["kernel_def"]}
    by_corr = {(s["args"]["correlation_id"], s["ts"]): s for s in kernel_slices(trace)}
    for k in log["kernel_event"]:
        a, func = by_corr[(k["corr"], k["start_ns"])]["args"], defs[k["k"]]["name"]
        if func in sass:
            inst, thread_inst, sectors, ideal = sass[func]
            assert a["memory_efficiency_pct"] == pytest.approx(100.0 * ideal / sectors if sectors else 100.0)
            assert a["warp_efficiency_pct"] == pytest.approx(100.0 * thread_inst / inst / 32 if inst else 0)
        else:
            assert "memory_efficiency_pct" not in a
        if func in stalls:
            total = sum(stalls[func].values())
            top = sorted(stalls[func].items(), key=lambda kv: (-kv[1], kv[0]))[0]
            assert a["stall_samples"] == total
            assert a["top_stalls"].startswith(f"{top[0]} {round(100 * top[1] / total)}%")
        else:
            assert "top_stalls" not in a


def test_names_are_interned_once_per_sequence(exported):
    trace, log = exported
    distinct = {s["name"] for s in trace.slices}
    names = sum(n for (seq, kind), n in trace.interned_entries.items() if kind == "names")
    assert names == len(distinct)
    if len(log["kernel_event"]) > 1000:  # repeated kernels cost ids, not names (Kineto's JSON: ~1,200 B)
        assert trace.size / len(log["kernel_event"]) < 160


def test_compact_kernel_args_carry_the_same_values_in_fewer_bytes(tmp_path):
    prefix = H200 / "pytorch_train_trace"
    run("export", "--perfetto", tmp_path / "full.pftrace", prefix)
    run("export", "--compact", "--perfetto", tmp_path / "compact.pftrace", prefix)
    full, compact = PerfettoTrace(tmp_path / "full.pftrace"), PerfettoTrace(tmp_path / "compact.pftrace")
    log = log_records(prefix)
    assert compact.size / len(log["kernel_event"]) < 100 < full.size / len(log["kernel_event"])
    by_corr = {(s["args"]["correlation_id"], s["ts"]): s for s in kernel_slices(full)}
    for s in kernel_slices(compact):
        a, f = s["args"], by_corr[(s["args"]["correlation_id"], s["ts"])]["args"]
        assert set(a) == {"correlation_id", "launch"}
        fields = dict(part.split("=", 1) for part in a["launch"].split("; "))
        assert fields["grid"] == f["grid"] and int(fields["num_regs"]) == f["num_regs"]
        assert float(fields["occupancy"]) == pytest.approx(f["occupancy"], rel=1e-3)


def test_one_process_per_session(exported):
    trace, log = exported
    procs = [d for d in trace.tracks.values() if d.HasField("process")]
    assert len(procs) == 1
    start = log["session_start"][0]
    assert procs[0].process.pid == start["pid"] and procs[0].process.process_name.startswith(start["app"])


def test_sample_fixture_exercises_what_the_checks_need():
    """The synthetic session must really contain what the checks above compare (else they prove nothing)."""
    log = log_records(DATA / "sample")
    assert log["sass_metric"] and log["pc_sample"] and log["memset_event"]
    assert len({b["tid"] for b in log["scope_begin"]}) == 2 and len(log["scope_end"]) < len(log["scope_begin"])
    assert any(k.get("scope") for k in log["kernel_event"])
    starts = [k["start_ns"] for k in log["kernel_event"]]
    assert starts != sorted(starts)


def test_missing_prefix_fails_with_a_message(tmp_path):
    p = run("export", "--perfetto", tmp_path / "x.pftrace", tmp_path / "nothing", check=False)
    assert p.returncode != 0 and "nothing" in p.stderr


def test_an_output_is_required(tmp_path):
    p = run("export", DATA / "sample", check=False)
    assert p.returncode == 2 and "--perfetto" in p.stderr


INCIDENT_CASES = ["incident_cuda_error", "incident_hang", "incident_oom", "incident_signal", "incident_terminate",
                  "incident_dump"]


@pytest.mark.parametrize("case", INCIDENT_CASES)
def test_incidents_are_instants_on_their_track(case, tmp_path):
    """Each incident of the golden sessions (tests/golden/incident_*) is one instant `<kind>: <reason>` at its time on
    the process's "incidents" track, with its error and suspects as arguments."""
    prefix = REPO / "tests" / "golden" / case / "case"
    out = tmp_path / "t.pftrace"
    run("export", "--perfetto", out, prefix)
    trace = PerfettoTrace(out)
    log = log_records(prefix)
    want = [(r["ts_ns"], f"{r['kind']}: {r['reason']}") for r in log["incident"]]
    assert want and sorted((i["ts"], i["name"]) for i in trace.instants) == sorted(want)
    for i, r in zip(sorted(trace.instants, key=lambda i: i["ts"]), sorted(log["incident"], key=lambda r: r["ts_ns"])):
        assert trace.track_name(i["track"]) == "incidents" and i["cat"] == "incident"
        assert i["args"]["in_flight"] == r.get("in_flight_count", 0)
        if "error_code" in r:
            assert i["args"]["error_code"] == r["error_code"]
        suspects = [x["name"] for x in r.get("in_flight", []) if x.get("suspect")]
        assert i["args"].get("suspects", "") == "\n".join(suspects)

