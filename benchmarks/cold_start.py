"""App cold start to the first map, and peak memory, on this machine (offscreen, simulator).

    python benchmarks/cold_start.py [runs]

Each run is a fresh Python process: it imports the app, creates and shows the main window,
presses Run on the default launch and stops the clock when the map holds the recorded image.
Target: ≤ 2.5 s. Peak memory is the largest resident set of the app and of its simulator child.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import time
t0 = time.perf_counter()
import os, json, resource
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from PySide6.QtWidgets import QApplication
from PySide6.QtCore import QTimer, QSettings
import tempfile
app = QApplication([])
from simtviz.qt.main_window import create_main_window
settings = QSettings(os.path.join(tempfile.mkdtemp(), "s.ini"), QSettings.Format.IniFormat)
window = create_main_window("sim", settings)
window.show()
t_window = time.perf_counter() - t0
window.run()
def check():
    if window.indexMap.current_image() is not None:
        t_map = time.perf_counter() - t0
        app.processEvents()
        print(json.dumps({
            "window_s": t_window,
            "first_map_s": t_map,
            "threads": int(window.indexMap.current_image().size),
            "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "child_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
        }))
        window.close()
        app.quit()
    else:
        QTimer.singleShot(5, check)
QTimer.singleShot(0, check)
QTimer.singleShot(60000, app.quit)
app.exec()
"""


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SIMTVIZ_BACKEND": "sim"}
    results = []
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=120
        )
        lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
        if not lines:
            raise SystemExit(proc.stderr[-2000:])
        results.append(json.loads(lines[-1]))
    shown = results[0]["threads"]
    print(f"{runs} fresh processes, {os.cpu_count()} CPUs, default launch ({shown:,} threads shown)")
    for key, label in (
        ("window_s", "window shown (s)"),
        ("first_map_s", "first map drawn (s)"),
        ("rss_mb", "peak RSS, app (MB)"),
        ("child_rss_mb", "peak RSS, simulator child (MB)"),
    ):
        values = [r[key] for r in results]
        med = statistics.median(values)
        print(f"{label:32} median {med:7.2f}   min {min(values):7.2f}   max {max(values):7.2f}")


if __name__ == "__main__":
    main()
