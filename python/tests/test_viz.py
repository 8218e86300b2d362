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
