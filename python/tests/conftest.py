"""Shared fixtures: the hand-written NDJSON sessions in data/ (see data/make_fixtures.py)."""
import os
import pathlib

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

DATA = pathlib.Path(__file__).resolve().parent / "data"
REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def data_dir():
    return DATA


@pytest.fixture
def sample(data_dir):
    """The latest session of data/sample (app fixture_app), loaded without rich so output is plain text."""
    pytest.importorskip("pandas")
    from gpufl.analyzer import GpuFlightSession

    return GpuFlightSession(str(data_dir), log_prefix="sample", use_rich=False)
