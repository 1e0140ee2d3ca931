"""The desktop layer stays within its bounds: no numba or CuPy in qt/, no file over 600 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

QT = Path(__file__).resolve().parents[2] / "src" / "simtviz" / "qt"
FILES = sorted(QT.rglob("*.py"))


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(QT)) for p in FILES])
def test_qt_module_imports_no_numba_or_cupy_and_stays_short(path: Path) -> None:
    assert not _imported(path) & {"numba", "cupy", "cupyx", "llvmlite"}
    assert len(path.read_text().splitlines()) <= 600
