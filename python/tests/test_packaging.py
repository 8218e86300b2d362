"""Packaging facts that live in two files and must agree."""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _requirement_names_and_specs(lines):
    out = []
    for line in lines:
        line = line.split("#", 1)[0].split(";", 1)[0].strip()
        if line:
            out.append(re.sub(r"\s+", "", line))
    return out


def test_cuda_header_packages_agree_between_pyproject_and_the_fetch_script():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    with open(ROOT / "pyproject.toml", "rb") as f:
        requires = tomllib.load(f)["build-system"]["requires"]
    wanted = _requirement_names_and_specs((ROOT / "cmake" / "cuda-headers.txt").read_text().splitlines())
    built_with = [r for r in _requirement_names_and_specs(requires) if r.startswith("nvidia-")]
    assert wanted and built_with == wanted
