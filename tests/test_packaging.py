"""The wheel carries the app's resources, and the core stays free of Qt, numba and CuPy."""

from __future__ import annotations

import ast
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_ships_resources(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if proc.returncode != 0 and "hatchling" in proc.stderr:
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    wheel = next(tmp_path.glob("simtviz-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for resource in ("simtviz.svg", "simtviz.desktop", "presets.json"):
        assert f"simtviz/resources/{resource}" in names, sorted(names)
    assert "simtviz/kernels/record.py" in names
    entry_points = (
        zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    )
    assert "[gui_scripts]" in entry_points and "simtviz = simtviz.cli:main" in entry_points


FORBIDDEN_IN_CORE = ("PySide6", "pyqtgraph", "numba", "cupy", "cupyx", "llvmlite")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_core_imports_no_qt_numba_or_cupy() -> None:
    for path in (ROOT / "src" / "simtviz" / "core").rglob("*.py"):
        bad = _imports(path) & set(FORBIDDEN_IN_CORE)
        assert not bad, f"{path.name} imports {bad}"


def test_only_the_qt_layer_imports_qt() -> None:
    allowed = {ROOT / "src" / "simtviz" / "app.py"}
    for path in (ROOT / "src" / "simtviz").rglob("*.py"):
        if "qt" in path.relative_to(ROOT / "src" / "simtviz").parts or path in allowed:
            continue
        assert not _imports(path) & {"PySide6", "pyqtgraph"}, path


def test_the_gui_never_imports_cupy() -> None:
    for path in (ROOT / "src" / "simtviz" / "qt").rglob("*.py"):
        assert not _imports(path) & {"cupy", "cupyx"}, path
