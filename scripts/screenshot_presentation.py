"""Render the main window at 1280 × 720 in presentation mode after a 2-D run, as a projector in a
lecture hall shows it, to docs/screenshot-1280x720-presentation.png.

Runs offscreen on a virtual 1280 × 720 screen (Qt's offscreen platform with a screen config), on
the CUDA simulator; a thread is pinned so the inspector shows its worked-out formulas. Run again
after changing the layout: ``python scripts/screenshot_presentation.py [OUT.png]``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from screenshot import wait_for

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "docs" / "screenshot-1280x720-presentation.png"
SCREEN = (1280, 720)


def main(out: Path = DEFAULT_OUT) -> int:
    config = Path(tempfile.mkdtemp()) / "screen.json"
    screen = {"name": "projector", "x": 0, "y": 0, "width": SCREEN[0], "height": SCREEN[1]}
    config.write_text(json.dumps({"screens": [{**screen, "logicalDpi": 96, "dpr": 1}]}))
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={config}"
    os.environ["SIMTVIZ_BACKEND"] = "sim"
    from simtviz.backends.selection import activate

    activate("sim")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from simtviz.qt.main_window import create_main_window

    app = QApplication.instance() or QApplication(["simtviz-screenshot"])
    with tempfile.TemporaryDirectory() as tmp:
        settings = QSettings(str(Path(tmp) / "simtviz.ini"), QSettings.Format.IniFormat)
        window = create_main_window("sim", settings)
        window.show()  # opens inside the screen's available geometry: 1280 × 720 here
        window.presentationAction.setChecked(True)
        wait_for(app, lambda: window.session.backend is not None)
        window.launchPanel.select_preset(1)  # "2-D: a 4 × 3 grid of 8 × 4 blocks"
        window.indexMap.set_color_field("global linear index")
        window.run()
        wait_for(app, lambda: window.recording is not None and not window.busy)
        window.inspector.go_to("1,2 3,0")  # blockIdx (1, 2), threadIdx (3, 0)
        for _ in range(20):
            app.processEvents()
        out.parent.mkdir(parents=True, exist_ok=True)
        if not window.grab().save(str(out)):
            print(f"could not write {out}", file=sys.stderr)
            return 1
        print(f"saved {out} ({window.width()} × {window.height()})")
        window.close()
    return 0


if __name__ == "__main__":  # the simulator's child process re-imports this file: keep work here
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT))
