"""Run → map in the real window on the CPU emulator (issue 20): a 2-D 256×256 launch, 5 runs.

    QT_QPA_PLATFORM=offscreen python benchmarks/emu_window.py

Times from the Run button's click to the map holding the new image (the event loop running),
after one warm-up run. Prints median, min and max in ms.
"""

from __future__ import annotations

import statistics
import time

from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer
from PySide6.QtWidgets import QApplication, QPushButton, QSpinBox

from simtviz.gui import create_main_window


def wait(predicate, timeout_s: float = 60.0) -> None:
    end = time.perf_counter() + timeout_s
    while not predicate():
        if time.perf_counter() > end:
            raise TimeoutError("the map did not arrive")
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)


def main() -> None:
    app = QApplication([])
    window = create_main_window(backend="emu")
    window.resize(1280, 720)
    window.show()
    for what, dims in (("grid", (16, 16, 1)), ("block", (16, 16, 1))):
        for axis, value in zip("XYZ", dims, strict=True):
            window.findChild(QSpinBox, f"{what}{axis}").setValue(value)
    button = window.findChild(QPushButton, "runButton")
    times = []
    for run in range(6):
        wait(lambda: button.isEnabled() and not window.busy)
        before = window.indexMap.current_image()
        start = time.perf_counter()
        button.click()
        wait(
            lambda b=before: (
                window.indexMap.current_image() is not None and window.indexMap.current_image() is not b
            )
        )
        if run:  # the first run warms up
            times.append((time.perf_counter() - start) * 1e3)
    print(
        f"Run -> map, 256x256 threads on emu: median {statistics.median(times):.0f} ms, "
        f"min {min(times):.0f}, max {max(times):.0f} ({len(times)} runs)"
    )
    window.close()
    QTimer.singleShot(0, app.quit)
    app.exec()


if __name__ == "__main__":
    main()
