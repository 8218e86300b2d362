"""Plots render headless (Agg) to PNG files of the expected size."""
import pytest

pytest.importorskip("pandas")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.image  # noqa: E402
import numpy as np  # noqa: E402

from gpufl import viz  # noqa: E402
from gpufl.analyzer import GpuFlightSession  # noqa: E402


def _png(path):
    assert path.exists() and path.stat().st_size > 5000
    img = matplotlib.image.imread(str(path))
    h, w = img.shape[:2]
    assert w >= 600 and h >= 250, (w, h)
    assert float(np.std(img[..., :3])) > 0.01  # not a blank canvas
    return w, h


@pytest.mark.parametrize("fn", ["plot_timeline", "plot_gpu_metrics", "plot_memory"])
def test_plots_to_png(sample, tmp_path, fn):
    out = tmp_path / f"{fn}.png"
    fig = getattr(viz, fn)(sample, save=out)
    _png(out)
    assert fig.axes


def test_plot_all(sample, tmp_path):
    figs = viz.plot_all(sample, save_prefix=tmp_path / "run")
    assert len(figs) == 3
    for suffix in ("timeline", "gpu", "memory"):
        _png(tmp_path / f"run.{suffix}.png")


def test_analyzer_does_not_import_viz():
    """viz depends on the analyzer's data, not the other way round (no import cycle)."""
    import ast
    import inspect

    import gpufl.analyzer

    tree = ast.parse(inspect.getsource(gpufl.analyzer))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "viz" not in imported and "gpufl.viz" not in imported


def test_plot_from_prefix_path(data_dir, tmp_path):
    viz.plot_timeline(str(data_dir / "sample"), save=tmp_path / "p.png")
    _png(tmp_path / "p.png")


def test_plots_of_an_empty_session(data_dir, tmp_path):
    s = GpuFlightSession(str(data_dir), log_prefix="damaged", use_rich=False)
    for fn in (viz.plot_timeline, viz.plot_gpu_metrics, viz.plot_memory):
        path = tmp_path / f"{fn.__name__}.png"
        fn(s, save=path)
        assert path.stat().st_size > 1000


def test_merge_intervals_keeps_a_million_kernels_plottable():
    rng = np.random.default_rng(0)
    start = np.sort(rng.uniform(0, 10, 1_000_000))
    end = start + 2e-6
    s, e = viz.merge_intervals(start, end, 10 / 4000)
    assert len(s) <= 4000
    assert s[0] == start[0] and e[-1] == pytest.approx(end[-1])


# ------------------------------------------------------------------------------------ the real H200 fixtures
H200 = __import__("pathlib").Path(__file__).resolve().parents[2] / "tests" / "data" / "h200"


def _h200(prefix):
    return GpuFlightSession(str(H200), log_prefix=prefix, use_rich=False)


def test_timeline_defaults_to_the_busy_span():
    # PyTorch: every kernel lies in 6.9-7.5 s of an 8.3 s session (the model loads first).
    fig = viz.plot_timeline(_h200("pytorch_train_trace"), show=False)
    lo, hi = fig.axes[0].get_xlim()
    assert 6.85 < lo < 6.92 and 7.51 < hi < 7.6, (lo, hi)
    label = fig.axes[0].get_xlabel()
    assert "before the first kernel" in label and "copies not shown" in label, label
    full = viz.plot_timeline(_h200("pytorch_train_trace"), show=False, time_range=(0, 8.3))
    assert full.axes[0].get_xlim() == (0, 8.3)


def test_timeline_zooms_to_a_scope_by_name():
    s = _h200("sass_divergence")
    sc = s.scopes[s.scopes["name"] == "earlyExit"]
    fig = viz.plot_timeline(s, show=False, time_range="earlyExit")
    lo, hi = fig.axes[0].get_xlim()
    start = sc["start_s"].min()
    end = (sc["start_s"] + sc["duration_ns"].astype(float) / 1e9).max()
    k = s.kernels[s.kernels["scope"].astype(object) == "earlyExit"]  # runs after its scope ends (async)
    k_end = (k["start_s"] + k["duration_ns"] / 1e9).max()
    assert len(k) and k_end > end
    assert lo <= start and hi >= k_end and (hi - lo) < 1.1 * (k_end - start), (lo, hi, start, k_end)
    with pytest.raises(ValueError, match="uniformWork"):  # a wrong name lists the scopes there are
        viz.plot_timeline(s, show=False, time_range="no_such_scope")


def test_timeline_legend_names_every_color_with_distinct_kernel_names():
    s = _h200("pytorch_train_trace")
    fig = viz.plot_timeline(s, show=False, top_kernels=10)
    legend = fig.axes[0].get_legend()
    labels = [t.get_text() for t in legend.get_texts()]
    kernels = [x for x in labels if not x.startswith(("copy ", "memset", "scope ")) and "other kernel" not in x]
    assert len(kernels) == 10 and len(set(kernels)) == 10, labels
    assert sum(x.startswith("sm80_xmma_gemm") for x in kernels) >= 3  # the cuBLAS variants stay apart
    n_funcs = s.kernels["mangled"].nunique()
    assert f"{n_funcs - 10} other kernels" in labels
    colors = [tuple(h.get_facecolor()) for h in legend.legend_handles]
    assert len(set(colors)) == len(colors)  # no color named twice


def test_timeline_scopes_one_lane_per_thread():
    s = _h200("range_per_kernel")
    fig = viz.plot_timeline(s, show=False)
    lanes = [t.get_text() for t in fig.axes[0].get_yticklabels() if t.get_text().startswith("thread")]
    assert len(lanes) == s.scopes["tid"].nunique()
    assert any(t.get_text() == "naive" for t in fig.axes[0].texts) or len(s.scopes) > 30


def test_samples_are_steps_and_empty_panels_say_so(data_dir):
    fig = viz.plot_gpu_metrics(_h200("kernel_zoo_trace"), show=False)
    drawn = [line for ax in fig.axes for line in ax.get_lines()]
    assert drawn and all(line.get_drawstyle() == "steps-post" for line in drawn)
    empty = GpuFlightSession(str(data_dir), log_prefix="damaged", use_rich=False)
    for fn in (viz.plot_gpu_metrics, viz.plot_memory):
        fig = fn(empty, show=False)
        def says_no(ax):
            return any(t.get_text().startswith("no ") for t in ax.texts)

        for ax in fig.axes:
            if ax.get_lines() or ax.patches or ax.collections or says_no(ax):
                continue
            # a twin axis (temperature, cumulative bytes) over a panel that is drawn or says why it is empty
            assert any(o is not ax and ax.bbox.bounds == o.bbox.bounds and (o.get_lines() or says_no(o))
                       for o in fig.axes), (fn.__name__, ax.get_ylabel())


def test_nested_scopes_stack_in_one_lane_per_thread(tmp_path):
    import threading
    import warnings

    import gpufl

    def work():
        for _ in range(3):
            with gpufl.Scope("outer"):
                with gpufl.Scope("inner_a"):
                    pass
                with gpufl.Scope("inner_b"):
                    pass

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gpufl.init("nested", log_path=str(tmp_path / "nested"), system_sample_rate_ms=0)
    t = threading.Thread(target=work)
    t.start()
    work()
    t.join()
    gpufl.shutdown()
    s = GpuFlightSession(str(tmp_path), log_prefix="nested", use_rich=False)
    assert s.scopes["tid"].nunique() == 2 and s.scopes["depth"].max() == 1
    fig = viz.plot_timeline(s, show=False)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["thread %d\nscopes" % tid
                                                          for tid in sorted(s.scopes["tid"].unique())]
    # Each thread's lane holds two levels: four distinct rows of boxes in all, outlined one by one.
    rows = {round(float(c.get_paths()[0].vertices[:, 1].min()), 3) for c in ax.collections}
    assert len(rows) == 4, rows
    assert all(len(c.get_paths()) == 3 or len(c.get_paths()) == 6 for c in ax.collections)
