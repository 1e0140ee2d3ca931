"""How long the desktop app takes to toggle presentation mode and to switch tabs (issue 21: each
≤ 150 ms), in the real window, offscreen, on the CUDA simulator.

Every action is timed from the call to the window's last paint: the event loop runs until the
window has handled a paint request (``UpdateRequest``) after the action and no other came for
50 ms, so the relayout, deferred work and every repaint it causes are counted (the time and CPU
stop at the last paint), and no paint is forced. Between two actions a person's pause (0.6 s)
lets background work finish.

Each window size (1280 × 720 and 1920 × 1080 by default) is measured twice: first with every tab
as it starts (no result shown), then with a result in every tab (an index map run, a vector add,
a traced kernel, the sample schedule, a lesson probe, an exercise check). For each: switching to
every tab in normal and in presentation mode, and the toggle on every tab, both ways. Printed:
the median and the maximum wall time of ``--repeat`` tries, the median CPU time of this process
and of its GUI thread alone (the steadiest on a shared machine: no waiting for a core, no worker
thread), and the window's paint requests, with the machine and its load average. Usage:

    QT_QPA_PLATFORM=offscreen python benchmarks/view_switch.py [--repeat 5] [--sizes 1280x720]
        [--results no|yes|both] [--profile]

``--profile`` prints where the toggle on each tab spends its time (cProfile, top 25 by own time
and top 40 by cumulative time).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("SIMTVIZ_BACKEND", "sim")

GOAL_MS = 150.0
PAUSE_S = 0.6  # a person between two clicks
# A frame can come a few turns after another (layouts settling; a platform window asks for its
# next paint on a 5 ms timer): the action is over when no paint came for this long.
QUIET_S = 0.05


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    from PySide6 import __version__ as pyside

    return (
        f"{os.cpu_count()} CPUs ({model}), Python {platform.python_version()}, PySide6 {pyside}, "
        f"{os.environ.get('QT_QPA_PLATFORM')}"
    )


def count_paints(window: Any) -> Any:
    """Install and return a counter of ``window``'s paint requests (``.count``; the backing
    store repaints in their handler)."""
    from PySide6.QtCore import QEvent, QObject

    class Paints(QObject):
        count = 0

        def eventFilter(self, _obj: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.UpdateRequest:
                self.count += 1
            return False

    paints = Paints(window)
    window.installEventFilter(paints)
    return paints


def wait_until(cond: Callable[[], object], limit: float = 180.0, step: float = 0.01) -> None:
    """Run the event loop until ``cond()`` holds (TimeoutError after ``limit`` seconds)."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    deadline = time.perf_counter() + limit
    while not cond():
        if time.perf_counter() > deadline:
            raise TimeoutError("a result did not arrive")
        app.processEvents()
        time.sleep(step)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="1280x720,1920x1080")
    parser.add_argument("--results", choices=("no", "yes", "both"), default="both")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication, QLabel

    from simtviz.backends.selection import activate

    activate("sim")
    from simtviz.gui import create_main_window

    print(machine())
    print(f"load average at start {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f}")
    app = QApplication.instance() or QApplication([])
    settings = QSettings(os.path.join(tempfile.mkdtemp(), "simtviz.ini"), QSettings.Format.IniFormat)
    w = create_main_window("sim", settings)
    w.show()

    paints = count_paints(w)

    wait = wait_until

    def idle(seconds: float = PAUSE_S) -> None:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            app.processEvents()
            time.sleep(0.005)

    def timed(action: Callable[[], object]) -> tuple[float, float, int, float]:
        """(wall ms, CPU ms, paint requests, GUI thread's CPU ms) from ``action`` to the window's
        last paint before a quiet spell; paint requests: the window's, however busy the machine
        (a page held while its layouts settle, qt/settle.py, is not painted in those it gets
        meanwhile). The GUI thread's CPU leaves out the session's worker and the waits."""
        app.processEvents()
        start, start_cpu, before = time.perf_counter(), time.process_time(), paints.count
        start_thread = time.thread_time()
        action()
        end, end_cpu, end_thread = start, start_cpu, start_thread
        while True:
            seen = paints.count
            app.processEvents()
            now = time.perf_counter()
            if paints.count != seen:  # this turn painted: the frame is at least this late
                end, end_cpu, end_thread = now, time.process_time(), time.thread_time()
            elif paints.count != before and now - end > QUIET_S:
                break  # painted, and nothing more for a while
            elif now - start > 20.0:
                raise RuntimeError("the window never painted")
            time.sleep(0.0005)
        return (
            (end - start) * 1000,
            (end_cpu - start_cpu) * 1000,
            paints.count - before,
            (end_thread - start_thread) * 1000,
        )

    def fill_every_tab() -> None:
        from simtviz.core.lesson import STEPS

        w.tabs.setCurrentIndex(0)
        wait(lambda: w.session.backend is not None)
        w.run()
        wait(lambda: w.recording is not None and not w.busy)
        w.vecaddPanel.run()
        result = w.vecaddPanel.findChild(QLabel, "vecaddResult")
        wait(lambda: "Test" in result.text() and not w.busy)
        kernel = w.kernelTab
        w.tabs.setCurrentWidget(kernel)
        wait(kernel.runButton.isEnabled)
        kernel.run()
        wait(lambda: kernel.summary() is not None)
        w.scheduleTab.scheduleView.open_sample()
        lesson = w.lessonPanel
        step = next(i for i, s in enumerate(STEPS) if any(t.action == "probe" for t in s.try_its))
        lesson.show_step(step)
        lesson.try_it(next(i for i, t in enumerate(STEPS[step].try_its) if t.action == "probe"))
        wait(lambda: bool(lesson.results) and not w.busy)
        w.tabs.setCurrentWidget(w.exercisesTab)
        w.exercisesTab.check()
        wait(lambda: w.exercisesTab.report() is not None)

    profiles: dict[str, object] = {}
    results: dict[str, list[tuple[float, float, int, float]]] = {}
    states = {"no": [False], "yes": [True], "both": [False, True]}[args.results]
    wait(lambda: w.session.backend is not None)
    for filled in states:
        if filled:
            fill_every_tab()
        for width, height in sizes:
            w.presentationAction.setChecked(False)
            w.resize(width, height)
            idle(1.0)
            where = f"{width}x{height}, {'results' if filled else 'empty'}"
            for _ in range(args.repeat):
                for presentation in (False, True):
                    w.presentationAction.setChecked(presentation)
                    idle()
                    mode = "presentation" if presentation else "normal"
                    for i in range(w.tabs.count()):
                        w.tabs.setCurrentIndex((i + 1) % w.tabs.count())
                        idle()
                        key = f"{where}: switch to {w.tabs.tabText(i)} ({mode})"
                        results.setdefault(key, []).append(timed(lambda i=i: w.tabs.setCurrentIndex(i)))
                for i in range(w.tabs.count()):
                    w.tabs.setCurrentIndex(i)
                    idle()
                    key = f"{where}: toggle on {w.tabs.tabText(i)}"
                    for _way in range(2):  # on, then off
                        results.setdefault(key, []).append(timed(w.presentationAction.toggle))
                        idle()
            if args.profile:
                import cProfile

                for i in range(w.tabs.count()):
                    w.tabs.setCurrentIndex(i)
                    idle()
                    profiler = cProfile.Profile()
                    for _way in range(2):
                        profiler.enable()
                        timed(w.presentationAction.toggle)
                        profiler.disable()
                        idle()
                    profiles[f"{where}: toggle on {w.tabs.tabText(i)}"] = profiler

    print(
        f"{'':<62} {'wall median':>12} {'wall max':>9} {'CPU median':>11} {'GUI CPU':>9} "
        f"{'paint requests':>14}"
    )
    for key, times in results.items():
        wall, cpu, paints = [t[0] for t in times], [t[1] for t in times], [t[2] for t in times]
        gui = [t[3] for t in times]
        flag = "" if statistics.median(wall) <= GOAL_MS else "  > goal"
        flag += "" if statistics.median(gui) <= GOAL_MS else "  GUI CPU > goal"
        print(
            f"{key:<62} {statistics.median(wall):9.1f} ms {max(wall):6.1f} ms "
            f"{statistics.median(cpu):8.1f} ms {statistics.median(gui):6.1f} ms "
            f"{statistics.median(paints):14.1f}{flag}"
        )
    worst = max(results, key=lambda k: statistics.median(t[0] for t in results[k]))
    worst_cpu = max(results, key=lambda k: statistics.median(t[1] for t in results[k]))
    print(f"worst wall median {statistics.median(t[0] for t in results[worst]):.1f} ms ({worst})")
    print(f"worst CPU median {statistics.median(t[1] for t in results[worst_cpu]):.1f} ms ({worst_cpu})")
    worst_gui = max(results, key=lambda k: statistics.median(t[3] for t in results[k]))
    gui_ms = statistics.median(t[3] for t in results[worst_gui])
    print(f"worst GUI thread CPU median {gui_ms:.1f} ms ({worst_gui})")
    print(
        f"goal ≤ {GOAL_MS:.0f} ms; {args.repeat} tries each; load average at the end {os.getloadavg()[0]:.1f}"
    )
    if profiles:
        import pstats

        for key, profiler in profiles.items():
            print(f"\n--- {key}")
            pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
    w.close()


if __name__ == "__main__":
    main()
