"""How long the desktop app takes to toggle presentation mode and to switch tabs (issue 21: each
≤ 150 ms), offscreen at 1280 × 720 on the CUDA simulator, after a run so the maps hold data.

Each time is from the action to the window painted again (``processEvents`` then ``repaint``),
the median and the maximum of ``--repeat`` tries, with a person's pause (0.6 s) between actions. Usage:

    QT_QPA_PLATFORM=offscreen python benchmarks/view_switch.py [--repeat 5] [--profile]

``--profile`` prints where the presentation toggle spends its time (cProfile, top 25).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("SIMTVIZ_BACKEND", "sim")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from simtviz.backends.selection import activate

    activate("sim")
    from simtviz.gui import create_main_window

    app = QApplication.instance() or QApplication([])
    settings = QSettings(os.path.join(tempfile.mkdtemp(), "simtviz.ini"), QSettings.Format.IniFormat)
    w = create_main_window("sim", settings)
    w.resize(1280, 720)
    w.show()

    def wait(cond, limit: float = 120.0) -> None:
        deadline = time.perf_counter() + limit
        while not cond() and time.perf_counter() < deadline:
            app.processEvents()
            time.sleep(0.01)

    wait(lambda: w.session.backend is not None)
    w.run()
    wait(lambda: w.recording is not None and not w.busy)

    cpu: dict[str, list[float]] = {}

    def timed(action) -> float:
        app.processEvents()
        start, start_cpu = time.perf_counter(), time.process_time()
        action()
        app.processEvents()
        w.repaint()
        timed.cpu = (time.process_time() - start_cpu) * 1000  # this process only: less machine load
        return (time.perf_counter() - start) * 1000

    def idle(seconds: float = 0.6) -> None:  # a person between two clicks
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            app.processEvents()
            time.sleep(0.005)

    results: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        for presentation in (False, True):
            w.presentationAction.setChecked(presentation)
            idle()
            mode = "presentation" if presentation else "normal"
            for i in range(w.tabs.count()):
                w.tabs.setCurrentIndex((i + 1) % w.tabs.count())
                idle(0.1)
                key = f"switch to {w.tabs.tabText(i)} ({mode})"
                results.setdefault(key, []).append(timed(lambda i=i: w.tabs.setCurrentIndex(i)))
                cpu.setdefault(key, []).append(timed.cpu)
        for i in range(w.tabs.count()):
            w.tabs.setCurrentIndex(i)
            idle()
            key = f"presentation toggle on {w.tabs.tabText(i)}"
            results.setdefault(key, []).append(timed(lambda: w.presentationAction.toggle()))
            cpu.setdefault(key, []).append(timed.cpu)
            idle()
            results[key].append(timed(lambda: w.presentationAction.toggle()))
            cpu[key].append(timed.cpu)
    print(f"{'':<44} {'wall median':>12} {'wall max':>9} {'CPU median':>11}")
    for key, times in results.items():
        print(
            f"{key:<44} {statistics.median(times):9.1f} ms {max(times):6.1f} ms "
            f"{statistics.median(cpu[key]):8.1f} ms"
        )
    worst = max(statistics.median(t) for t in results.values())
    print(f"worst median {worst:.1f} ms (goal ≤ 150 ms); load average {os.getloadavg()[0]:.1f}")
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(4):
            w.presentationAction.toggle()
            app.processEvents()
            w.repaint()
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    w.close()


if __name__ == "__main__":
    main()
