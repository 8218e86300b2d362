"""Reads what `gpufl export` writes back into plain Python, independently of the exporter: Perfetto traces through
Perfetto's own generated protobuf classes (PyPI `perfetto`), Chrome JSON through `json`, and the log itself
through `gpufl cat` (one NDJSON record per line, kernel times absolute)."""
import collections
import json
import os
import subprocess

import pytest


def cli():
    """The gpufl executable: $GPUFL_CLI, else the one inside the installed package."""
    if os.environ.get("GPUFL_CLI"):
        return os.environ["GPUFL_CLI"]
    from gpufl import _cli

    return _cli.executable()


def run(*args, check=True):
    p = subprocess.run([cli(), *map(str, args)], capture_output=True, text=True, timeout=300)
    if check:
        assert p.returncode == 0, p.stderr
    return p


def log_records(prefix):
    """The latest session of `prefix` in the order the log stores it (gpufl cat --by-channel), by record type."""
    out = run("cat", "--by-channel", prefix).stdout
    by_type = collections.defaultdict(list)
    for line in out.splitlines():
        r = json.loads(line)
        by_type[r["type"]].append(r)
    return by_type


Slice = collections.namedtuple("Slice", "track ts dur name cat args flows depth parent order")


class PerfettoTrace:
    """Tracks, slices (paired and nested per track as a viewer does), counters and interning of one trace."""

    def __init__(self, path):
        pb = pytest.importorskip("perfetto.protos.perfetto.trace.perfetto_trace_pb2")
        trace = pb.Trace()
        with open(path, "rb") as f:
            trace.ParseFromString(f.read())
        self.size = os.path.getsize(path)
        self.tracks = {}  # uuid -> TrackDescriptor
        self.interned_entries = collections.Counter()  # (seq, kind) -> entries written
        tables = {}
        events = collections.defaultdict(list)  # track -> [(ts, order, type, name, cats, args, flows, value)]
        for order, p in enumerate(trace.packet):
            seq = p.trusted_packet_sequence_id
            if p.HasField("track_descriptor"):
                d = p.track_descriptor
                assert d.uuid not in self.tracks, f"track {d.uuid} described twice"
                self.tracks[d.uuid] = d
                continue
            if not p.HasField("track_event"):
                continue
            if p.sequence_flags & pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED:
                tables[seq] = {k: {} for k in ("names", "cats", "args", "strs")}
            assert p.sequence_flags & pb.TracePacket.SEQ_NEEDS_INCREMENTAL_STATE
            tab = tables[seq]  # KeyError: interned data used before the state was cleared
            i = p.interned_data
            for kind, entries, attr in (("names", i.event_names, "name"), ("cats", i.event_categories, "name"),
                                        ("args", i.debug_annotation_names, "name"),
                                        ("strs", i.debug_annotation_string_values, "str")):
                for e in entries:
                    assert e.iid not in tab[kind], f"iid {e.iid} of {kind} interned twice on sequence {seq}"
                    value = getattr(e, attr)
                    tab[kind][e.iid] = value.decode() if isinstance(value, bytes) else value
                    self.interned_entries[(seq, kind)] += 1
            te = p.track_event
            args = {}
            for a in te.debug_annotations:
                which = a.WhichOneof("value")
                value = tab["strs"][a.string_value_iid] if which == "string_value_iid" else getattr(a, which)
                args[tab["args"][a.name_iid]] = value
            name = tab["names"][te.name_iid] if te.name_iid else te.name
            cats = [tab["cats"][c] for c in te.category_iids]
            value = te.double_counter_value if te.HasField("double_counter_value") else None
            events[te.track_uuid].append((p.timestamp, order, te.type, name, cats, args, list(te.flow_ids), value))
        self.slices, self.counters, self.instants = [], collections.defaultdict(list), []
        for track, evs in events.items():
            assert track in self.tracks, f"event on undescribed track {track}"
            evs.sort(key=lambda e: (e[0], e[1]))  # as trace processor sorts: by time, then as written
            stack = []
            for ts, order, typ, name, cats, args, flows, value in evs:
                if typ == pb.TrackEvent.TYPE_SLICE_BEGIN:
                    parent = stack[-1] if stack else None
                    s = dict(track=track, ts=ts, dur=None, name=name, cat=cats[0] if cats else "", args=args,
                             flows=flows, depth=len(stack), parent=parent, order=order)
                    stack.append(s)
                    self.slices.append(s)
                elif typ == pb.TrackEvent.TYPE_SLICE_END:
                    assert stack, f"end without begin on track {self.track_name(track)} at {ts}"
                    s = stack.pop()
                    s["dur"] = ts - s["ts"]
                elif typ == pb.TrackEvent.TYPE_COUNTER:
                    self.counters[track].append((ts, value))
                elif typ == pb.TrackEvent.TYPE_INSTANT:
                    self.instants.append(dict(track=track, ts=ts, name=name, cat=cats[0] if cats else "", args=args))

    def track_name(self, uuid):
        d = self.tracks[uuid]
        if d.HasField("thread"):
            return f"thread {d.thread.tid}"
        if d.HasField("process"):
            return d.process.process_name
        return d.name

    def process_of(self, uuid):
        """The process descriptor a track belongs to (itself for a process track)."""
        d = self.tracks[uuid]
        while not d.HasField("process"):
            d = self.tracks[d.parent_uuid]
        return d

    def counter_named(self, name, pid=None):
        for uuid, d in self.tracks.items():
            if d.HasField("counter") and d.name == name and (pid is None or self.process_of(uuid).process.pid == pid):
                return self.counters.get(uuid, [])
        return None
