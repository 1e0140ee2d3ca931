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

# The longest test files (CPU seconds on 2 cores, docs/TESTING.md), run first: pytest-xdist hands
# out whole files (``--dist loadscope --no-loadscope-reorder``, the Makefile) in this order, so
# the last ones handed out are short and no worker waits alone on a long file at the end.
LONGEST_FIRST = (
    "kernels/test_trace_ptx.py",
    "qt/test_fits_the_screen.py",
    "kernels/test_exercise_ptx.py",
    "qt/tabs/kernel/test_kernel_tab.py",
    "qt/tabs/lesson/test_lesson_panel.py",
    "qt/test_lecture_hall.py",
    "test_fuzz.py",
    "qt/tabs/kernel/test_kernel_tab_words.py",
    "emu/test_emu_differential.py",
    "qt/test_actions.py",
)


def _longest_first(item: pytest.Item) -> int:
    path = item.nodeid.split("::")[0].removeprefix("tests/")
    return LONGEST_FIRST.index(path) if path in LONGEST_FIRST else len(LONGEST_FIRST)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=_longest_first)  # stable: each file's tests keep their order
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
