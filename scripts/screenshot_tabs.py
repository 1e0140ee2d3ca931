"""Render every tab of the main window at 1280 × 720 and 1920 × 1080, normal and presentation mode,
to PNGs (a picture of what a teacher projects): ``python scripts/screenshot_tabs.py [OUT_DIR]``.

Runs offscreen on the CUDA simulator. The vector add and the kernel tab are run first so their
results are on screen; the lesson is shown on every step (``--lesson`` adds one PNG per step).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from screenshot import wait_for

SIZES = ((1280, 720), (1920, 1080))


def main(out: Path, lesson_steps: bool = False) -> int:
    config = Path(tempfile.mkdtemp()) / "screen.json"
    screen = {"name": "projector", "x": 0, "y": 0, "width": 1920, "height": 1080}
    config.write_text(json.dumps({"screens": [{**screen, "logicalDpi": 96, "dpr": 1}]}))
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={config}"
    os.environ["SIMTVIZ_BACKEND"] = "sim"
    from simtviz.backends.selection import activate

    activate("sim")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from simtviz.qt.main_window import create_main_window

    app = QApplication.instance() or QApplication(["simtviz-screenshot"])
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        settings = QSettings(str(Path(tmp) / "simtviz.ini"), QSettings.Format.IniFormat)
        window = create_main_window("sim", settings)
        window.resize(*SIZES[0])
        window.show()
        wait_for(app, lambda: window.session.backend is not None)
        window.vecaddPanel.run()
        wait_for(app, lambda: not window.busy and window.vecaddPanel.vecaddResult.text() != "Not run yet.")
        kernel = window.kernelTab
        run_traced = getattr(kernel, "run", None)
        if run_traced is not None:
            window.tabs.setCurrentWidget(window.tabs.widget(2))
            run_traced()
            wait_for(app, lambda: kernel.summary() is not None, 120)

        def settle() -> None:
            for _ in range(10):
                app.processEvents()

        for width, height in SIZES:
            for presentation in (False, True):
                window.presentationAction.setChecked(presentation)
                window.resize(width, height)
                settle()
                mode = "pres" if presentation else "normal"
                for i in range(window.tabs.count()):
                    window.tabs.setCurrentIndex(i)
                    settle()
                    name = window.tabs.tabText(i).replace(" ", "_").lower()
                    path = out / f"{width}x{height}-{mode}-{i}-{name}.png"
                    window.grab().save(str(path))
                    if lesson_steps and "lesson" in name and width == 1280 and presentation:
                        lesson = window.lessonPanel
                        for step in range(lesson.step_count()):
                            lesson.show_step(step)
                            settle()
                            window.grab().save(str(out / f"lesson-step{step:02d}.png"))
                        lesson.show_step(0)
        window.close()
    print(f"saved to {out}")
    return 0


if __name__ == "__main__":  # the simulator's child process re-imports this file: keep work here
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    sys.exit(main(Path(args[0]) if args else Path("/tmp/simtviz-tabs"), "--lesson" in sys.argv))
