"""Event-loop latency of the desktop app during a simulator run (offscreen, sim backend).

A 10 ms QTimer ticks while the app runs a launch of about ``--seconds`` on the CUDA simulator;
the gaps between ticks show how long the GUI thread was ever unable to react. Usage:

    QT_QPA_PLATFORM=offscreen python benchmarks/event_loop_latency.py [--seconds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="simulator run length to aim for")
    args = parser.parse_args()

    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from simtviz.core.estimates import threads_per_second
    from simtviz.gui import create_main_window

    app = QApplication.instance() or QApplication([])
    settings = QSettings(os.path.join(tempfile.mkdtemp(), "simtviz.ini"), QSettings.Format.IniFormat)
    w = create_main_window("sim", settings)
    w.show()
    deadline = time.perf_counter() + 30
    while w.session.backend is None and time.perf_counter() < deadline:
        app.processEvents()
        time.sleep(0.01)
    blocks = max(1, round(args.seconds * threads_per_second("sim") / 256))
    w.launchPanel.spins["gridX"].setValue(blocks)
    for name, value in (("gridY", 1), ("gridZ", 1), ("blockX", 256), ("blockY", 1), ("blockZ", 1)):
        w.launchPanel.spins[name].setValue(value)
    ticks: list[float] = []
    timer = QTimer(interval=10)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    started = time.perf_counter()
    w.run(force=True)
    while (w.busy or w.recording is None) and time.perf_counter() - started < 120:
        app.processEvents()
        time.sleep(0.001)
    # A moment more: drawing the map happens on the GUI thread and counts too.
    end = time.perf_counter() + 0.3
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.001)
    run_s = time.perf_counter() - started
    timer.stop()
    gaps_ms = np.diff(ticks) * 1000
    rec = w.recording
    print(f"launch            {rec.config.launch_line() if rec else 'none'} ({blocks * 256:,} threads)")
    print(f"run → map         {run_s:.2f} s (simulator, child process)")
    print(f"timer ticks       {len(ticks)} (10 ms interval)")
    print(f"gap median        {statistics.median(gaps_ms):.1f} ms")
    print(f"gap p99           {np.percentile(gaps_ms, 99):.1f} ms")
    print(f"gap max           {gaps_ms.max():.1f} ms  (target < 100 ms)")
    w.close()


if __name__ == "__main__":
    main()
