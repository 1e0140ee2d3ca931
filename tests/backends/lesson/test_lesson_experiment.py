"""The lesson's probes as a registered experiment: the simulator runs them in its child process."""

from __future__ import annotations

import os

import pytest

from simtviz.backends import experiment
from simtviz.backends.lesson import LESSON, LessonRequest
from simtviz.backends.sim_process import SimProcessBackend


def test_lesson_is_registered_by_importing_the_probes() -> None:
    assert experiment.get("lesson") is LESSON
    assert experiment.module_of(LESSON) == "simtviz.backends.lesson.experiment"


def test_an_unknown_probe_is_refused_before_anything_runs() -> None:
    with pytest.raises(KeyError, match="no lesson probe 'nope'"):
        LessonRequest("nope")


def test_probes_run_in_the_simulators_child_process() -> None:
    backend = SimProcessBackend()
    try:
        backend.warm_up()
        child = backend._proc.pid  # the persistent child process every simulator run goes to
        assert child != os.getpid()
        result = backend.run("lesson", LessonRequest("bounds_check", {"n": 1000, "block": 256}))
        assert result["backend"] == "sim"
        # 4 blocks of 256 for 1000 elements: 4 × 256 − 1000 = 24 surplus threads; the simulator
        # indexes like NumPy, so the first of them raises.
        assert result["surplus_threads"] == 24 and result["grid"] == 4
        assert "IndexError" in result["raised"]
        assert result["oob_writes"] is None and "GPU" in result["unavailable"]["oob_writes"]
        dtypes = backend.run("lesson", LessonRequest("array_dtypes"))
        assert dtypes["numpy_zeros_dtype"] == "float64"
        assert backend._proc.pid == child  # the same child ran both
    finally:
        backend.shutdown()
