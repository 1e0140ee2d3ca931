"""Ctrl+C and SIGTERM close the desktop app as its close button does (issue 11.4)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simtviz.qt.worker_bridge import WorkerBridge

SRC = Path(__file__).resolve().parents[2] / "src"

# Opens the app as ``simtviz`` does (run_app), starts a long simulator run and says so.
APP_MID_RUN = """
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QSpinBox

app = QApplication(["simtviz"])
from simtviz.qt.main_window import MainWindow

DIMS = (("gridX", 2048), ("gridY", 1), ("gridZ", 1), ("blockX", 256), ("blockY", 1), ("blockZ", 1))
state = []

def poll():
    window = next((w for w in app.topLevelWidgets() if isinstance(w, MainWindow)), None)
    if window is None or window.session.backend is None:
        return
    if not state:
        state.append(1)
        for name, value in DIMS:
            window.findChild(QSpinBox, name).setValue(value)
        window.run(force=True)
    elif len(state) == 1 and window.busy:
        state.append(1)
        print("running", window.session.backend.child_pid, flush=True)

timer = QTimer(interval=50, timeout=poll)
timer.start()
from simtviz.qt.app import run_app
sys.exit(run_app("sim"))
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize(("signo", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 0)])
def test_a_signal_mid_run_closes_the_app_like_its_close_button(
    tmp_path: Path, signo: int, status: int
) -> None:
    script = tmp_path / "app.py"
    script.write_text(APP_MID_RUN)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "TMPDIR": str(tmp_path),
    }
    app = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        line = app.stdout.readline() if app.stdout else ""
        assert line.startswith("running "), line
        child = int(line.split()[1])
        app.send_signal(signo)
        _out, err = app.communicate(timeout=30)
    finally:
        if app.poll() is None:
            app.kill()
            app.communicate()  # closes the pipes (an open one is a ResourceWarning, an error here)
    assert app.returncode == status, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    # The settings were saved as the close button saves them: the launch of this run.
    settings = (tmp_path / "config" / "simtviz" / "simtviz.ini").read_text()
    assert "2048,1,1" in settings.replace(" ", "")
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(child), "the run was not stopped"


def test_ctrl_c_inside_a_callback_lets_it_finish_first() -> None:
    finished: list[str] = []
    # Python's own handler, whatever an earlier test or the shell that started pytest left
    # (tests/qt/conftest.py restores the handlers after each test)
    signal.signal(signal.SIGINT, signal.default_int_handler)

    def callback() -> None:
        signal.raise_signal(signal.SIGINT)  # Python's own handler: KeyboardInterrupt
        finished.append("second half")  # e.g. "not busy any more"

    with pytest.raises(KeyboardInterrupt):
        WorkerBridge._on_deliver(None, callback, ())  # type: ignore[arg-type]
    assert finished == ["second half"]
