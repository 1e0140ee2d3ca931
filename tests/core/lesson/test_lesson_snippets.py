"""Every program the lesson shows runs as shown, and every change to the chapter's code is marked.

The programs that need no CuPy run here, each in its own Python with the CUDA simulator
(NUMBA_ENABLE_CUDASIM=1), exactly as a student would paste them; the CuPy ones run in
tests/gpu/test_lesson_gpu.py on a GPU. The chapter's code blocks are in chapter_2_2_code.py,
copied verbatim from the chapter.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from chapter_2_2_code import CHAPTER_CODE
from simtviz.core import lesson

MARK = "# corrected:"


def _norm(line: str) -> str:
    """A line as compared with the chapter: indentation and the chapter's '##' comments aside."""
    text = line.strip()
    return "# " + text[3:] if text.startswith("## ") else text


def unmarked_changes(code: str, chapter: str) -> list[str]:
    """Lines of ``code`` that are not the chapter's and carry no mark. A line is marked by
    ``# corrected:`` on it, or by a ``# corrected:`` comment line above it with no chapter line
    between (a marked block of added lines)."""
    ours = {_norm(line) for line in chapter.splitlines() if line.strip()}
    marked, bad = False, []
    for line in code.splitlines():
        text = _norm(line)
        if not text:
            continue
        if text.startswith(MARK):
            marked = True
        elif text in ours:
            marked = False
        elif MARK not in text and not marked:
            bad.append(line)
    return bad


def test_the_marking_rule_catches_an_unmarked_change() -> None:
    chapter = "import numpy as np\n## make it\nx = np.zeros(3)\n"
    assert unmarked_changes("import numpy as np\n# make it\nx = np.zeros(3)\n", chapter) == []
    assert unmarked_changes("import numpy as np\nx = np.ones(3)\n", chapter) == ["x = np.ones(3)"]
    assert unmarked_changes("x = np.ones(3)  # corrected: ones\n", chapter) == []
    block = "# corrected: added\ny = 1\nz = 2\nx = np.zeros(3)\nw = 3\n"
    assert unmarked_changes(block, chapter) == ["w = 3"]  # the chapter line ends the block


@pytest.mark.parametrize("section", sorted(CHAPTER_CODE))
def test_every_change_to_the_chapters_code_is_marked(section: str) -> None:
    code = lesson.step(section).code
    assert unmarked_changes(code, CHAPTER_CODE[section]) == []


# Chapter lines the lesson replaces (each by a marked line), read off the chapter by hand.
REPLACED = {
    "2.2.2.3": {"C[idx] = A[idx] + B[idx]", "idx = cuda.grid(1)"},  # guarded; grid(1) as a comment
    "2.2.3.1": {
        "## when a datatype is not specified, float32 is used by default",
        "B_device = cp.rand.random((2**20), dtype=np.double)",
        "C_device = cp.zeros_like(A)",
    },
    "2.2.3.2": {"B_device = cp.rand.random((1024, 1024))"},
    "2.2.4": {"..", "cp.synchronize()"},
    "2.2.5": {
        "C[work_index] = A[work_index] + B[work_index]",  # now under the guard: kept, re-indented
        "## Create device arrays of uniform random float32 values as input, and an array of zeros",
        "## Perform the copy on the CPU to verify the answer",
    },
    "2.2.6": {"C[work_index] = A[work_index] + B[work_index]", "except Exception as e:"},
}


@pytest.mark.parametrize("section", sorted(CHAPTER_CODE))
def test_the_chapters_lines_are_kept_unless_replaced(section: str) -> None:
    ours = {_norm(line) for line in lesson.step(section).code.splitlines()}
    dropped = {
        line.strip()
        for line in CHAPTER_CODE[section].splitlines()
        if line.strip() and _norm(line) not in ours
    }
    assert dropped <= {r.strip() for r in REPLACED.get(section, set())}, dropped


def test_the_vector_adds_true_comment_is_kept() -> None:
    # §2.2.5 says the copy would implicitly wait for the kernel: true (cp.asnumpy waits).
    assert "the copy below would implicitly wait for" in lesson.step("2.2.5").code


SIM_SNIPPETS = [s for s in lesson.STEPS if s.code and not s.needs_cupy]


@pytest.mark.parametrize("section", [s.section for s in lesson.STEPS if s.code])
def test_every_program_is_valid_python(section: str) -> None:
    # The CuPy ones run only on a GPU (tests/gpu): here, at least each one parses.
    compile(lesson.step(section).code, section, "exec")


def run_snippet(code: str, simulated: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    if simulated:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300, check=False
    )


def test_the_snippets_that_need_no_gpu_are_most_of_the_kernel_steps() -> None:
    sections = {s.section for s in SIM_SNIPPETS}
    assert {"2.2.1", "2.2.1.3", "2.2.1.4", "2.2.2", "2.2.2.1", "2.2.2.2", "2.2.2.3", "2.2.2.3+"} <= sections
    assert all(s.needs_cupy for s in lesson.STEPS if s.section in {"2.2.1.1", "2.2.5", "2.2.6"})


# What each program prints on the simulator, worked by hand.
EXPECTED_OUTPUT = {
    "2.2.1": "kernels here are written with: numba.cuda",
    "2.2.1.3": "numba can run CUDA kernels here: True",  # the simulator stands in for a GPU
    "2.2.1.4": "[ 0.  2.  4.  6.  8. 10. 12. 14.]",  # 2 × arange(8)
    "2.2.2": "threads that ran the kernel: 8",  # 2 blocks × 4 threads
    "2.2.2.1": "three launches done",
    "2.2.2.2": "threads in both launches: 224",  # 1 × 32 + 3 × 64
    "2.2.2.2.1": "launched 128 threads",  # 4 × 32
    "2.2.2.2.2": "launched 192 threads",  # 3 × 2 × 8 × 4
    "2.2.2.3": "every C[i] is 3.0: True",  # 1 + 2
    # 48 threads: 32 in warp 0 then 16 in warp 1; lanes 0..31 then 0..15
    "2.2.2.3+": "warp: [" + " ".join(["0"] * 32 + ["1"] * 16) + "]",
}


@pytest.mark.parametrize("section", [s.section for s in SIM_SNIPPETS])
def test_each_snippet_runs_as_shown_on_the_simulator(section: str) -> None:
    proc = run_snippet(lesson.step(section).code, simulated=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = " ".join(proc.stdout.split())
    assert " ".join(EXPECTED_OUTPUT[section].split()) in out, proc.stdout
