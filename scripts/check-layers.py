#!/usr/bin/env python3
"""Fails on an #include that points up a layer (docs/architecture.md, "The layers").

Every `#include "<folder>/..."` under src/, apps/ and python/src is checked against the folders the including
file's layer may use. Includes whose first path component is not a layer folder (the public "gpufl/..." headers,
a file of the same folder, third-party headers) are not checked.

Inside src/report the sub-folders are layers of their own (REPORT_ALLOWED): model at the bottom, the text and
JSON building blocks, the aggregation, the sections, ranks and diff, and the files directly in src/report (the
entry points) on top. A sub-folder never includes a file of src/report itself, nor a sub-folder above it.

Usage: check-layers.py [repo root]   (default: the parent of this script's folder). Exit 1 on a violation.
Run by CTest (gpufl_check_layers, tests/CMakeLists.txt).
"""
import os
import re
import sys

# Layer of a source folder -> the layer folders its files may include (besides its own).
ALLOWED = {
    "core": set(),
    "log": {"core"},
    "report": {"core", "log"},
    "export": {"core", "log", "report"},
    "cuda": {"core"},
    "nvml": {"core"},
    "host": {"core"},
    "doctor": {"core", "cuda", "nvml", "host"},
    "runtime": {"core", "log", "report", "cuda", "nvml", "host", "doctor"},
    "http": set(),
    "agent": {"core", "log", "http"},
    "inject": {"core", "log", "report", "cuda", "nvml", "host", "runtime", "doctor"},
    "monitor": {"core", "log", "nvml", "host", "http"},
    "apps": {"core", "log", "report", "export", "cuda", "nvml", "host", "runtime", "inject", "agent", "monitor",
             "http", "doctor"},
    "python": {"core", "log", "report", "export", "cuda", "nvml", "host", "runtime", "inject", "doctor"},
}
# Sub-folder of src/report -> the sub-folders its files may include (besides its own). "" is src/report itself,
# the top: it may include them all, and none of them may include it.
REPORT_ALLOWED = {
    "model": set(),
    "text": set(),
    "json": {"model", "text"},
    "aggregate": {"model", "text"},
    "sections": {"model", "text", "json"},
    "ranks": {"model", "text", "aggregate"},
    "diff": {"text", "json"},
    "": {"model", "text", "json", "aggregate", "sections", "ranks", "diff"},
}
LAYER_FOLDERS = {"core", "log", "report", "export", "cuda", "nvml", "host", "runtime", "inject", "agent", "monitor",
                 "http", "doctor"}
SOURCE_EXT = (".hpp", ".h", ".cpp", ".cc", ".cu", ".cuh", ".inc", ".in")
INCLUDE = re.compile(r'^\s*#\s*include\s*"(([^"/]+)/[^"]*)"')


def layer_of(rel):
    parts = rel.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[0] == "apps":
        return "apps"
    if parts[0] == "python" and len(parts) > 2 and parts[1] == "src":
        return "python"
    return None


def report_sublayer(path):
    """The report sub-layer of a path below src/report ("report/model/x.hpp" -> "model", "report/x.hpp" -> "")."""
    parts = path.split("/")
    return parts[1] if len(parts) > 2 else ""


def check_report(rel, sub, target_path):
    """None, or why an include from src/report/<sub> of `target_path` ("report/...") points the wrong way."""
    if sub not in REPORT_ALLOWED:
        return f"folder 'report/{sub}' has no layer in scripts/check-layers.py (REPORT_ALLOWED)"
    target = report_sublayer(target_path)
    if target == sub or target in REPORT_ALLOWED[sub]:
        return None
    return f"report/{sub or '.'} includes report/{target or '.'} (upward or sideways)"


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    violations = []
    checked = 0
    for top in ("src", "apps", os.path.join("python", "src")):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(SOURCE_EXT):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                layer = layer_of(rel)
                if layer is None:
                    continue
                if layer not in ALLOWED:
                    violations.append(f"{rel}: folder '{layer}' has no layer in scripts/check-layers.py")
                    continue
                checked += 1
                with open(path, encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = m.group(2)
                        if layer == "report" and target == "report":
                            why = check_report(rel, report_sublayer(rel[len("src/"):]), m.group(1))
                            if why:
                                violations.append(f"{rel}:{lineno}: {why}: {line.strip()}")
                            continue
                        if target not in LAYER_FOLDERS or target == layer:
                            continue
                        if target not in ALLOWED[layer]:
                            violations.append(f"{rel}:{lineno}: {layer} includes {target} (upward or sideways): "
                                              f"{line.strip()}")
    for v in violations:
        print(v)
    if violations:
        print(f"check-layers: {len(violations)} include(s) cross a layer the wrong way "
              f"(allowed: see ALLOWED in scripts/check-layers.py)", file=sys.stderr)
        return 1
    print(f"check-layers: {checked} files, every include points down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
