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


def test_stale_trace_folders_go_and_live_ones_stay(tmp_path: Any) -> None:
    # Folders are named simtviz-trace-<the app's pid>-*: this process's and a live process's
    # (pid 1) stay; a finished process's goes; one of the old naming goes only after a day.
    import os
    import subprocess
    import sys
    import time

    from simtviz.backends.isolated import OLD_FOLDER_AGE_S, remove_stale_trace_temp

    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead_pid = int(ended.stdout)
    names = [
        f"simtviz-trace-{os.getpid()}-a",
        "simtviz-trace-1-b",
        f"simtviz-trace-{dead_pid}-c",
        "simtviz-trace-old",
        "simtviz-trace-new",
    ]
    for name in names:
        (tmp_path / name).mkdir()
    two_days_ago = time.time() - 2 * OLD_FOLDER_AGE_S
    os.utime(tmp_path / "simtviz-trace-old", (two_days_ago, two_days_ago))
    removed = remove_stale_trace_temp(str(tmp_path))
    assert sorted(p.name for p in removed) == sorted([f"simtviz-trace-{dead_pid}-c", "simtviz-trace-old"])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f"simtviz-trace-{os.getpid()}-a", "simtviz-trace-1-b", "simtviz-trace-new"]
    )


def test_a_child_runs_the_simulator_only_when_asked_and_imports_this_simtviz(monkeypatch: Any) -> None:
    import os
    from pathlib import Path

    import simtviz
    from simtviz.backends.isolated import child_env

    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")
    src = str(Path(simtviz.__file__).resolve().parents[1])
    assert child_env("sim")["NUMBA_ENABLE_CUDASIM"] == "1"
    for kind in ("gpu", "emu"):
        env = child_env(kind)
        assert "NUMBA_ENABLE_CUDASIM" not in env
        assert env["PYTHONPATH"].split(os.pathsep)[0] == src and env["PYTHONUNBUFFERED"] == "1"


def test_a_child_that_cannot_start_says_where() -> None:
    from simtviz.backends.isolated_child import _as_unavailable
    from simtviz.core.errors import BackendUnavailable

    own = LaunchTooLarge(200_000, 30.0, 131_072, "the CUDA simulator")
    assert _as_unavailable(own, "sim") is own  # simtviz's own words pass as they are
    failure = _as_unavailable(ImportError("No module named 'numba'"), "sim")
    assert isinstance(failure, BackendUnavailable)
    assert str(failure).startswith("the traced kernel's process could not start ")
    assert str(failure).endswith(": No module named 'numba'")


def test_a_child_ends_when_its_parent_closes_its_stdin() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from simtviz.backends.isolated_child import _watch_parent\n"
        "_watch_parent(sys.stdin.buffer)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], input=b"abc", capture_output=True, timeout=30)
    assert done.returncode == 3, done.stderr


def _isolated_child(*argv: str, request: Any = None) -> tuple[int, list[Any]]:
    """Run the isolated child as the app does (``python -m``), hand it ``request`` with its stdin
    kept open until the reply (a closed stdin means the app gave up), or close its stdin at once;
    read back every message it wrote."""
    import pickle
    import subprocess
    import sys

    from simtviz.backends.isolated import child_env
    from simtviz.backends.isolated_child import HEADER, read_message

    proc = subprocess.Popen(
        [sys.executable, "-m", "simtviz.backends.isolated_child", *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=child_env("emu"),
    )
    assert proc.stdin is not None and proc.stdout is not None
    if request is not None:
        body = pickle.dumps(request)
        proc.stdin.write(HEADER.pack(len(body)) + body)
        proc.stdin.flush()
    else:
        proc.stdin.close()
    messages: list[Any] = []
    try:
        while True:
            messages.append(read_message(proc.stdout))
            if messages[-1][0] in ("ok", "error"):
                break
    except EOFError:
        pass
    code = proc.wait(timeout=120)  # before closing its stdin, which would end it with status 3
    proc.stdin.close()
    proc.stdout.close()
    return code, messages


def test_the_child_says_ready_and_ends_quietly_when_no_request_comes() -> None:
    # The app starts a child ahead of Run and may close it unused: "ready", then exit status 0.
    import os

    code, messages = _isolated_child("emu", "simtviz.backends.trace", "trace", str(os.getpid()))
    assert code == 0 and [m[0] for m in messages] == ["ready"]
    code, messages = _isolated_child("emu", "simtviz.backends.trace", "trace")  # no parent pid given
    assert code == 0 and [m[0] for m in messages] == ["ready"]


def test_a_child_that_cannot_load_its_experiment_reports_it_and_exits_1() -> None:
    code, messages = _isolated_child("emu", "simtviz.backends.trace", "no-such-experiment")
    assert code == 1 and len(messages) == 1 and messages[0][0] == "error"


def test_the_child_runs_one_request_and_replies_with_its_result() -> None:
    from simtviz.core.trace.model import TraceRequest

    kernel = (
        "from numba import cuda\n\n\n@cuda.jit\ndef double(A):\n    i = cuda.grid(1)\n"
        "    if i < A.size:\n        A[i] = 2 * A[i]\n"
    )
    request = TraceRequest(kernel, (1, 1, 1), (32, 1, 1), {"A": "float32[32]"})
    code, messages = _isolated_child("emu", "simtviz.backends.trace", "trace", request=request)
    kinds = [m[0] for m in messages]
    assert code == 0 and kinds[0] == "ready" and kinds[-1] == "ok", messages[-1]
    assert messages[-1][1].log.shape[1] == 64  # 32 loads and 32 stores
