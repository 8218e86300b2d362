"""Every analyzer table, on every real H200 fixture, at 80, 120 and 200 columns (rich and plain): nothing wider than
the console, no cell wrapped or cut (each row's cells all on one line, whole), headers never broken mid-word,
and kernel names in a table distinct wherever the kernels differ."""
import io
import pathlib

import pytest

pytest.importorskip("pandas")
rich_console = pytest.importorskip("rich.console")

import gpufl._fmt as fmt  # noqa: E402
from gpufl.analyzer import GpuFlightSession  # noqa: E402

H200 = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "h200"
PREFIXES = sorted({p.name.split(".")[0] for p in H200.glob("*.device.log")})
WIDTHS = (80, 120, 200)
INSPECTORS = [
    ("print_summary", {}), ("inspect_hotspots", {}), ("inspect_hotspots", {"by_shape": True}),
    ("inspect_stalls", {}), ("inspect_profile_samples", {}), ("inspect_scopes", {}),
    ("inspect_perf_metrics", {}), ("inspect_memcpy", {}), ("inspect_hints", {}),
]


@pytest.fixture(scope="module")
def report_cache():
    return {}


def _session(prefix, report_cache, **kw):
    s = GpuFlightSession(str(H200), log_prefix=prefix, **kw)
    if prefix in report_cache:  # the C++ report of a fixture is the same at every width: build it once
        s.__dict__["_report_data"] = report_cache[prefix]
    else:
        report_cache[prefix] = s.report_data
    return s


def _record_layouts(monkeypatch):
    layouts = []
    real_fit = fmt.fit

    def recording_fit(cols, rows, *args, **kwargs):
        layout = real_fit(cols, rows, *args, **kwargs)
        name = next((i for i, c in enumerate(cols) if c.name), None)
        layout.whole_names = [r[name] if name is not None else "" for r in rows]  # before shortening
        layouts.append(layout)
        return layout

    monkeypatch.setattr(fmt, "fit", recording_fit)
    return layouts


def _row_on_one_line(lines, cells):
    """True when some line holds every non-empty cell of the row, whole and in order."""
    cells = [c for c in cells if c.strip()]
    for line in lines:
        at = 0
        for c in cells:
            at = line.find(c, at)
            if at < 0:
                break
            at += len(c)
        else:
            return True
    return False


def _check(text, layouts, width):
    lines = text.splitlines()
    for line in lines:
        assert len(line.rstrip()) <= width, f"line wider than {width}: {line!r}"
    for layout in layouts:
        for row in layout.rows:
            parts = [row[:2], row[2:]] if layout.stacked else [row]  # stacked: the name on a line of its own
            for part in parts:
                assert _row_on_one_line(lines, part), f"row split over lines at {width}: {row}\n{text}"
        for header in layout.headers:
            for word in header.split():
                assert any(word in line for line in lines), f"header word {word!r} broken at {width}"
        if any(c.name and c.header == "Kernel" for c in layout.columns):
            # One kernel may have rows of its own per launch shape (by_shape): only different names must stay apart.
            i = next(i for i, c in enumerate(layout.columns) if c.name)
            whole_of = {}
            for shown, whole in zip(layout.rows, layout.whole_names):
                whole_of.setdefault(shown[i], set()).add(whole)
            collided = {k: v for k, v in whole_of.items() if len(v) > 1}
            assert not collided, f"kernel names collide at {width}: {collided}"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("prefix", PREFIXES)
def test_rich_tables_fit(prefix, width, monkeypatch, report_cache):
    layouts = _record_layouts(monkeypatch)
    console = rich_console.Console(width=width, record=True, file=io.StringIO(), color_system=None)
    s = _session(prefix, report_cache, console=console)
    for name, kw in INSPECTORS:
        getattr(s, name)(**kw)
    _check(console.export_text(), layouts, width)


@pytest.mark.parametrize("width", (80, 120))
def test_plain_tables_fit(width, monkeypatch, report_cache):
    layouts = _record_layouts(monkeypatch)
    out = io.StringIO()
    s = _session("pytorch_train_trace", report_cache, use_rich=False, file=out, width=width)
    for name, kw in INSPECTORS:
        getattr(s, name)(**kw)
    _check(out.getvalue(), layouts, width)


def test_pytorch_hotspots_at_80_columns_keep_the_time_and_distinct_names(monkeypatch, report_cache):
    layouts = _record_layouts(monkeypatch)
    console = rich_console.Console(width=80, record=True, file=io.StringIO(), color_system=None)
    _session("pytorch_train_trace", report_cache, console=console).inspect_hotspots(top_n=20)
    text = console.export_text()
    headers = [c.header for c in layouts[0].columns]
    for must in ("Kernel", "Calls", "Total", "GPU %"):
        assert must in headers, headers
    assert "Not shown at 80 columns" in text  # the columns left out are named
    names = [r[1] for r in layouts[0].rows]
    assert len(set(names)) == len(names) == 20
    assert sum("sm80_xmma" in n for n in names) >= 3  # the cuBLAS variants, each told apart


def test_names_fit_and_distinct_at_every_width_of_the_fitter():
    from gpufl._layout import Col, fit

    names = [f"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize{t}_stage3_warpsize1x2x1_ffma_execute_kernel"
             for t in ("32x32x8", "64x64x8", "32x64x8")]
    rows = [[n, "1,234", "250.23 ms"] for n in names]
    cols = [Col("Kernel", "left", name=True), Col("Calls", keep=3), Col("Total", keep=10)]
    for width in range(30, 140, 7):
        layout = fit(cols, rows, width, 3, fmt.short_names)
        assert layout.table_width(3) <= width
        short = [r[0] for r in layout.rows]
        assert len(set(short)) == 3, short
        assert all("250.23 ms" in r for r in layout.rows)


def test_wide_prints_whole_readable_names(monkeypatch, report_cache):
    layouts = _record_layouts(monkeypatch)
    console = rich_console.Console(width=120, record=True, file=io.StringIO(), color_system=None)
    s = _session("pytorch_train_trace", report_cache, console=console, wide=True)
    s.inspect_hotspots()
    text = console.export_text(styles=False)
    names = [r[1] for r in layouts[0].rows]
    assert not any("\u2026" in n for n in names), names  # nothing elided
    longest = max(names, key=len)
    assert len(longest) > 120 and longest in text.replace("\n", "")
    s.wide = False
    s.inspect_hotspots()
    assert all(len(r[1]) <= 120 for r in layouts[1].rows)


def test_range_counters_print_with_units():
    from gpufl.analyzer import _metric_with_unit

    assert _metric_with_unit("dram__bytes_read.sum", 33739520) == "33,739,520 B (32.2 MB)"
    assert _metric_with_unit("gpu__time_duration.sum", 419232) == "419.23 us"
    assert _metric_with_unit("lts__t_sector_hit_rate.pct", 93.291) == "93.29%"
    assert _metric_with_unit("sm__cycles_elapsed.max", 1200) == "1,200 cycles"
    assert _metric_with_unit("lts__t_sectors_lookup_hit.sum", 5865101) == "5,865,101"
