"""What the runners' shared preparation does with the student's file, hand-worked: the name the
file is written under, numba's compile error put on the student's line (the GPU's path, here with
numba's text written out), a SyntaxError that only compiling finds put on its line, and the
temporary folder's removal."""

from __future__ import annotations

import shutil

import pytest
from numba import cuda  # noqa: F401  (the simulator's numba, before simtviz's runners)

from simtviz.backends.trace.prepare import prepare
from simtviz.backends.trace.sim import run_trace_sim
from simtviz.core.trace.model import KernelCompileError, TopLevelError, TraceRequest

VECADD = """from numba import cuda


@cuda.jit
def add(A, B, C):
    i = cuda.grid(1)
    if i < C.size:
        C[i] = A[i] + B[i]
"""
ARGS = {"A": "float32[8]", "B": "float32[8]", "C": "float32[8]"}


def _prepared(filename: str = "vecadd.py", source: str = VECADD):
    return prepare(TraceRequest(source, (1, 1, 1), (8, 1, 1), ARGS, filename=filename))


@pytest.mark.parametrize(
    ("filename", "written"),
    [
        ("vecadd.py", "vecadd.py"),
        ("my kernel-v2.py", "my_kernel_v2.py"),  # ' ' and '-' are not alphanumeric: '_'
        ("", "kernel.py"),  # nothing of a name left: the default
    ],
)
def test_the_student_s_file_is_written_as_they_wrote_it_under_their_name(filename: str, written: str) -> None:
    prepared = _prepared(filename)
    try:
        assert prepared.path.name == written
        assert prepared.path.parent == prepared.folder
        assert prepared.path.read_text(encoding="utf-8") == VECADD
    finally:
        prepared.cleanup()


def test_numba_s_compile_error_is_put_on_the_student_s_line() -> None:
    prepared = _prepared("mine.py")
    try:
        text = (
            "Failed in cuda mode pipeline (step: nopython frontend)\n"
            "Unknown attribute 'sizee' of type array(float32, 1d, C)\n"
            f'File "{prepared.path}", line 7:\n'
            "def add(A, B, C):\n"
            "    <source elided>\n"
        )
        error = prepared.compile_error(RuntimeError(text))
        assert isinstance(error, KernelCompileError)
        assert error.line == 7  # the 'File "…", line 7' of the student's file
        # the head is numba's first line that is not "Failed in …", the temporary path renamed
        assert str(error).startswith("line 7: Unknown attribute 'sizee' of type array(float32, 1d, C)")
        assert 'File "mine.py", line 7:' in str(error) and str(prepared.folder) not in str(error)
    finally:
        prepared.cleanup()


def test_a_compile_error_naming_no_line_of_the_student_s_file_has_line_0() -> None:
    prepared = _prepared("mine.py")
    try:
        text = 'No definition for lowering\nFile "/usr/lib/numba/typeinfer.py", line 1086:\n'
        error = prepared.compile_error(RuntimeError(text))
        assert error.line == 0  # numba's own file is not the student's
        assert str(error).startswith("No definition for lowering")
    finally:
        prepared.cleanup()


# ast.parse accepts a `break` outside any loop (line 5); compiling the file refuses it
BREAK_IN_HELPER = """from numba import cuda


def helper(x):
    break


@cuda.jit
def add(A, B, C):
    i = cuda.grid(1)
    if i < C.size:
        C[i] = A[i] + B[i]
"""


def test_a_syntax_error_only_compiling_finds_is_on_its_line() -> None:
    source = BREAK_IN_HELPER
    with pytest.raises(TopLevelError) as caught:
        run_trace_sim(TraceRequest(source, (1, 1, 1), (8, 1, 1), ARGS, filename="mine.py"))
    assert caught.value.line == 5
    assert str(caught.value).startswith("line 5: SyntaxError: 'break' outside loop")


def test_the_folder_is_removed_and_removing_it_again_is_harmless() -> None:
    prepared = _prepared()
    folder = prepared.folder
    assert folder.is_dir()
    shutil.rmtree(folder)  # e.g. a temporary-files cleaner was first
    prepared.cleanup()  # says nothing
    assert not folder.exists()


def test_the_emulator_refuses_that_syntax_error_on_its_line_too() -> None:
    # The same `break` outside a loop, in a device function the emulator could otherwise run
    # (line 6): refused before the emulator starts, in the simulator's words; before, the
    # emulator hit it with an IndexError of its own and handed the file to the simulator.
    from simtviz.backends.trace.emu import run_trace_emu

    source = BREAK_IN_HELPER.replace("def helper", "@cuda.jit(device=True)\ndef helper")
    with pytest.raises(TopLevelError) as caught:
        run_trace_emu(TraceRequest(source, (1, 1, 1), (8, 1, 1), ARGS, filename="mine.py"))
    assert caught.value.line == 6
    assert str(caught.value).startswith("line 6: SyntaxError: 'break' outside loop")
    assert str(caught.value).endswith("(in the file's top-level code, which runs before the kernel)")
