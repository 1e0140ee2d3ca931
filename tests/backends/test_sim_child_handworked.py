"""The simulator child's watchdog (backends/sim_child.py), in a process of its own: it never
outlives the app, never stops while the app lives, and takes its temporary folder with it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PRELUDE = """
import os, signal, sys, time
from simtviz.backends.sim_child import die_with_parent
"""


def run(body: str, tmpdir: Path | None = None, timeout: float = 20) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if tmpdir is not None:
        env["TMPDIR"] = str(tmpdir)
    return subprocess.run(
        [sys.executable, "-c", PRELUDE + body], capture_output=True, text=True, env=env, timeout=timeout
    )


def test_sigterm_while_the_app_lives_does_not_stop_the_child() -> None:
    # PR_SET_PDEATHSIG fires when the app's *thread* that started the child ends; the app lives on.
    done = run(
        "r, w = os.pipe()\n"
        "die_with_parent(r, os.getppid())\n"
        "os.kill(os.getpid(), signal.SIGTERM)\n"
        "time.sleep(0.3)\n"
        "print('still serving')\n"
    )
    assert (done.returncode, done.stdout.strip()) == (0, "still serving"), done.stderr


def test_sigterm_after_the_app_died_ends_the_child_with_the_signal_s_status(tmp_path: Path) -> None:
    folder = tmp_path / "simtviz-sim-abc"
    folder.mkdir()
    (folder / "cache.bin").write_bytes(b"x")
    done = run(
        "r, w = os.pipe()\n"
        "die_with_parent(r, os.getppid())\n"
        "os.getppid = lambda: 1  # the app is gone: the child was handed to init\n"
        "os.kill(os.getpid(), signal.SIGTERM)\n"
        "time.sleep(5)\n"
        "print('still here')\n",
        tmpdir=folder,
    )
    assert done.returncode == 128 + 15 and "still here" not in done.stdout, done.stderr
    assert not folder.exists()  # its own temporary folder went with it


def test_the_app_s_end_of_the_pipe_closing_ends_the_child_at_once(tmp_path: Path) -> None:
    folder = tmp_path / "simtviz-sim-def"
    folder.mkdir()
    done = run(
        "r, w = os.pipe()\n"
        "die_with_parent(r, os.getppid())\n"
        "os.write(w, b'x' * 10000)  # what the app may write does not end it\n"
        "time.sleep(0.2)\n"
        "print('alive', flush=True)\n"
        "os.close(w)\n"
        "time.sleep(5)\n"
        "print('still here')\n",
        tmpdir=folder,
    )
    assert done.returncode == 0 and done.stdout.split() == ["alive"], done.stderr
    assert not folder.exists()


def test_a_child_whose_app_died_before_it_started_exits_at_once(tmp_path: Path) -> None:
    # A folder that is not the child's own (another name) is left alone; a missing one is no error.
    other = tmp_path / "keep-me"
    other.mkdir()
    for tmpdir in (other, tmp_path / "simtviz-sim-gone"):
        done = run("r, w = os.pipe()\ndie_with_parent(r, 999999999)\nprint('still here')\n", tmpdir=tmpdir)
        assert (done.returncode, done.stdout) == (0, ""), done.stderr
    assert other.exists()
