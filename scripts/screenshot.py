"""Render the main window offscreen to docs/screenshot.png (README shows it): ``make screenshot``.

The CUDA simulator runs the 2-D preset for real; a thread is pinned so the inspector shows its
worked-out formulas. Run again after changing the window so the picture stays current.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "docs" / "screenshot.png"


def wait_for(app, condition, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the simulator did not answer in time")
        app.processEvents()
        time.sleep(0.01)


def main(out: Path = DEFAULT_OUT) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["SIMTVIZ_BACKEND"] = "sim"
    from simtviz.backends.selection import activate

    activate("sim")
    import tempfile

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from simtviz.qt.main_window import create_main_window
    from simtviz.qt.map import Cell

    app = QApplication.instance() or QApplication(["simtviz-screenshot"])
    with tempfile.TemporaryDirectory() as tmp:
        # A fresh settings file: the picture must not depend on whoever ran it last.
        settings = QSettings(str(Path(tmp) / "simtviz.ini"), QSettings.Format.IniFormat)
        window = create_main_window("sim", settings)
        window.resize(1800, 1000)
        window.show()
        wait_for(app, lambda: window.session.backend is not None)
        window.launchPanel.select_preset(1)  # "2-D: a 4 × 3 grid of 8 × 4 blocks"
        window.indexMap.set_color_field("global linear index")
        window.run()
        wait_for(app, lambda: window.recording is not None and not window.busy)
        window.indexMap.pin(Cell(0, 5, 19))
        for _ in range(20):
            app.processEvents()
        out.parent.mkdir(parents=True, exist_ok=True)
        if not window.grab().save(str(out)):
            print(f"could not write {out}", file=sys.stderr)
            return 1
        window.close()
    print(f"saved {out}")
    return 0


if __name__ == "__main__":  # the simulator's child process re-imports this file: keep work here
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT))
