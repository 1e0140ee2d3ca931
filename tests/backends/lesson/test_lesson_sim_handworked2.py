"""The lesson's simulator probes, hand-worked, part 2: the simulator's 65,536-thread line and the
minutes it names past it, the words for a right, a wrong and a failed answer, a launch that fails
inside the simulator, CuPy's two reasons for not making arrays here, and the experiment's GPU
half handing back the probe's own result. Kernels that would run for seconds are stood in for by
a launch recorder; the rest run in the simulator."""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

import numpy as np  # noqa: F401  (the kernels below index NumPy arrays)
import pytest
from numba import cuda

import simtviz.kernels.vecadd as vecadd_kernels
from simtviz.backends.lesson import LESSON, LessonRequest, sim


@pytest.fixture(autouse=True)
def _simulator(backend_kind: str) -> None:
    if backend_kind != "sim":
        pytest.skip("simulator test")


class Recorder:
    """Stands in for a kernel: records each launch's [grid, block] and runs nothing."""

    def __init__(self) -> None:
        self.launches: list[Any] = []

    def __getitem__(self, config: Any) -> Any:
        self.launches.append(config)
        return lambda *arrays: None


@cuda.jit
def vecsub(a, b, c):
    # A wrong kernel: c = a - b where the step asks for a + b.
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] - b[i]


def test_65_536_threads_are_simulated_and_one_more_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    kernel = Recorder()
    monkeypatch.setattr(vecadd_kernels, "vecadd_unguarded", kernel)
    # n = 65,536 in blocks of 256: 256 blocks × 256 = 65,536 threads, exactly the line: it runs.
    at_line = sim.bounds_check(65_536, 256)
    assert kernel.launches == [(256, 256)]
    assert at_line["raised"] is None and "raised" not in at_line["unavailable"]
    assert (at_line["grid"], at_line["surplus_threads"]) == (256, 0)
    # n = 65,537 in blocks of 1: 65,537 blocks = 65,537 threads, one past the line: not run.
    past = sim.bounds_check(65_537, 1)
    assert kernel.launches == [(256, 256)]
    # 65,537 / 6,600 = 9.93 s: said in seconds, never "about 0 minutes".
    assert past["unavailable"]["raised"].startswith("65,537 threads would take the simulator about 10 s ")
    assert (past["grid"], past["surplus_threads"]) == (65_537, 0)
    # n = 131,072 in blocks of 256: 512 blocks × 256 = 131,072 threads, refused (512 + 256 = 768
    # would not be: the line counts threads, not blocks plus threads).
    twice = sim.bounds_check(131_072, 256)
    assert kernel.launches == [(256, 256)]
    # 131,072 / 6,600 = 19.86 s.
    assert twice["unavailable"]["raised"].startswith("131,072 threads would take the simulator about 20 s ")
    assert (twice["grid"], twice["surplus_threads"]) == (512, 0)


def test_the_minutes_named_for_a_launch_too_big_to_simulate(monkeypatch: pytest.MonkeyPatch) -> None:
    kernel = Recorder()
    monkeypatch.setattr(vecadd_kernels, "vecadd_unguarded", kernel)
    # n = 594,016 in blocks of 32: 594,016 / 32 = 18,563 blocks, no surplus. At 6,600 threads a
    # second: 594,016 / 6,600 = 90.0024 s, said in seconds below two minutes: "90 s" (at 6,601
    # threads a second, 89.989 s, also "90 s"; at 6,000, 99 s).
    result = sim.bounds_check(594_016, 32)
    assert kernel.launches == []
    assert result["unavailable"]["raised"] == (
        "594,016 threads would take the simulator about 90 s (one Python thread at a time); "
        "a GPU runs them in a fraction of a millisecond"
    )
    assert (result["grid"], result["surplus_threads"]) == (18_563, 0)
    assert result["oob_writes"] is None and result["c_correct"] is None


def test_host_arrays_give_the_right_answer_and_a_wrong_kernel_a_wrong_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The chapter's vecadd on 256 host elements: c = a + b in every element.
    right = sim.host_array_to_kernel(256, 256)
    assert (right["raised"], right["result_correct"], right["outcome"]) == (None, True, "the right answer")
    # A kernel that subtracts: it raises nothing, and its answer (a − b = −a for b = 2a) is wrong.
    monkeypatch.setattr(vecadd_kernels, "vecadd", vecsub)
    wrong = sim.host_array_to_kernel(4, 4)
    assert (wrong["raised"], wrong["result_correct"], wrong["outcome"]) == (None, False, "a wrong answer")
    # The unguarded kernel on 3 elements in one block of 4: thread 3 indexes past the end.
    monkeypatch.setattr(vecadd_kernels, "vecadd", vecadd_kernels.vecadd_unguarded)
    failed = sim.host_array_to_kernel(3, 4)
    assert "IndexError" in failed["raised"]
    assert (failed["result_correct"], failed["outcome"]) == (False, "an error")


def test_a_launch_failing_in_the_simulator_fails_at_the_launch_line(monkeypatch: pytest.MonkeyPatch) -> None:
    # 3 elements in blocks of 2: 2 blocks = 4 threads; without the guard thread 3 reads a[3].
    monkeypatch.setattr(vecadd_kernels, "vecadd", vecadd_kernels.vecadd_unguarded)
    result = sim.launch_2048(3, 2)
    assert result["sim_ran_without_error"] is False
    assert result["failed_at"] == "the launch line"
    assert "IndexError" in result["sim_error"]
    assert result["unguarded_raised"] == "IndexError"
    assert result["grid"] == 2


def _cupy(zeros: Any) -> ModuleType:
    module = ModuleType("cupy")
    module.zeros = zeros  # type: ignore[attr-defined]
    return module


def test_cupy_s_two_reasons_for_no_arrays_in_a_simulator_run(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_driver(_n: int) -> None:
        raise RuntimeError("cudaErrorInsufficientDriver")

    # CuPy that cannot make an array: the student reads that there is no GPU, not the driver's name.
    monkeypatch.setitem(sys.modules, "cupy", _cupy(no_driver))
    gaps = sim.gpu_array_to_python()["unavailable"]
    assert gaps["np_sum_type"] == "CuPy needs a GPU: there is no GPU here"
    # CuPy that can (a GPU beside the simulator): the simulator run just does not use it.
    monkeypatch.setitem(sys.modules, "cupy", _cupy(lambda n: [0.0] * n))
    gaps = sim.gpu_array_to_python()["unavailable"]
    assert gaps["np_sum_type"] == "a simulator run does not use CuPy's GPU arrays"
    assert gaps["silent_copies"] == "a simulator run does not use CuPy's GPU arrays"


def test_the_experiment_hands_back_the_probe_s_result_on_either_path() -> None:
    # The warps of one 48-thread block: threads 0–31 are warp 0, threads 32–47 warp 1 (16 threads).
    for result in (
        LESSON.run_gpu(None, LessonRequest("warps"), None),  # type: ignore[arg-type]
        LESSON.run_sim(LessonRequest("warps"), None, None),  # type: ignore[arg-type]
    ):
        assert (result["probe"], result["warps"], result["second_warp_threads"]) == ("warps", 2, 16)


def test_the_seconds_named_use_6600_threads_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    kernel = Recorder()
    monkeypatch.setattr(vecadd_kernels, "vecadd_unguarded", kernel)
    # n = 69,301 in blocks of 1: 69,301 threads, past the 65,536 line. 69,301 / 6,600 = 10.50015 s,
    # "11 s"; at 6,601 threads a second 10.49856 s would be "10 s".
    result = sim.bounds_check(69_301, 1)
    assert kernel.launches == []
    assert result["unavailable"]["raised"].startswith("69,301 threads would take the simulator about 11 s ")
