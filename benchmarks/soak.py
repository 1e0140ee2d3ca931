"""Soak check: many random launches through the window on the simulator, then what was left behind.

Each of ``--runs`` steps sets a random valid or invalid launch in the window's spin boxes and
presses Run; at random it cancels mid-run, exports the map (PNG) or the records (NPZ, CSV), moves
the recording window, or closes the window and opens a new one (a fresh simulator child). Dialogs
that open are closed as a user would. At the end the last window is closed and it reports:

- leaked processes: children of this process still alive (simulator children, resource trackers);
- leaked files: anything left in the private TMPDIR, and ``.part`` files among the exports;
- memory: this process's RSS after the first run and at the end, RSS after each window close
  (growth per closed window from a straight-line fit), and closed windows still alive.

The steps run as a generator driven by ``app.exec()``: between steps control returns to the
running event loop, as in the app, so ``deleteLater`` of a closed window is processed as it is
for a user (a loop of ``processEvents`` never deletes it, which once looked like a 12 MB leak per
window). With ``--trace-rate`` some steps run the Your kernel tab's template (a trace child each).

Usage (offscreen; about 1 s a step on 2 cores):

    QT_QPA_PLATFORM=offscreen python benchmarks/soak.py [--runs 200] [--seed 11] [--close-rate 0.05]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Everything temporary goes to a folder of our own, so that what is left can be counted.
PRIVATE_TMP = Path(tempfile.mkdtemp(prefix="simtviz-soak-"))
os.environ["TMPDIR"] = str(PRIVATE_TMP)
tempfile.tempdir = str(PRIVATE_TMP)

DIMS = ("gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ")


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def live_children() -> list[tuple[int, str]]:
    me, found = os.getpid(), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            after = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if int(after[1]) == me and after[0] != "Z":
            found.append((int(entry.name), cmd.strip()[:80]))
    return found


def random_launch(rng: random.Random) -> tuple[tuple[int, int, int], tuple[int, int, int], str]:
    """A launch and whether it is valid: small valid ones (≤ 4,096 threads) and invalid ones."""
    kind = rng.random()
    if kind < 0.2:  # invalid: one limit broken, or a zero
        return rng.choice(
            [
                ((4, 1, 1), (2048, 1, 1), "threads per block"),
                ((1, 1, 1), (1, 1, 128), "block z"),
                ((0, 1, 1), (32, 1, 1), "zero grid"),
                ((1, 70000, 1), (1, 1, 1), "grid y"),
                ((4, 1, 1), (0, 1, 1), "zero block"),
            ]
        )
    rank = rng.choice((1, 2, 3))
    while True:
        grid = tuple(rng.randint(1, 8) if axis < rank else 1 for axis in range(3))
        block = tuple(rng.choice((1, 2, 4, 8, 16, 32)) if axis < rank else 1 for axis in range(3))
        if rank == 1:
            block = (rng.choice((1, 32, 64, 100, 256)), 1, 1)
        threads = grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2]
        if threads <= 4096:
            return grid, block, "valid"  # type: ignore[return-value]


def slope(points: list[tuple[int, float]]) -> float:
    """Least-squares MB per window over (windows closed, RSS) points; nan with fewer than 2."""
    if len(points) < 2:
        return float("nan")
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    den = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / den if den else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--close-rate", type=float, default=0.05, help="share of steps that close the window")
    parser.add_argument("--trace-rate", type=float, default=0.0, help="share of steps that trace a kernel")
    args = parser.parse_args()

    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton, QSpinBox

    from simtviz.gui import create_main_window
    from simtviz.qt.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    app.setQuitOnLastWindowClosed(False)  # a step closes the window and opens the next one
    rng = random.Random(args.seed)
    exports = Path(tempfile.mkdtemp(prefix="simtviz-soak-exports-", dir="/tmp"))
    settings_path = exports.parent / f"{exports.name}.ini"
    counts = dict(
        runs=0, valid=0, invalid=0, cancels=0, exports=0, closes=0, moves=0, failed_exports=0, traces=0
    )
    report: dict[str, object] = {}

    def open_window():  # type: ignore[no-untyped-def]
        w = create_main_window("sim", QSettings(str(settings_path), QSettings.Format.IniFormat))
        w.show()
        deadline = time.monotonic() + 60
        while w.session.info is None and time.monotonic() < deadline:
            yield 0.02
        return w

    def close_dialogs() -> None:
        for box in app.topLevelWidgets():
            if isinstance(box, QMessageBox) and box.isVisible():
                box.reject()

    def wait_idle(w, limit: float = 60.0):  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + limit
        while w.busy and time.monotonic() < deadline:
            yield 0.01
        if w.busy:
            raise SystemExit("a run never finished: the soak check failed")

    def trace(w):  # type: ignore[no-untyped-def]
        tab = w.findChild(object, "kernelTab")
        tab.run()
        deadline = time.monotonic() + 120
        while tab.busy and time.monotonic() < deadline:
            yield 0.05
        counts["traces"] += 1

    def alive_windows() -> int:
        import gc

        gc.collect()
        return sum(1 for o in gc.get_objects() if isinstance(o, MainWindow))

    def body():  # type: ignore[no-untyped-def]
        window = yield from open_window()
        rss_start = None
        per_close: list[tuple[int, float]] = []
        started = time.monotonic()
        for step in range(args.runs):
            grid, block, what = random_launch(rng)
            if rng.random() < 0.2:
                window.set_budget_threads(rng.choice((64, 256, 1 << 22)))
            for name, value in zip(DIMS, (*grid, *block), strict=True):
                window.findChild(QSpinBox, name).setValue(value)
            window.run()
            counts["runs"] += 1
            counts["valid" if what == "valid" else "invalid"] += 1
            if rng.random() < 0.15:
                yield rng.uniform(0.0, 0.3)
                window.cancel()
                counts["cancels"] += 1
            yield from wait_idle(window)
            yield 0.02
            close_dialogs()
            if rss_start is None and window.recording is not None:
                rss_start = rss_mb()
            if window.recording is not None and rng.random() < 0.25:
                fmt = rng.choice(("png", "npz", "csv"))
                target = exports / f"step{step}.{fmt}"
                written = (
                    window.export_map_png(target) if fmt == "png" else window.export_records(target, fmt)
                )
                counts["exports"] += 1
                if written is None:
                    counts["failed_exports"] += 1
            if window.recording is not None and rng.random() < 0.1:
                for name in ("windowDown", "windowRight"):
                    button = window.findChild(QPushButton, name)
                    if button is not None and button.isEnabled():
                        button.click()
                        counts["moves"] += 1
                        yield from wait_idle(window)
                        break
            if rng.random() < args.trace_rate:
                yield from trace(window)
            if rng.random() < args.close_rate:
                window.close()
                window.deleteLater()
                window = None
                yield 0.2  # back in app.exec(): the deferred delete runs, as for a user
                counts["closes"] += 1
                per_close.append((counts["closes"], rss_mb()))
                window = yield from open_window()
            if (step + 1) % 25 == 0:
                print(
                    f"step {step + 1}: RSS {rss_mb():.0f} MB, {time.monotonic() - started:.0f} s", flush=True
                )
        report["rss_end_open"] = rss_mb()
        report["alive_before_last_close"] = alive_windows() - 1  # closed ones still alive
        window.close()
        window.deleteLater()
        window = None
        yield 0.5
        time.sleep(1.0)  # a child killed on close has a moment to be reaped
        yield 0.1
        report.update(rss_start=rss_start, per_close=per_close, seconds=time.monotonic() - started)

    steps = body()

    def advance() -> None:
        try:
            delay = next(steps)
        except BaseException as exc:  # the end, or a failure: either way the loop stops
            if not isinstance(exc, StopIteration):
                report["failure"] = exc
            app.quit()
            return
        QTimer.singleShot(int(delay * 1000), advance)

    QTimer.singleShot(0, advance)
    app.exec()
    if "failure" in report:
        raise report["failure"]  # type: ignore[misc]

    children = live_children()
    left = sorted(str(p.relative_to(PRIVATE_TMP)) for p in PRIVATE_TMP.rglob("*"))
    partial = sorted(p.name for p in exports.iterdir() if p.name.endswith(".part"))
    per_close = report["per_close"]
    assert isinstance(per_close, list)
    print(
        f"runs {counts['runs']} ({counts['valid']} valid, {counts['invalid']} invalid), "
        f"cancels {counts['cancels']}, exports {counts['exports']} ({counts['failed_exports']} failed), "
        f"window moves {counts['moves']}, window closes {counts['closes']}, traces {counts['traces']}, "
        f"{report['seconds']:.0f} s"
    )
    print(f"leaked processes: {len(children)} {children}")
    print(f"leaked files in TMPDIR: {len(left)} {left[:10]}; partial exports: {len(partial)}")
    print(
        f"RSS after the first run {report['rss_start'] or float('nan'):.0f} MB, "
        f"at the end (window open) {report['rss_end_open']:.0f} MB; "
        f"closed windows still alive: {report['alive_before_last_close']}"
    )
    print(
        "RSS after each window close: "
        + ", ".join(f"{mb:.0f}" for _, mb in per_close)
        + f" MB; growth per closed window {slope(per_close):.2f} MB"
    )
    for folder in (PRIVATE_TMP, exports):
        shutil.rmtree(folder, ignore_errors=True)
    settings_path.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
