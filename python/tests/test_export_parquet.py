"""`gpufl export --parquet DIR`: every table read back by three independent readers (pyarrow, polars, DuckDB), its
values against the log (`gpufl cat`), the log's units in the files' metadata, and files of several row groups,
pages, nulls and a dictionary that outgrows its bound (a synthetic log)."""
import collections
import json
import re

import pytest

from conftest import DATA, REPO
from trace_decode import log_records, run

pq = pytest.importorskip("pyarrow.parquet")
pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")

H200 = REPO / "tests" / "data" / "h200"
PREFIXES = [DATA / "sample", H200 / "memory_coalescing", H200 / "range_per_kernel", H200 / "pytorch_train_trace"]
TABLES = ["sessions", "session_ends", "devices", "notes", "kernel_defs", "kernels", "copies", "syncs",
          "memory_events", "stacks", "scope_paths", "scopes", "gpu_samples", "host_samples", "sass_metrics",
          "pc_samples", "range_counters", "benchmarks", "incidents", "health"]


@pytest.fixture(scope="module", params=PREFIXES, ids=[p.name for p in PREFIXES])
def exported(request, tmp_path_factory):
    out = tmp_path_factory.mktemp("parquet") / request.param.name
    p = run("export", "--parquet", out, request.param)
    assert p.stdout.startswith(f"{out}: parquet, 1 session, ")
    return out, log_records(request.param)


def sql(query):
    """The rows of a DuckDB query, on a connection of its own."""
    with duckdb.connect() as con:
        return con.execute(query).fetchall()


def table(out, name):
    return pq.read_table(out / f"{name}.parquet").to_pylist()


def test_every_table_is_written_and_read_alike_by_the_three_readers(exported):
    out, _ = exported
    assert sorted(p.stem for p in out.glob("*.parquet")) == sorted(TABLES)
    for name in TABLES:
        path = str(out / f"{name}.parquet")
        arrow = pq.read_table(path)
        polars = pl.read_parquet(path)
        assert polars.columns == arrow.column_names and polars.height == arrow.num_rows, name
        rows = sql(f"SELECT COUNT(*) FROM read_parquet('{path}')")[0][0]
        assert rows == arrow.num_rows, name
        if arrow.num_rows:
            assert polars.to_dicts() == arrow.to_pylist(), name  # every value, every type, every null
            assert sql(f"SELECT * FROM read_parquet('{path}')") == \
                [tuple(r.values()) for r in arrow.to_pylist()], name


def test_kernels_are_the_log_s_launches(exported):
    out, log = exported
    want = {(k["corr"], k["start_ns"]): k for k in log["kernel_event"]}
    got = table(out, "kernels")
    assert len(got) == len(want)
    for r in got:
        k = want[(r["corr"], r["start_ns"])]
        assert r["dur_ns"] == k["end_ns"] - k["start_ns"] and r["k"] == k["k"]
        assert (r["stream"], r["scope"], r["stack"], r["graph"], r["instr"]) == \
            (k["stream"], k.get("scope", 0), k.get("stack", 0), k.get("graph", 0), k.get("instr", False))
        assert r["sid"] == k["sid"]
    schema = pq.read_schema(out / "kernels.parquet")
    assert str(schema.field("corr").type) == "uint64" and str(schema.field("k").type) == "uint32"
    assert str(schema.field("instr").type) == "bool" and str(schema.field("sid").type) == "string"


def test_kernel_defs_carry_every_field_of_the_log(exported):
    out, log = exported
    got = {r["k"]: r for r in table(out, "kernel_defs")}
    assert len(got) == len(log["kernel_def"])
    for d in log["kernel_def"]:
        r = got[d["k"]]
        assert (r["name"], r["demangled"], r["num_regs"]) == (d["name"], d.get("demangled", d["name"]), d["num_regs"])
        assert "(%d,%d,%d)" % (r["grid_x"], r["grid_y"], r["grid_z"]) == d["grid"]
        if "occupancy" in d:
            assert r["occupancy"] == d["occupancy"] and r["limiting_resource"] == d["limiting_resource"]
        else:
            assert r["occupancy"] is None and r["limiting_resource"] is None


def test_copies_scopes_and_samples(exported):
    out, log = exported
    copies = table(out, "copies")
    assert len(copies) == len(log["memcpy_event"]) + len(log["memset_event"])
    assert sum(r["is_memset"] for r in copies) == len(log["memset_event"])
    assert sum(r["bytes"] for r in copies) == sum(c["bytes"] for c in log["memcpy_event"] + log["memset_event"])
    ends = {e["id"]: e["ts_ns"] for e in log["scope_end"]}
    scopes = {r["id"]: r for r in table(out, "scopes")}
    assert len(scopes) == len(log["scope_begin"])
    for b in log["scope_begin"]:
        r = scopes[b["id"]]
        assert (r["tid"], r["start_ns"], r["p"], r["name"]) == (b["tid"], b["ts_ns"], b["p"], b["name"])
        assert r["dur_ns"] == (ends[b["id"]] - b["ts_ns"] if b["id"] in ends else None)
    assert len(table(out, "gpu_samples")) == len(log["system_sample"])
    assert len(table(out, "host_samples")) == len(log["host_sample"])
    assert len(table(out, "sass_metrics")) == len(log["sass_metric"])
    assert len(table(out, "pc_samples")) == len(log["pc_sample"])
    assert len(table(out, "sessions")) == 1 and len(table(out, "session_ends")) == 1


def test_units_of_the_log_are_in_the_metadata(exported):
    out, _ = exported
    meta = pq.read_schema(out / "kernels.parquet").metadata
    assert meta[b"gpufl.table"] == b"kernels" and meta[b"gpufl.record"] == b"kernel_event"
    assert json.loads(meta[b"gpufl.units"]) == {"dur_ns": "ns", "start_ns": "ns"}
    units = json.loads(pq.read_schema(out / "gpu_samples.parquet").metadata[b"gpufl.units"])
    assert units["power_mw"] == "mW" and units["temp_c"] == "C" and units["ts_ns"] == "ns"


def test_top_kernels_in_duckdb_and_polars_match_the_log(exported):
    out, log = exported
    defs = {d["k"]: d["name"] for d in log["kernel_def"]}
    want = collections.Counter()
    for k in log["kernel_event"]:
        want[defs[k["k"]]] += k["end_ns"] - k["start_ns"]
    top = sql(f"""SELECT d.name, SUM(k.dur_ns) AS total_ns
                  FROM read_parquet('{out}/kernels.parquet') k
                  JOIN read_parquet('{out}/kernel_defs.parquet') d USING (sid, k)
                  GROUP BY d.name ORDER BY total_ns DESC""")
    assert dict(top) == dict(want)
    k = pl.read_parquet(out / "kernels.parquet").join(pl.read_parquet(out / "kernel_defs.parquet"), on=["sid", "k"])
    top = k.group_by("name").agg(pl.col("dur_ns").sum())
    assert dict(zip(top["name"], top["dur_ns"])) == dict(want)


def test_the_docs_queries_run(exported):
    """docs/export.md's Parquet examples (DuckDB SQL, polars) on a real export: the top kernels of the log."""
    out, log = exported
    doc = (REPO / "docs" / "export.md").read_text().split("\n## Parquet")[1]
    query = re.search(r"```sql\n(.*?)```", doc, re.S).group(1).replace("'run/", f"'{out}/")
    code = re.search(r"```python\n(.*?)```", doc, re.S).group(1).replace('"run/', f'"{out}/')
    rows = sql(query)
    lines = code.strip().splitlines()
    scope = {}
    exec("\n".join(lines[:-1]), scope)  # the import and the lazy join
    top = eval(lines[-1], scope)  # the expression the doc shows the result of
    if log["kernel_event"]:
        assert rows and rows[0][2] == max(r[2] for r in rows)
        assert sum(r[1] for r in rows) <= len(log["kernel_event"])
        assert top["name"].to_list() == [r[0] for r in rows] and top["dur_ns"].to_list() == [r[2] for r in rows]


def test_several_prefixes_go_into_one_set_of_tables(tmp_path):
    out = tmp_path / "ranks"
    p = run("export", "--parquet", out, H200 / "gloo_rank0", H200 / "gloo_rank1")
    assert ": parquet, 2 sessions, " in p.stdout
    kernels = pq.read_table(out / "kernels.parquet")
    sids = set(kernels.column("sid").to_pylist())
    assert len(sids) == 2
    assert kernels.num_rows == sum(len(log_records(H200 / f"gloo_rank{r}")["kernel_event"]) for r in (0, 1))
    joined = sql(f"""SELECT COUNT(*) FROM read_parquet('{out}/kernels.parquet') k
                            JOIN read_parquet('{out}/kernel_defs.parquet') d USING (sid, k)""")[0][0]
    assert joined == kernels.num_rows


def _synthetic(prefix, kernels, defs):
    """A session of `kernels` launches over `defs` definitions with long distinct names (their dictionary passes
    the writer's 1 MiB bound), every third without occupancy (nulls), one scope that never ends."""
    sid = "abcdef01"
    lines = [{"type": "session_start", "sid": sid, "session_id": sid + "-0000-4000-8000-000000000000",
              "start_ns": 1_000_000, "start_unix_ns": 1_780_000_000_000_000_000, "app": "big"}]
    for d in range(1, defs + 1):
        rec = {"type": "kernel_def", "sid": sid, "k": d, "name": f"_Z{d}_{'x' * 60}", "grid": f"({d},1,1)",
               "block": "(128,1,1)", "num_regs": d % 255}
        if d % 3:
            rec.update(occupancy=0.5, reg_occupancy=1, smem_occupancy=1, warp_occupancy=0.5, block_occupancy=1,
                       limiting_resource="warps", max_active_blocks=8)
        lines.append(rec)
    t = 2_000_000
    for i in range(kernels):
        t += 1000 + i % 7
        lines.append({"type": "kernel_event", "sid": sid, "k": 1 + (i * 7919) % defs, "stream": 7 + i % 3,
                      "dur_ns": 500 + i % 11, "start_ns": t, "corr": i + 1})
    lines.append({"type": "session_end", "sid": sid, "end_ns": t + 10_000, "kernels": kernels})
    with open(f"{prefix}.device.log", "w") as f:
        f.write("\n".join(json.dumps(r, separators=(",", ":")) for r in lines) + "\n")
    with open(f"{prefix}.scope.log", "w") as f:
        f.write(json.dumps({"type": "scope_begin", "sid": sid, "p": 1, "name": "open", "tag": "", "depth": 0,
                            "tid": 9, "id": 1, "ts_ns": 1_500_000}) + "\n")


def test_row_groups_pages_nulls_and_a_dictionary_past_its_bound(tmp_path):
    prefix = tmp_path / "big"
    kernels, defs = 150_000, 20_000
    _synthetic(prefix, kernels, defs)
    out = tmp_path / "out"
    run("export", "--parquet", out, "--row-group-rows", "100000", prefix)
    f = pq.ParquetFile(out / "kernels.parquet")
    assert f.metadata.num_row_groups == 2 and f.metadata.num_rows == kernels
    k = f.read()
    assert k.column("corr").to_pylist() == list(range(1, kernels + 1))
    assert k.column("k").to_pylist()[:3] == [1, 1 + 7919 % defs, 1 + 2 * 7919 % defs]
    assert k.column("stream").to_pylist()[-3:] == [7 + i % 3 for i in range(kernels - 3, kernels)]
    assert pl.read_parquet(out / "kernels.parquet")["dur_ns"].sum() == sum(500 + i % 11 for i in range(kernels))
    d = pq.read_table(out / "kernel_defs.parquet")
    assert d.column("name").to_pylist() == [f"_Z{i}_{'x' * 60}" for i in range(1, defs + 1)]
    assert d.column("occupancy").null_count == defs // 3
    assert sql(f"SELECT COUNT(*) FROM read_parquet('{out}/kernel_defs.parquet') WHERE occupancy IS NULL"
                      )[0][0] == defs // 3
    scopes = pq.read_table(out / "scopes.parquet").to_pylist()
    assert [(s["name"], s["start_ns"], s["dur_ns"]) for s in scopes] == [("open", 1_500_000, None)]


def test_bad_output_directory_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    p = run("export", "--parquet", blocker / "sub", DATA / "sample", check=False)
    assert p.returncode != 0 and "gpufl export:" in p.stderr and str(blocker) in p.stderr
