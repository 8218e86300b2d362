"""The column tables against the log format's field tables (src/core/record_schema.hpp, exposed as
_gpufl.record_schema()): every field of every record reaches Python, as a column of its table (or a key of the
session dict) under its JSON key or under the name listed here."""
from gpufl import _gpufl as C

# record type -> the load_session table (None: the session dict)
TABLES = {
    "session_start": None,
    "session_end": None,
    "device": None,
    "note": "notes",
    "kernel_def": "kernel_defs",
    "kernel_event": "kernels",
    "memcpy_event": "memcpy",
    "sync_event": "syncs",
    "memory_event": "memory",
    "stack": "stacks",
    "scope_path": "scope_paths",
    "scope_begin": "scopes",
    "scope_end": "scopes",
    "system_sample": "gpu_samples",
    "host_sample": "host_samples",
    "sass_metric": "sass_metrics",
    "pc_sample": "pc_samples",
    "range_counters": "range_counters",
    "benchmark": "benchmarks",
    "incident": "incidents",
    "health": "health",
}

# Lists of objects inside a record: their own table (the list's key itself is no column).
LIST_TABLES = {
    ("incident", "in_flight"): "incident_launches",
    ("incident", "blocked"): "incident_blocked",
    ("incident", "last_kernels"): "incident_last_kernels",
    ("health", "examples"): "health_examples",
}

# (record type, key) -> the columns that carry it, where that is not the key itself.
RENAMED = {
    ("memcpy_event", "type"): ["is_memset"],
    ("memcpy_event", "dur_ns"): ["end_ns"],
    ("sync_event", "dur_ns"): ["end_ns"],
    ("memory_event", "op"): ["is_free"],
    ("memory_event", "kind"): ["memory_kind"],
    ("scope_begin", "ts_ns"): ["start_ns"],
    ("scope_end", "ts_ns"): ["end_ns"],
    ("range_counters", "metrics"): ["metric", "value"],  # one row per metric
    ("session_start", "options"): ["options_json"],
    ("session_end", "kernels"): ["kernels_written"],
    ("session_end", "memcpys"): ["memcpys_written"],
    ("session_end", "scopes"): ["scopes_written"],
}


def test_every_field_of_every_record_reaches_its_table(data_dir):
    schema = C.record_schema()
    assert set(schema) == set(TABLES)
    loaded = C.load_session(str(data_dir / "sample"))
    session, tables = loaded["session"], loaded["tables"]
    assert session["devices"], "the sample has devices: their keys are checked below"
    device_keys = set(session["devices"][0])
    missing = []
    for rtype, record in schema.items():
        table = TABLES[rtype]
        columns = set(session) if table is None else set(tables[table])
        for f in record["fields"]:
            if f["kind"] == "object":  # flattened: its own rows follow with `parent` set
                continue
            if (rtype, f["key"]) in LIST_TABLES:  # its own table; its rows follow with `parent` set
                if LIST_TABLES[(rtype, f["key"])] not in tables:
                    missing.append(f"{rtype}.{f['key']} -> no table {LIST_TABLES[(rtype, f['key'])]}")
                continue
            have = device_keys if f["parent"] in ("device", "devices") else columns
            if (rtype, f["parent"]) in LIST_TABLES:
                have = set(tables[LIST_TABLES[(rtype, f["parent"])]])
            for column in RENAMED.get((rtype, f["key"]), [f["key"]]):
                if column not in have:
                    missing.append(f"{rtype}.{f['key']} -> {table or 'session'}[{column!r}]")
    assert not missing, "fields with no column:\n" + "\n".join(missing)


def test_rows_carry_kind_presence_and_unit():
    k = {f["key"]: f for f in C.record_schema()["kernel_event"]["fields"]}
    assert k["k"]["presence"] == "required" and k["k"]["kind"] == "uint"
    assert k["instr"]["presence"] == "omit_default" and k["instr"]["kind"] == "bool"
    assert k["start_ns"]["unit"] == "ns"
    assert C.record_schema()["system_sample"]["channel"] == "system"
