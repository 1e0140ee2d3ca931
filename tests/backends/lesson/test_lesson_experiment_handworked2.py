"""The lesson experiment's two entry points, hand-worked: the GPU worker's ``run_gpu`` and the
simulator child's ``run_sim`` each hand back the probe's own result (run here in-process, in the
simulator, so the GPU path is exercised without a GPU)."""

from __future__ import annotations

import pytest
from numba import cuda  # noqa: F401  (simulator kernels run in-process only with numba.cuda imported)

from simtviz.backends.lesson import LESSON, LessonRequest


@pytest.fixture(autouse=True)
def _simulator(backend_kind: str) -> None:
    if backend_kind != "sim":
        pytest.skip("simulator test")


def test_each_entry_point_returns_what_the_probe_measured() -> None:
    # count_threads[3, 5] then count_threads[1, 2] into one counter: 3 × 5 + 1 × 2 = 17 threads.
    request = LessonRequest("thread_count", {"launches": [[3, 5], [1, 2]]})
    # run_gpu(backend, request, progress); run_sim(request, info, progress): no backend or info needed.
    for result in (LESSON.run_gpu(None, request, None), LESSON.run_sim(request, None, None)):
        assert result["probe"] == "thread_count"
        assert result["threads_ran"] == 17
        assert result["launches"] == [[3, 5], [1, 2]]
