"""`gpufl agent --otlp`: the requests are decoded with the official opentelemetry-proto package and the span
tree, attributes and metric points checked against the log they came from (data/sample)."""
from __future__ import annotations

import json
import shutil

import pytest

from agent_harness import Agent, Receiver, require_tools, wait_for

SID = "5e55b0b0"


def log_records(prefix, channel):
    out = []
    for line in open(f"{prefix}.{channel}.log"):
        rec = json.loads(line)
        if rec.get("sid") == SID:
            out.append(rec)
    return out


def attrs(kvs):
    out = {}
    for kv in kvs:
        v = kv.value
        out[kv.key] = getattr(v, v.WhichOneof("value"))
    return out


def test_otlp_span_tree_and_metrics_match_the_log(tmp_path, data_dir):
    require_tools()
    pytest.importorskip("opentelemetry.proto")
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    logs = tmp_path / "logs"
    logs.mkdir()
    for c in ("device", "scope", "system"):
        shutil.copy(data_dir / f"sample.{c}.log", logs)
    prefix = logs / "sample"
    receiver = Receiver()
    agent = Agent(tmp_path, receiver.url, [prefix], extra=["--otlp", receiver.base])
    agent.start()
    try:
        # data/sample holds two sessions: traces of both, metrics of the one with samples.
        wait_for(lambda: len({p for p, _ in receiver.otlp}) == 2 and len(receiver.otlp) >= 3, 30, "OTLP requests")
        m = agent.metrics()
    finally:
        agent.stop()
        receiver.close()

    spans, resources, points = [], [], []
    for path, body in receiver.otlp:
        if path == "/v1/traces":
            req = ExportTraceServiceRequest.FromString(body)
            for rs in req.resource_spans:
                res = attrs(rs.resource.attributes)
                if res["gpufl.session_id"].startswith(SID):
                    resources.append(res)
                    for ss in rs.scope_spans:
                        assert ss.scope.name == "gpufl"
                        spans.extend(ss.spans)
        else:
            assert path == "/v1/metrics"
            req = ExportMetricsServiceRequest.FromString(body)
            for rm in req.resource_metrics:
                if attrs(rm.resource.attributes)["gpufl.session_id"].startswith(SID):
                    for sm in rm.scope_metrics:
                        for metric in sm.metrics:
                            for p in metric.gauge.data_points:
                                points.append((metric.name, metric.unit, p.time_unix_nano, p.as_double,
                                               attrs(p.attributes)))

    start = next(r for r in log_records(prefix, "device") if r["type"] == "session_start")
    to_unix = lambda ns: start["start_unix_ns"] + ns - start["start_ns"]  # noqa: E731
    res = resources[0]
    assert res["service.name"] == start["app"]
    assert res["host.name"] == start["host"]
    assert res["process.pid"] == start["pid"]
    assert res["gpufl.session_id"] == start["session_id"]
    for dev in start.get("devices", []):
        assert dev["uuid"] in res["gpufl.gpu.uuid"]
    trace_ids = {s.trace_id for s in spans}
    assert len(trace_ids) == 1 and len(next(iter(trace_ids))) == 16

    # Scopes: one span per instance, nested under the instance open on the same thread.
    scope_recs = log_records(prefix, "scope")
    begins = [r for r in scope_recs if r["type"] == "scope_begin"]
    ends = {r["id"]: r["ts_ns"] for r in scope_recs if r["type"] == "scope_end"}
    end_ns = next(r for r in scope_recs if r["type"] == "session_end")["end_ns"]
    scope_spans = {s.span_id: s for s in spans if attrs(s.attributes)["gpufl.kind"] == "scope"}
    assert len(scope_spans) == len(begins)
    by_id = {}
    for b in begins:
        span = next(s for s in scope_spans.values()
                    if s.name == b["name"] and s.start_time_unix_nano == to_unix(b["ts_ns"]))
        by_id[b["id"]] = span
        assert span.end_time_unix_nano == to_unix(ends.get(b["id"], end_ns))
        assert attrs(span.attributes)["thread.id"] == b["tid"]
    open_scopes = {}
    for r in sorted(scope_recs, key=lambda r: r.get("ts_ns", 0)):
        if r["type"] == "scope_begin":
            parent = open_scopes.get(r["tid"], [])
            expected = by_id[parent[-1]].span_id if parent else b""
            assert by_id[r["id"]].parent_span_id == expected, r
            open_scopes.setdefault(r["tid"], []).append(r["id"])
        elif r["type"] == "scope_end":
            open_scopes[r["tid"]].remove(r["id"])

    # Kernels: one span per execution, the launch shape and occupancy of its kernel_def, times on the
    # session's wall clock, parent the instance of its scope path open latest before it started.
    dev = log_records(prefix, "device")
    defs = {r["k"]: r for r in dev if r["type"] == "kernel_def"}
    kernel_spans = {attrs(s.attributes)["gpufl.kernel.correlation_id"]: s for s in spans
                    if attrs(s.attributes)["gpufl.kind"] == "kernel"}
    events = [r for r in dev if r["type"] == "kernel_event"]
    assert len(kernel_spans) == len(events) == next(r for r in dev if r["type"] == "session_end")["kernels"]
    t = corr = 0
    for e in events:
        if "start_ns" in e:
            t, corr = e["start_ns"], e["corr"]
        else:
            t, corr = t + e["dt_ns"], corr + e["dcorr"]
        span = kernel_spans[corr]
        d = defs[e["k"]]
        a = attrs(span.attributes)
        assert span.name == d["demangled"]
        assert span.start_time_unix_nano == to_unix(t)
        assert span.end_time_unix_nano == to_unix(t + e["dur_ns"])
        assert a["gpufl.kernel.grid"] == d["grid"] and a["gpufl.kernel.block"] == d["block"]
        assert a["gpufl.kernel.num_regs"] == d["num_regs"]
        assert a["gpufl.kernel.occupancy"] == pytest.approx(d["occupancy"])
        assert a["gpufl.kernel.limiting_resource"] == d["limiting_resource"]
        assert a["gpufl.kernel.max_active_blocks"] == d["max_active_blocks"]
        if e["scope"] == 0:
            assert span.parent_span_id == b""
        else:
            candidates = [b for b in begins if b["p"] == e["scope"] and b["ts_ns"] <= t]
            assert span.parent_span_id == by_id[max(candidates, key=lambda b: b["ts_ns"])["id"]].span_id

    # Samples: NVML and host readings as gauge points at their own times.
    system = log_records(prefix, "system")
    gpu_samples = [r for r in system if r["type"] == "system_sample" and "gpu" in r]
    util = sorted((p[2], p[3], p[4]["gpu"]) for p in points if p[0] == "gpu.utilization")
    assert util == sorted((to_unix(r["ts_ns"]), r["util_gpu"] / 100, r["gpu"]) for r in gpu_samples)
    power = sorted((p[2], p[3]) for p in points if p[0] == "gpu.power")
    assert power == sorted((to_unix(r["ts_ns"]), r["power_mw"] / 1000) for r in gpu_samples)
    assert all(p[1] == "W" for p in points if p[0] == "gpu.power")
    assert m["gpufl_agent_otlp_spans_total"] >= len(kernel_spans) + len(scope_spans)
