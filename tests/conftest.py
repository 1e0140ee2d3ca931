"""Test defaults: offscreen Qt and the CUDA simulator, chosen before anything imports numba.

GPU tests (marked ``gpu``) run in their own process: ``SIMTVIZ_BACKEND=gpu python -m pytest -m gpu``.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("SIMTVIZ_BACKEND", "sim")
# The GPU-compile check's verdicts (backends/trace/gpu_compile.py): one fresh cache per session,
# never the user's own.
os.environ.setdefault("SIMTVIZ_CACHE_DIR", __import__("tempfile").mkdtemp(prefix="simtviz-test-cache-"))

from simtviz.backends.selection import activate, resolve_backend

BACKEND = resolve_backend()
activate(BACKEND)

import pytest  # noqa: E402


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if BACKEND == "gpu":
        return
    skip = pytest.mark.skip(reason="needs a GPU: run SIMTVIZ_BACKEND=gpu python -m pytest -m gpu")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def backend_kind() -> str:
    return BACKEND


def pytest_runtest_teardown(item: pytest.Item) -> None:
    """Once Qt's tests have turned automatic collection off (simtviz.qt.gui_gc), collect here, on
    the main thread, whatever is due: tests without an event loop never tick the app's timer."""
    gui_gc = sys.modules.get("simtviz.qt.gui_gc")
    collector = gui_gc.installed() if gui_gc is not None else None
    if collector is not None:
        collector.collect_due()
