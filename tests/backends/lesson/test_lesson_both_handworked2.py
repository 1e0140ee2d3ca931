"""The probes that run the same code on both backends, hand-worked: the default count[2, 4]
launch, whether cuda.lang is installed, the child process's environment, and what the error
step keeps of a child that failed (stand-in children, so each runs in a few milliseconds)."""

from __future__ import annotations

import sys
import textwrap
from types import ModuleType

import pytest

from simtviz.backends.lesson import both


@pytest.fixture(autouse=True)
def _simulator(backend_kind: str) -> None:
    if backend_kind != "sim":
        pytest.skip("simulator test")


def test_the_default_launch_is_count_2_4_and_runs_8_threads() -> None:
    # The claim "2 blocks of 4 threads run the body 8 times" runs the probe with its defaults:
    # 2 × 4 = 8.
    result = both.thread_count()
    assert (result["threads_ran"], result["launches"]) == (8, [[2, 4]])


def test_cuda_lang_is_reported_installed_only_where_it_imports(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cupy", None)  # CuPy is not what this test is about
    monkeypatch.setitem(sys.modules, "cuda.lang", ModuleType("cuda.lang"))
    installed = both.ecosystem()
    assert installed["cuda_lang_importable"] is True
    assert installed["kernel_package"] == "numba.cuda"
    monkeypatch.setitem(sys.modules, "cuda.lang", None)  # import cuda.lang raises ImportError
    assert both.ecosystem()["cuda_lang_importable"] is False


def test_the_child_gets_the_app_s_environment_and_the_simulator_only_when_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")
    monkeypatch.setenv("SIMTVIZ_LESSON_MARK", "kept")
    code = "import os; print(os.environ.get('NUMBA_ENABLE_CUDASIM'), os.environ.get('SIMTVIZ_LESSON_MARK'))"
    assert both._child(code, simulated=False).stdout == "None kept\n"
    assert both._child(code, simulated=True).stdout == "1 kept\n"


def _fault(stdout_lines: list[str], stderr: str, status: int) -> str:
    """A stand-in for the fault child: prints ``stdout_lines``, writes ``stderr``, exits ``status``."""
    return textwrap.dedent(
        f"""\
        import sys
        print({chr(10).join(stdout_lines)!r})
        sys.stderr.write({stderr!r})
        sys.exit({status})
        """
    )


def test_what_the_error_step_keeps_of_its_fault_child(monkeypatch: pytest.MonkeyPatch) -> None:
    # A healthy child: it says where the fault surfaced and whether it stuck, and exits 0; its
    # stderr (numba's warnings) is not shown.
    healthy = ["SURFACED the launch line", "ERROR IndexError: index 2 is out of bounds", "STICKY no"]
    monkeypatch.setattr(both, "FAULT", _fault(healthy, "a warning", 0))
    result = both.error_checks()
    # §2.2.6 as printed has no imports: its first line that uses cp raises NameError, caught.
    assert result["as_printed_output"] == "Exception occurred: name 'cp' is not defined"
    assert (result["fault_surfaced_at"], result["fault_sticky"]) == ("the launch line", False)
    assert result["fault_error"] == "IndexError: index 2 is out of bounds"
    assert "fault_stderr" not in result
    # A child that answered, then exited 3: the last 1,500 characters of its stderr are kept
    # (1,000 a's then 1,000 b's: the last 500 a's and every b).
    stuck = ["SURFACED synchronize()", "STICKY yes", "LATER CudaAPIError: 700"]
    monkeypatch.setattr(both, "FAULT", _fault(stuck, "a" * 1000 + "b" * 1000, 3))
    result = both.error_checks()
    assert (result["fault_surfaced_at"], result["fault_sticky"]) == ("synchronize()", True)
    assert result["later_error"] == "CudaAPIError: 700"
    assert result["fault_stderr"] == "a" * 500 + "b" * 1000
    # A child that exited 1 (Python's own status for an uncaught error).
    monkeypatch.setattr(both, "FAULT", _fault(stuck, "Traceback", 1))
    assert both.error_checks()["fault_stderr"] == "Traceback"
    # A child that exited 0 without saying whether the fault stuck: its stderr is kept too.
    monkeypatch.setattr(both, "FAULT", _fault(["SURFACED nowhere"], "nothing after", 0))
    result = both.error_checks()
    assert (result["fault_surfaced_at"], result["fault_sticky"]) == ("nowhere", None)
    assert result["fault_stderr"] == "nothing after"
