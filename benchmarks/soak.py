"""Soak check: many random launches through the window on the simulator, then what was left behind.

Each of ``--runs`` steps sets a random valid or invalid launch in the window's spin boxes and
presses Run; at random it cancels mid-run, exports the map (PNG) or the records (NPZ, CSV), moves
the recording window, or closes the window and opens a new one (a fresh simulator child). Dialogs
that open are closed as a user would. At the end the last window is closed and it reports:

- leaked processes: children of this process still alive (simulator children, resource trackers);
- leaked files: anything left in the private TMPDIR, and ``.part`` files among the exports;
- memory: this process's RSS after the first run and at the end.

Usage (offscreen; about 1 s a step on 2 cores):

    QT_QPA_PLATFORM=offscreen python benchmarks/soak.py [--runs 200] [--seed 11]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--close-rate", type=float, default=0.05, help="share of steps that close the window")
    args = parser.parse_args()

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton, QSpinBox

    from simtviz.gui import create_main_window

    app = QApplication.instance() or QApplication([])
    rng = random.Random(args.seed)
    exports = Path(tempfile.mkdtemp(prefix="simtviz-soak-exports-", dir="/tmp"))
    settings_path = exports.parent / f"{exports.name}.ini"
    counts = dict(runs=0, valid=0, invalid=0, cancels=0, exports=0, closes=0, moves=0, failed_exports=0)

    def pump(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.005)

    def open_window():  # type: ignore[no-untyped-def]
        w = create_main_window("sim", QSettings(str(settings_path), QSettings.Format.IniFormat))
        w.show()
        deadline = time.monotonic() + 60
        while w.session.info is None and time.monotonic() < deadline:
            pump(0.02)
        return w

    def close_dialogs(w) -> None:  # type: ignore[no-untyped-def]
        for box in w.findChildren(QMessageBox):
            if box.isVisible():
                box.reject()
        app.processEvents()

    def wait_idle(w, limit: float = 60.0) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + limit
        while w.busy and time.monotonic() < deadline:
            pump(0.01)
        if w.busy:
            raise SystemExit("a run never finished: the soak check failed")

    window = open_window()
    rss_start = None
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
            pump(rng.uniform(0.0, 0.3))
            window.cancel()
            counts["cancels"] += 1
        wait_idle(window)
        pump(0.02)
        close_dialogs(window)
        if rss_start is None and window.recording is not None:
            rss_start = rss_mb()
        if window.recording is not None and rng.random() < 0.25:
            fmt = rng.choice(("png", "npz", "csv"))
            target = exports / f"step{step}.{fmt}"
            written = window.export_map_png(target) if fmt == "png" else window.export_records(target, fmt)
            counts["exports"] += 1
            if written is None:
                counts["failed_exports"] += 1
        if window.recording is not None and rng.random() < 0.1:
            for name in ("windowDown", "windowRight"):
                button = window.findChild(QPushButton, name)
                if button is not None and button.isEnabled():
                    button.click()
                    counts["moves"] += 1
                    wait_idle(window)
                    break
        if rng.random() < args.close_rate:
            window.close()
            window.deleteLater()
            pump(0.05)
            window = open_window()
            counts["closes"] += 1
        if (step + 1) % 25 == 0:
            print(f"step {step + 1}: RSS {rss_mb():.0f} MB, {time.monotonic() - started:.0f} s", flush=True)

    rss_end_open = rss_mb()
    window.close()
    window.deleteLater()
    pump(0.5)
    time.sleep(1.0)  # a child killed on close has a moment to be reaped
    children = live_children()
    left = sorted(str(p.relative_to(PRIVATE_TMP)) for p in PRIVATE_TMP.rglob("*"))
    partial = sorted(p.name for p in exports.iterdir() if p.name.endswith(".part"))
    print(
        f"runs {counts['runs']} ({counts['valid']} valid, {counts['invalid']} invalid), "
        f"cancels {counts['cancels']}, exports {counts['exports']} ({counts['failed_exports']} failed), "
        f"window moves {counts['moves']}, window closes {counts['closes']}, "
        f"{time.monotonic() - started:.0f} s"
    )
    print(f"leaked processes: {len(children)} {children}")
    print(f"leaked files in TMPDIR: {len(left)} {left[:10]}; partial exports: {len(partial)}")
    print(
        f"RSS after the first run {rss_start or float('nan'):.0f} MB, "
        f"at the end (window open) {rss_end_open:.0f} MB"
    )
    for folder in (PRIVATE_TMP, exports):
        shutil.rmtree(folder, ignore_errors=True)
    settings_path.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
