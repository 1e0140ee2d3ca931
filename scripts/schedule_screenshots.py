"""Render the schedule view for the recorded schedules to docs/schedule-*.png (no window needed).

    QT_QPA_PLATFORM=offscreen python scripts/schedule_screenshots.py [--out docs] [FILE.npz ...]

Without files it renders the fixtures recorded on a GPU (tests/data/schedule/*.npz). On a GPU,
record fresh ones first, e.g. ``simtviz schedule --grid 2464 --block 256 --work-us 20 --out
schedule-threads.npz`` (see docs/BENCHMARKS.md for the four launches).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "data" / "schedule"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="schedules (.npz); default: the fixtures")
    parser.add_argument("--out", type=Path, default=ROOT / "docs", help="folder for the PNGs")
    parser.add_argument("--width", type=int, default=1800)
    parser.add_argument("--height", type=int, default=1000)
    parser.add_argument("--color", choices=("wave", "block"), default="wave")
    parser.add_argument(
        "--presentation", action="store_true", help="20 pt, as in presentation mode (files end -large)"
    )
    args = parser.parse_args(argv)

    from PySide6.QtWidgets import QApplication

    from simtviz.qt.tabs.schedule.tab import SchedulePanel

    app = QApplication.instance() or QApplication(sys.argv[:1])
    files = args.files or sorted(FIXTURES.glob("*.npz"))
    args.out.mkdir(parents=True, exist_ok=True)
    for path in files:
        panel = SchedulePanel()
        panel.resize(args.width, args.height)
        if args.presentation:
            from simtviz.qt.theme import PRESENTATION_POINT_SIZE

            panel.setStyleSheet(f"QWidget {{ font-size: {PRESENTATION_POINT_SIZE}pt; }}")
        view = panel.scheduleView
        view.scheduleColorBy.setCurrentIndex(view.scheduleColorBy.findData(args.color))
        if not view.open_file(path):
            print(f"could not open {path}", file=sys.stderr)
            return 1
        panel.show()
        app.processEvents()
        target = args.out / f"{path.stem}.png"
        if not path.stem.startswith("schedule-"):
            target = args.out / f"schedule-{path.stem}.png"
        if args.presentation:
            target = target.with_name(f"{target.stem}-large.png")
        panel.grab().save(str(target))
        summary = view.summary() or {}
        measured = summary.get("measured", {})
        print(
            f"{target}: {view.bar_count():,} bars, measured {measured.get('max_resident_blocks_per_sm')} "
            f"resident per SM, {measured.get('waves')} waves"
        )
        panel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
