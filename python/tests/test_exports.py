"""The package's shared libraries must not offer their copies of C++ library code to other libraries.

On the H200 `import gpufl; gpufl.init(); import torch` aborted in free() inside torch (2026-11-29): the extension
exported the std::string code it instantiates, and libstdc++, loaded first as the extension's dependency, bound its
own calls to those copies. Each library now exports only its entry points (python/src/_gpufl.map,
src/runtime/gpufl.map, src/inject/gpufl_inject.map). This test watches the dynamic loader (glibc's LD_DEBUG) while
a fresh interpreter loads them, and fails on any binding from a library that is not ours to one that is, other
than those entry points.
"""
import os
import pathlib
import re
import subprocess
import sys

import pytest

import gpufl

PACKAGE = pathlib.Path(gpufl.__file__).resolve().parent
# Entry points others may look up in our libraries: Python's module init, CUDA's and NVTX's injection hooks.
ENTRY_POINTS = re.compile(r"^(PyInit__gpufl|InitializeInjection\w*)$")
BINDING = re.compile(r"binding file (\S+) \[\d+\] to (\S+) \[\d+\]: \w+ symbol `([^']+)'")


def _ours(path: str) -> bool:
    return pathlib.Path(path).resolve().parent == PACKAGE


def _foreign_bindings(code: str) -> list:
    env = dict(os.environ, LD_DEBUG="bindings")
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    found = []
    for m in BINDING.finditer(run.stderr):
        user, provider, symbol = m.groups()
        if _ours(provider) and not _ours(user) and not ENTRY_POINTS.match(symbol):
            found.append(f"{user} -> {provider}: {symbol}")
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_DEBUG is glibc's")
def test_the_extension_lends_no_code_to_other_libraries():
    bound = _foreign_bindings("import gpufl")
    assert not bound, "other libraries bind to gpufl's copies:\n" + "\n".join(sorted(set(bound))[:20])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_DEBUG is glibc's")
def test_the_injection_library_lends_no_code_to_other_libraries():
    inject = PACKAGE / "libgpufl_inject.so"
    if not inject.exists():
        pytest.skip("this build has no injection library")
    # Loaded the way CUDA loads it: into a process where nothing of ours is loaded yet.
    bound = _foreign_bindings(f"import ctypes; ctypes.CDLL({str(inject)!r})")
    assert not bound, "other libraries bind to gpufl's copies:\n" + "\n".join(sorted(set(bound))[:20])


def test_the_check_sees_a_binding_when_there_is_one():
    # The check above must be able to fail: Python binds to the extension's module init, which _ours() sees.
    env = dict(os.environ, LD_DEBUG="bindings")
    run = subprocess.run([sys.executable, "-c", "import gpufl"], env=env, capture_output=True, text=True, timeout=120)
    seen = [m.groups() for m in BINDING.finditer(run.stderr) if _ours(m.group(2))]
    if not sys.platform.startswith("linux") or not run.stderr:
        pytest.skip("no LD_DEBUG output here")
    assert any(symbol == "PyInit__gpufl" for _, _, symbol in seen), "LD_DEBUG shows no binding to the extension"


def test_libcupti_is_loaded_at_run_time_not_linked():
    # gpufl/_native.py imports the extension without looking for libcupti: only the C++ loader searches for it
    # (src/cuda/cupti_loader.hpp), so nothing here may name it as a dependency.
    import shutil

    readelf = shutil.which("readelf")
    if readelf is None:
        pytest.skip("readelf not installed")
    libs = sorted(PACKAGE.glob("*.so*"))
    assert any(p.name.startswith("_gpufl") for p in libs), libs
    for lib in libs:
        dynamic = subprocess.run([readelf, "-d", str(lib)], capture_output=True, text=True, check=True).stdout
        assert "libcupti" not in dynamic, f"{lib.name} links libcupti"
