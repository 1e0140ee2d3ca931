"""Ctrl+C during a command is never lost: Python drops a KeyboardInterrupt that lands in a weakref
callback or a ``__del__`` ("Exception ignored"), which numba's simulator makes likely (a thread per
block, kept in ``threading``'s WeakSet). A user pressed Ctrl+C, and ``simtviz record`` went on,
saved its file and exited 0: one run in four of the slow test in test_cli_exit_codes.py."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest

from simtviz.cli import run
from simtviz.cli.interrupts import ctrl_c_remembered, raise_if_pressed

# The dropped KeyboardInterrupt is what these tests make happen: pytest reports it as unraisable.
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")


class _PressesCtrlCWhenCollected:
    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # handled right here, inside __del__, and dropped


def press_ctrl_c_where_python_drops_it() -> None:
    _PressesCtrlCWhenCollected()  # collected at once: the KeyboardInterrupt is "ignored"


@pytest.fixture
def python_handles_ctrl_c():  # type: ignore[no-untyped-def]
    # As in a terminal, however the tests were started (a background job ignores SIGINT).
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_a_dropped_ctrl_c_during_a_record_saves_nothing_and_exits_130(
    tmp_path: Path, capsys, monkeypatch, python_handles_ctrl_c
) -> None:
    from simtviz.backends.record import sim as record_sim

    original = record_sim.run_kernel_in_simulator

    def run_then_lose_ctrl_c(*args, **kwargs):  # type: ignore[no-untyped-def]
        seconds = original(*args, **kwargs)
        press_ctrl_c_where_python_drops_it()
        return seconds

    monkeypatch.setattr(record_sim, "run_kernel_in_simulator", run_then_lose_ctrl_c)
    out = tmp_path / "r.npz"
    code = run(["record", "--grid", "2", "--block", "4", "--out", str(out), "--backend", "sim"])
    err = capsys.readouterr().err
    assert code == 130
    assert err.strip().splitlines()[-1] == "simtviz: interrupted"
    assert not out.exists()
    # and Python's own handler is back once the command is over
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_ctrl_c_dropped_after_the_work_still_exits_130(python_handles_ctrl_c) -> None:
    with pytest.raises(KeyboardInterrupt), ctrl_c_remembered():
        press_ctrl_c_where_python_drops_it()
        raise_if_pressed()


def test_a_ctrl_c_of_an_earlier_command_is_forgotten(python_handles_ctrl_c) -> None:
    with pytest.raises(KeyboardInterrupt), ctrl_c_remembered():
        press_ctrl_c_where_python_drops_it()
        raise_if_pressed()
    with ctrl_c_remembered():
        raise_if_pressed()  # a new command starts with no Ctrl+C pressed


def test_a_process_that_ignores_ctrl_c_keeps_ignoring_it() -> None:
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a background job
    try:
        with ctrl_c_remembered():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGINT)
            raise_if_pressed()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
