"""The lesson probes' shared helpers and ``run_probe``'s two ways of not answering (no GPU and
no simulator; a probe that raises), with CuPy, numba's device and the clock stood in for."""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import Any

import pytest

import simtviz.backends.lesson as lesson_backends
from simtviz.backends.lesson import PROBES, common, probe_names, run_probe


def test_every_probe_is_named() -> None:
    assert probe_names() == list(PROBES) and "thread_count" in probe_names()


def test_a_probe_that_raises_reports_its_error_and_leaves_every_key_unanswered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(**_params: Any) -> dict[str, Any]:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(lesson_backends, "_implementation", lambda name, simulated: broken)
    result = run_probe("warps")
    assert result["error"] == "builtins.ZeroDivisionError: division by zero"
    assert set(result["unavailable"]) == set(PROBES["warps"].keys)
    assert all(result[key] is None for key in PROBES["warps"].keys)
    assert (
        result["unavailable"]["second_warp_threads"]
        == "the probe failed: builtins.ZeroDivisionError: division by zero"
    )


def test_without_a_gpu_and_without_the_simulator_every_key_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    import numba.cuda

    monkeypatch.setattr(lesson_backends, "on_simulator", lambda: False)
    monkeypatch.setattr(numba.cuda, "is_available", lambda: False)
    result = run_probe("warps")
    assert (result["probe"], result["backend"]) == ("warps", "none")
    assert (
        result["unavailable"]["lane_is_tid_mod_32"]
        == "there is no GPU here and numba is not in simulator mode"
    )


def test_cupy_that_cannot_be_imported_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy raises ImportError
    cp, why = common.import_cupy()
    assert cp is None and why is not None
    assert (
        why
        == "CuPy cannot be imported here (ModuleNotFoundError: import of cupy halted; None in sys.modules)"
    )


def test_cupy_is_usable_only_when_it_makes_an_array() -> None:
    def no_driver(_n: int) -> None:
        raise RuntimeError("cudaErrorInsufficientDriver")

    assert common.cupy_usable(SimpleNamespace(zeros=lambda n: [0.0] * n)) is None
    assert common.cupy_usable(SimpleNamespace(zeros=no_driver)) == (
        "CuPy needs a GPU and could not use one here (RuntimeError: cudaErrorInsufficientDriver)"
    )


def test_the_gpu_is_named_from_numba_s_device(monkeypatch: pytest.MonkeyPatch) -> None:
    import numba.cuda

    monkeypatch.setattr(numba.cuda, "get_current_device", lambda: SimpleNamespace(name=b"NVIDIA H200"))
    assert common.gpu_backend_name() == "gpu:NVIDIA H200"
    monkeypatch.setattr(numba.cuda, "get_current_device", lambda: SimpleNamespace(name="Tesla T4"))
    assert common.gpu_backend_name() == "gpu:Tesla T4"


def test_the_median_of_each_action_s_own_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # Three runs starting at 10, 20 and 30 s and taking 1, 3 and 2 s: the median is 2 s.
    ticks = iter([10.0, 11.0, 20.0, 23.0, 30.0, 32.0])
    monkeypatch.setattr(common, "time", SimpleNamespace(perf_counter=lambda: next(ticks)))
    ran: list[int] = []
    assert common.median_seconds(lambda: ran.append(1), 3) == 2.0
    assert len(ran) == 3
