"""The GPU's side of the lesson's claims, read off the words the student reads: each claim the GPU
walk (tests/gpu/test_lesson_gpu.py) checks must expect what the step's own sentence says, so a GPU
run that agrees with the claim agrees with the lesson."""

from __future__ import annotations

from typing import Any

import pytest

from simtviz.core import lesson


def words(section: str) -> str:
    s = lesson.step(section)
    cards = [e.truth for e in s.errata]
    return " ".join([*s.explanation, *s.after_answer, s.sim_shows, s.sim_cannot, *cards])


@pytest.mark.parametrize(
    ("section", "key", "expect", "sentence"),
    [
        # the erratum card: numba-cuda does not bring cuda.lang, here or on a GPU machine
        (
            "2.2.1",
            "cuda_lang_importable",
            {"sim": False, "gpu": False},
            "cuda.lang does not come with numba-cuda",
        ),
        # the erratum card: no cp.rand, whatever the machine
        ("2.2.3.1", "has_cp_rand", {"sim": False, "gpu": False}, "CuPy has no cp.rand."),
        # mixing a CuPy and a NumPy array raises (only a GPU runs CuPy)
        ("2.2.3.3", "mixed_raises", {"gpu": True}, "x + numpy_array (TypeError)"),
        ("2.2.4", "cupy_has_synchronize", {"sim": False, "gpu": False}, "CuPy has no cp.synchronize"),
        # NumPy arguments: numba copies back after the kernel, so the launch waits for it
        ("2.2.5+", "numpy_launch_waits", {"gpu": True}, "Wrong 3: pass NumPy arrays."),
        # a bad launch configuration is not sticky, a fault in a kernel is (on a GPU; the
        # simulator's IndexError is not)
        ("2.2.6", "sticky", {"gpu": False}, "It is not sticky: the next launch works."),
        ("2.2.6", "fault_sticky", {"sim": False, "gpu": True}, "It is sticky: every later CUDA call fails."),
    ],
)
def test_each_gpu_claim_expects_what_its_step_says(
    section: str, key: str, expect: dict[str, Any], sentence: str
) -> None:
    assert sentence in words(section)
    (claim,) = [c for c in lesson.step(section).claims if c.key == key]
    assert claim.expect == expect
