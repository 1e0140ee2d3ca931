"""simtviz's dependencies resolve on macOS arm64 and Windows x86-64 (scripts/check_platforms.py).

Needs the network (PyPI), so it runs only when asked: ``SIMTVIZ_CHECK_PLATFORMS=1 pytest
tests/test_platforms.py`` (or ``make platforms``). What always runs: the markers in pyproject.toml
give each platform the requirements it can install.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "check_platforms.py"


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("check_platforms", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def _names(requirements: list[str]) -> dict[str, str]:
    from packaging.requirements import Requirement

    return {Requirement(r).name: r for r in requirements}


def test_cuda_packages_only_where_nvidia_ships_wheels() -> None:
    check = _script()
    mac = _names(check.requirements_for(check.TARGETS["macos-arm64"]))
    assert "cupy-cuda12x" not in mac  # no macOS wheel: installing it would fail there
    assert mac["numba-cuda"] == "numba-cuda>=0.20"  # the simulator, without the CUDA extra
    for target in ("windows-x86_64", "linux-x86_64", "linux-aarch64"):
        names = _names(check.requirements_for(check.TARGETS[target]))
        assert names["cupy-cuda12x"] == "cupy-cuda12x>=13"
        assert names["numba-cuda"] == "numba-cuda[cu12]>=0.20"


@pytest.mark.skipif(
    os.environ.get("SIMTVIZ_CHECK_PLATFORMS") != "1", reason="needs PyPI: set SIMTVIZ_CHECK_PLATFORMS=1"
)
@pytest.mark.parametrize("target", ["macos-arm64", "windows-x86_64"])
def test_dependencies_resolve_there(target: str) -> None:
    result = _script().resolve(target)
    assert result["ok"], result["error"]
    install = result["install"]
    assert {"numpy", "numba-cuda", "pyside6-essentials", "pyqtgraph"} <= set(install)
    assert ("cupy-cuda12x" in install) == (target == "windows-x86_64")
