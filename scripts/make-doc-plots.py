#!/usr/bin/env python3
"""Renders the pictures of docs/plots.md from the H200 fixtures in tests/data/h200 into docs/images/.

    MPLBACKEND=Agg build/pyvenv/bin/python scripts/make-doc-plots.py     (after scripts/python-test.sh)
"""
import pathlib
import sys
import tempfile

from gpufl import viz
from gpufl.analyzer import GpuFlightSession

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "h200"
OUT = ROOT / "docs" / "images"


def session(prefix):
    return GpuFlightSession(str(DATA), log_prefix=prefix, use_rich=False)


def nested_scopes_session(directory: pathlib.Path):
    """A session recorded here (no GPU needed: scopes are recorded without one): two threads, each running
    steps of nested scopes, so that the picture shows one lane per thread and its nesting."""
    import threading
    import time
    import warnings

    import gpufl

    def work(steps: int, scale: float) -> None:
        for _ in range(steps):
            with gpufl.Scope("step"):
                with gpufl.Scope("forward"):
                    for layer in ("attention", "mlp"):
                        with gpufl.Scope(layer):
                            time.sleep(0.004 * scale)
                with gpufl.Scope("backward"):
                    time.sleep(0.006 * scale)
                with gpufl.Scope("optimizer"):
                    time.sleep(0.002 * scale)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gpufl.init("nested_demo", log_path=str(directory / "nested"), system_sample_rate_ms=0)
    loader = threading.Thread(target=work, args=(3, 1.6))
    loader.start()
    work(4, 1.0)
    loader.join()
    gpufl.shutdown()
    return GpuFlightSession(str(directory), log_prefix="nested", use_rich=False)


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    torch = session("pytorch_train_trace")
    viz.plot_timeline(torch, save=OUT / "timeline-pytorch.png", title="PyTorch training step: kernels and copies")
    viz.plot_timeline(session("sass_divergence"), save=OUT / "timeline-scopes.png",
                      title="One scope per kernel: scopes above, kernels below")
    viz.plot_timeline(session("sass_divergence"), save=OUT / "timeline-zoom-scope.png", time_range="earlyExit",
                      title='time_range="earlyExit": zoomed to one scope')
    with tempfile.TemporaryDirectory() as tmp:
        viz.plot_timeline(nested_scopes_session(pathlib.Path(tmp)), save=OUT / "timeline-nested-scopes.png",
                          title="Nested scopes on two threads (recorded without a GPU)")
    viz.plot_gpu_metrics(torch, save=OUT / "gpu-metrics-pytorch.png")
    viz.plot_memory(session("kernel_zoo_trace"), save=OUT / "memory-kernel-zoo.png")
    for p in sorted(OUT.glob("*.png")):
        print(f"{p.relative_to(ROOT)}  {p.stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
