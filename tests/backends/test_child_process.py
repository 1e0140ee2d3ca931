"""The simulator's child: started from simtviz's own entry point, gone with the app (11.2, 11.3, 11.5).

Each test runs a real script in a subprocess, as a user would, and looks at the processes and
files it leaves.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from private_fs import SRC, run_private

# A script as a student writes it: no ``if __name__ == "__main__"`` guard.
UNGUARDED = """
import sys
from pathlib import Path
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QSpinBox
from simtviz.gui import create_main_window

with open(sys.argv[1], "a") as log:
    log.write("top level ran\\n")
app = QApplication([])
window = create_main_window("sim")
for name, value in (("gridX", 4), ("gridY", 1), ("gridZ", 1), ("blockX", 32), ("blockY", 1), ("blockZ", 1)):
    window.findChild(QSpinBox, name).setValue(value)
done = []

def poll():
    if window.session.info is not None and not done:
        done.append(True)
        window.run()
    if window.recording is not None and not window.busy:
        print("recorded", window.recording.threads, flush=True)
        window.close()
        app.quit()

timer = QTimer(interval=50, timeout=poll)
timer.start()
QTimer.singleShot(90_000, app.quit)
app.exec()
"""


def _env(tmp: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])),
        "QT_QPA_PLATFORM": "offscreen",
        "TMPDIR": str(tmp),
    }


def test_a_script_without_a_main_guard_runs_once_and_records(tmp_path: Path) -> None:
    script = tmp_path / "student.py"
    script.write_text(UNGUARDED)
    log = tmp_path / "log.txt"
    (tmp_path / "tmp").mkdir()
    done = subprocess.run(
        [sys.executable, str(script), str(log)],
        capture_output=True,
        text=True,
        env=_env(tmp_path / "tmp"),
        timeout=120,
        cwd=tmp_path,
    )
    assert "recorded 128" in done.stdout, done.stderr
    assert log.read_text() == "top level ran\n"  # the child never re-ran the script
    assert list((tmp_path / "tmp").iterdir()) == []


# Starts a long simulator run (about a minute here) and says which processes it started.
LONG_RUN = """
import os, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QSpinBox
from simtviz.gui import create_main_window

app = QApplication([])
window = create_main_window("sim")
DIMS = (("gridX", 2048), ("gridY", 1), ("gridZ", 1), ("blockX", 256), ("blockY", 1), ("blockZ", 1))
for name, value in DIMS:
    window.findChild(QSpinBox, name).setValue(value)
started = []

def poll():
    backend = window.session.backend
    if backend is not None and not started:
        started.append(True)
        window.run(force=True)
    elif started and window.busy and len(started) == 1:
        started.append(True)
        print("child", backend.child_pid, flush=True)

QTimer(app, interval=50, timeout=poll).start()
app.exec()
"""


def children_of(pid: int) -> set[int]:
    """Process ids whose parent is ``pid`` (from /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("signo", [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP])
def test_the_child_dies_with_the_app_and_leaves_no_files(tmp_path: Path, signo: int) -> None:
    script = tmp_path / "long_run.py"
    script.write_text(textwrap.dedent(LONG_RUN))
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    app = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=_env(tmp), cwd=tmp_path
    )
    try:
        line = app.stdout.readline() if app.stdout else ""
        assert line.startswith("child "), f"the run did not start: {line!r}"
        child = int(line.split()[1])
        started = children_of(app.pid)
        assert child in started and alive(child)
        assert any(tmp.iterdir())  # the child's own temporary folder, while it runs
        app.send_signal(signo)
        app.wait(30)
        # Every process the app started (the simulator, and any helper such as a resource
        # tracker) ends within a few seconds of the app; none keeps a core busy for hours.
        deadline = time.monotonic() + 10
        while any(alive(p) for p in started) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p for p in started if alive(p)], "processes outlived the app"
        assert list(tmp.iterdir()) == [], "temporary files outlived the app"
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
        if app.stdout:
            app.stdout.close()  # pytest's filterwarnings=error: an open pipe is a ResourceWarning


def test_stale_folders_of_dead_apps_are_removed_at_start(tmp_path: Path) -> None:
    from simtviz.backends.sim_process import remove_stale_temp

    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    stale = tmp_path / f"simtviz-sim-{int(dead.stdout)}-abc"
    stale.mkdir()
    (stale / "kernel.py").write_text("x")
    mine = tmp_path / f"simtviz-sim-{os.getpid()}-def"
    mine.mkdir()
    assert remove_stale_temp(str(tmp_path)) == [stale]
    assert not stale.exists() and mine.exists()


# --- a tiny temporary folder (issue 11.2): the run needs no room there --------------------------
TINY_TMP = """
from simtviz.backends.sim_process import SimProcessBackend
from simtviz.core.launch import LaunchConfig
from simtviz.core.window import choose_window
config = LaunchConfig.of((16, 8), (8, 8))
backend = SimProcessBackend()
try:
    recording = backend.record(config, choose_window(config, 1 << 22))
    result = {"threads": recording.threads, "ok": recording.verification.ok}
finally:
    backend.shutdown()
result["left"] = sorted(p.name for p in MOUNT.iterdir())
report(result)
"""


def test_a_run_with_a_64k_temporary_folder_records_and_leaves_nothing(tmp_path: Path) -> None:
    mount = tmp_path / "mnt"
    r = run_private(TINY_TMP, mount, size="64k", env={"TMPDIR": str(mount)})
    assert r == {"threads": 8192, "ok": True, "left": []}
