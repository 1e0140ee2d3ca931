"""How the isolated run's parent words what its child reports (hand-made messages; no process is
started): a child that died, a sticky CUDA error that only the child's context has, an error
simtviz words itself, and one it does not know."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from simtviz.backends.isolated import IsolatedChild, _kernel_words
from simtviz.core.errors import KernelFailed, LaunchTooLarge


def child(returncode: int = -9, stderr: str = "", alive: bool = True) -> Any:
    made = IsolatedChild.__new__(IsolatedChild)
    made.proc = SimpleNamespace(returncode=returncode)
    made.kind, made.experiment = "sim", "trace"
    made.kill = lambda: None  # type: ignore[method-assign]
    made.stderr_text = lambda: stderr  # type: ignore[method-assign]
    made.alive = lambda: alive  # type: ignore[method-assign]
    return made


def test_a_child_that_died_is_named_with_its_exit_status_and_last_lines() -> None:
    failure = child(-9, "a\nb\nc\nd\n")._failure(("eof",))
    assert isinstance(failure, KernelFailed)
    assert failure.message == (
        "the traced kernel's process ended unexpectedly (exit status -9): b / c / d; the app is unaffected"
    )
    quiet = child(1)._failure(("eof",))
    assert (
        quiet.message
        == "the traced kernel's process ended unexpectedly (exit status 1); the app is unaffected"
    )


def test_a_sticky_error_is_the_child_s_alone() -> None:
    sticky = KernelFailed("cudaErrorIllegalAddress: an illegal memory access", needs_restart=True)
    failure = child()._failure(("error", sticky, "KernelFailed", str(sticky), ""))
    assert isinstance(failure, KernelFailed) and not failure.needs_restart
    assert failure.message == (
        "cudaErrorIllegalAddress: an illegal memory access "
        "(only the traced kernel's own process was affected)"
    )


def test_errors_simtviz_words_come_through_as_they_are_and_others_are_named() -> None:
    own = LaunchTooLarge(200_000, 30.0, 131_072, "the CUDA simulator")
    assert child()._failure(("error", own, "LaunchTooLarge", str(own), "")) is own
    plain = KernelFailed("IndexError: index 40 is out of bounds", line=7)
    assert child()._failure(("error", plain, "KernelFailed", str(plain), "")) is plain
    odd = child()._failure(("error", None, "RecursionError", "maximum recursion depth exceeded", "tb"))
    assert isinstance(odd, KernelFailed)
    assert (
        odd.message == "the traced kernel's process raised RecursionError: maximum recursion depth exceeded"
    )


def test_a_waiting_child_serves_only_its_own_kind_and_experiment_while_alive() -> None:
    assert child().matches("sim", "trace")
    assert not child().matches("emu", "trace") and not child().matches("sim", "exercise")
    assert not child(alive=False).matches("sim", "trace")


def test_the_kernel_is_named_by_its_name_or_its_file() -> None:
    assert _kernel_words(SimpleNamespace(kernel="double", filename="k.py")) == "'double'"
    assert _kernel_words(SimpleNamespace(kernel=None, filename="k.py")) == "in k.py"
    assert _kernel_words(SimpleNamespace()) == "in the file"
