"""The limits a child process sets on itself (backends/child_limits.py), hand-worked with the
operating system stood in for: which limits each backend's child gets, the CPU backstop's
arithmetic, and the count of the user's tasks that the process limit is based on."""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import Any

import pytest

from simtviz.backends import child_limits as limits


@pytest.fixture
def lowered(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(limits, "_lower", lambda which, soft, hard=None: calls.append((which, soft, hard)))
    monkeypatch.setattr(limits, "_small_threads", lambda: calls.append(("small threads",)))
    return calls


def test_a_simulator_child_gets_every_limit_and_a_gpu_child_no_address_space_limit(
    lowered: list[tuple[Any, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    import resource

    monkeypatch.setattr(limits, "user_tasks", lambda: 7)
    monkeypatch.setattr(limits.os, "getuid", lambda: 1000)
    limits.apply_limits("sim")
    assert lowered == [
        (resource.RLIMIT_AS, 16 * limits.GIB, None),  # 14 GiB + 1,024 stacks of 2 MiB
        ("small threads",),
        (resource.RLIMIT_NOFILE, 1024, None),
        (resource.RLIMIT_NPROC, 7 + 2048, None),  # what runs now, plus room for 2,048 more
    ]
    lowered.clear()
    limits.apply_limits("gpu")  # CUDA reserves far more address space than it uses
    assert lowered == [(resource.RLIMIT_NOFILE, 1024, None), (resource.RLIMIT_NPROC, 2055, None)]


def test_root_is_not_held_by_a_process_count(
    lowered: list[tuple[Any, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    import resource

    monkeypatch.setattr(limits, "user_tasks", lambda: pytest.fail("not counted for root"))
    monkeypatch.setattr(limits.os, "getuid", lambda: 0)
    limits.apply_limits("emu")
    assert [call[0] for call in lowered] == [resource.RLIMIT_AS, "small threads", resource.RLIMIT_NOFILE]


def test_the_cpu_backstop_is_what_was_spent_plus_the_run_s_seconds(
    lowered: list[tuple[Any, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # 2.6 s user + 0.5 s system spent: int(3.1) + 1 = 4; a 10.9 s run: 4 + 10 + 1 = 15 s soft,
    # SIGKILL 5 s later.
    fake = SimpleNamespace(
        getrusage=lambda who: SimpleNamespace(ru_utime=2.6, ru_stime=0.5), RUSAGE_SELF=0, RLIMIT_CPU="cpu"
    )
    monkeypatch.setitem(sys.modules, "resource", fake)
    limits.limit_cpu(10.9)
    assert lowered == [("cpu", 15, 20)]


def test_the_user_s_tasks_are_counted_from_proc(monkeypatch: pytest.MonkeyPatch) -> None:
    # uid 1000: process 22 with 4 threads and process 333 with no Threads line (1); root's
    # process 1, a process gone mid-count (444) and /proc/self are not counted: 5.
    status = {
        "/proc/1/status": "Name:\tinit\nUid:\t0\t0\t0\t0\nThreads:\t1\n",
        "/proc/22/status": "Name:\tpython\nUid:\t1000\t1000\t1000\t1000\nThreads:\t4\n",
        "/proc/333/status": "Name:\tsh\nUid:\t1000\t1000\t1000\t1000\n",
    }

    class FakePath:
        def __init__(self, path: str) -> None:
            self.path = path

        def read_text(self) -> str:
            if self.path not in status:
                raise FileNotFoundError(self.path)
            return status[self.path]

    monkeypatch.setattr(limits, "Path", FakePath)
    fake_os = SimpleNamespace(getuid=lambda: 1000, listdir=lambda _p: ["1", "22", "self", "333", "444"])
    monkeypatch.setattr(limits, "os", fake_os)
    assert limits.user_tasks() == 5


def test_no_proc_means_no_count(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_proc(_path: str) -> list[str]:
        raise FileNotFoundError("/proc")

    monkeypatch.setattr(limits, "os", SimpleNamespace(getuid=lambda: 1000, listdir=no_proc))
    assert limits.user_tasks() is None


def _child(body: str, limits_cpu: tuple[int, int] | None = None) -> Any:
    import os
    import subprocess

    def lower() -> None:
        import resource

        if limits_cpu is not None:
            resource.setrlimit(resource.RLIMIT_CPU, limits_cpu)

    code = "import os, resource, sys, time\n" + body
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=30,
        env=dict(os.environ),
        preexec_fn=lower,
    )


@pytest.mark.parametrize(
    ("start", "after"),
    [(None, "300"), ((100, 400), "100"), ((350, 400), "300"), ((250, 250), "250")],
)
def test_a_gpu_checker_never_uses_more_than_300_cpu_seconds(
    start: tuple[int, int] | None, after: str
) -> None:
    # No limit: 300 s. A lower one set by the user or admin stays; a higher soft one comes down.
    done = _child(
        "from simtviz.backends.child_limits import end_with_parent\n"
        "end_with_parent(os.getppid())\n"
        "print(resource.getrlimit(resource.RLIMIT_CPU)[0])\n",
        start,
    )
    assert (done.returncode, done.stdout.strip()) == (0, after), done.stderr


def test_a_gpu_checker_ends_when_its_trace_child_is_gone() -> None:
    # Re-parented (the trace child ended): the watch sees it within half a second and exits 3.
    done = _child(
        "from simtviz.backends.child_limits import end_with_parent\n"
        "end_with_parent(os.getppid())\n"
        "os.getppid = lambda: 1\n"
        "time.sleep(5)\n"
        "print('still here')\n"
    )
    assert (done.returncode, done.stdout) == (3, "")


def test_a_child_whose_parent_died_before_it_started_exits_3() -> None:
    done = _child(
        "from simtviz.backends.child_limits import die_with_parent\ndie_with_parent(999999999)\nprint('x')\n"
    )
    assert (done.returncode, done.stdout) == (3, "")
    done = _child(
        "from simtviz.backends.child_limits import die_with_parent\n"
        "die_with_parent(os.getppid())\n"
        "print('x')\n"
    )
    assert (done.returncode, done.stdout) == (0, "x\n")
