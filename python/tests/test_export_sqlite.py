"""`gpufl export --sqlite`: tables and views queried, values against the log (`gpufl cat`), and every example query
of docs/export.md run on a real database."""
import collections
import json
import re
import sqlite3

import pytest

from conftest import DATA, REPO
from trace_decode import log_records, run

H200 = REPO / "tests" / "data" / "h200"
DOC = REPO / "docs" / "export.md"
PREFIXES = [DATA / "sample", H200 / "memory_coalescing", H200 / "range_per_kernel", H200 / "pytorch_train_trace"]


@pytest.fixture(scope="module", params=PREFIXES, ids=[p.name for p in PREFIXES])
def db(request, tmp_path_factory):
    out = tmp_path_factory.mktemp("sqlite") / f"{request.param.name}.db"
    run("export", "--sqlite", out, request.param)
    con = sqlite3.connect(out)
    con.row_factory = sqlite3.Row
    yield con, log_records(request.param)
    con.close()


def rows(con, sql, *args):
    return [dict(r) for r in con.execute(sql, args)]


def test_one_session_row_and_counts(db):
    con, log = db
    assert [r["sid"] for r in rows(con, "SELECT sid FROM session_start")] == [log["session_start"][0]["sid"]]
    assert len(rows(con, "SELECT * FROM session_end")) == 1
    for table, records in (("kernel_event", "kernel_event"), ("kernel_def", "kernel_def"),
                           ("scope_begin", "scope_begin"), ("sass_metric", "sass_metric"),
                           ("pc_sample", "pc_sample"), ("system_sample", "system_sample"),
                           ("host_sample", "host_sample"), ("range_counters", "range_counters"),
                           ("benchmark", "benchmark")):
        assert con.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == len(log[records]), table
    copies = len(log["memcpy_event"]) + len(log["memset_event"])
    assert con.execute("SELECT COUNT(*) FROM copies").fetchone()[0] == copies


def test_kernels_view_joins_each_launch_with_its_definition(db):
    con, log = db
    defs = {d["k"]: d for d in log["kernel_def"]}
    got = {(r["correlation_id"], r["start_ns"]): r for r in rows(con, "SELECT * FROM kernels")}
    for k in log["kernel_event"]:
        r, d = got[(k["corr"], k["start_ns"])], defs[k["k"]]
        assert r["dur_ns"] == k["end_ns"] - k["start_ns"] and r["stream"] == k["stream"]
        assert r["demangled"] == d["demangled"] and r["num_regs"] == d["num_regs"]
        assert "(%d,%d,%d)" % (r["grid_x"], r["grid_y"], r["grid_z"]) == d["grid"]
        assert r["scope_path"] == k.get("scope", 0)
        if "occupancy" in d:
            assert r["occupancy"] == d["occupancy"] and r["limiting"] == d["limiting_resource"]
        else:
            assert r["occupancy"] is None


def test_scopes_view_has_ends_and_full_paths(db):
    con, log = db
    paths = {p["p"]: p for p in log["scope_path"]}

    def full(p):
        return full(paths[p]["parent"]) + "/" + paths[p]["name"] if paths[p]["parent"] else paths[p]["name"]

    ends = {e["id"]: e["ts_ns"] for e in log["scope_end"]}
    got = {r["id"]: r for r in rows(con, "SELECT * FROM scopes")}
    assert len(got) == len(log["scope_begin"])
    for b in log["scope_begin"]:
        r = got[b["id"]]
        assert (r["tid"], r["begin_ns"], r["end_ns"]) == (b["tid"], b["ts_ns"], ends.get(b["id"]))
        assert r["full_path"] == full(b["p"])


def test_top_kernels_query_matches_the_log(db):
    con, log = db
    defs = {d["k"]: d for d in log["kernel_def"]}
    total = collections.Counter()
    for k in log["kernel_event"]:
        total[defs[k["k"]]["name"]] += k["end_ns"] - k["start_ns"]
    query = doc_queries()[0]
    assert "Top 10" in query[0]
    got = rows(con, query[1])
    assert [r["total_ns"] for r in got] == sorted(total.values(), reverse=True)[:10]


def test_deep_tables_match_the_log(db):
    con, log = db
    sectors = collections.Counter()
    for m in log["sass_metric"]:
        sectors[m["func"]] += m["sectors_global"]
    query = "SELECT func, SUM(sectors_global) AS sectors FROM sass_metric GROUP BY func"
    got = {r["func"]: r["sectors"] for r in rows(con, query)}
    assert got == dict(sectors)
    stalls = collections.Counter()
    for p in log["pc_sample"]:
        stalls[(p["func"], p["stall"])] += p["count"]
    query = "SELECT func, stall, SUM(count) AS n FROM pc_sample GROUP BY func, stall"
    got = {(r["func"], r["stall"]): r["n"] for r in rows(con, query)}
    assert got == dict(stalls)
    for r in log["range_counters"]:
        for metric, value in r["metrics"].items():
            found = rows(con, "SELECT m.value FROM range_counters r, json_each(r.metrics) m "
                              "WHERE r.range = ? AND r.kernel = ? AND m.key = ?",
                         r["range"], r.get("kernel", ""), metric)
            assert value in [f["value"] for f in found]


def doc_queries():
    """(the sentence before it, the SQL) of each ```sql block of docs/export.md's SQLite part, split into
    statements."""
    text = DOC.read_text().split("\n## Parquet")[0]
    out = []
    for m in re.finditer(r"([^\n]+)\n\n```sql\n(.*?)```", text, re.S):
        for stmt in m.group(2).split(";"):
            if stmt.strip():
                out.append((m.group(1), stmt))
    return out


def test_every_example_query_of_the_docs_runs(db):
    con, log = db
    queries = doc_queries()
    assert len(queries) >= 9
    for title, sql in queries:
        result = con.execute(sql).fetchall()
        needs = {"sass_metric": log["sass_metric"], "pc_sample": log["pc_sample"],
                 "range_counters": log["range_counters"], "kernels": log["kernel_event"],
                 "scopes": log["scope_begin"], "copies": log["memcpy_event"],
                 "kernel_def": log["kernel_def"], "system_sample": log["system_sample"]}
        used = [t for t in needs if re.search(rf"FROM {t}\b", sql)]
        if used and all(needs[t] for t in used):
            assert result, f"no rows: {title}"


def test_docs_name_every_table_and_view(db):
    con, _ = db
    text = DOC.read_text()
    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view', 'index')"):
        assert f"`{name}`" in text or name.split("_")[0] in text, name


def test_incidents_table_and_views(tmp_path):
    out = tmp_path / "hang.db"
    run("export", "--sqlite", out, REPO / "tests" / "golden" / "incident_hang" / "case")
    con = sqlite3.connect(out)
    con.row_factory = sqlite3.Row
    (inc,) = rows(con, "SELECT * FROM incidents")
    assert inc["kind"] == "hang" and inc["api"] == "cudaStreamSynchronize" and inc["in_flight_count"] == 2
    assert json.loads(inc["blocked"])[0]["api"] == "cudaStreamSynchronize"
    assert json.loads(inc["last_kernels"]) == [{"stream": 13, "k": 1, "corr": 10, "end_ns": 61_001_000_005_000}]
    launches = rows(con, "SELECT * FROM incident_launches ORDER BY correlation_id")
    assert [(r["name"], r["kind"], r["stream"], r["suspect"]) for r in launches] == [
        ("_Z9wait_flagPVii", "kernel", 13, 1), ("cudaMemcpyAsync", "copy", 13, 0)]
    assert all(r["incident_kind"] == "hang" for r in launches)
    con.close()

