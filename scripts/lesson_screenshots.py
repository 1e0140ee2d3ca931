"""Render the lesson's §2.2.4 timeline step and one erratum card to PNGs, from recorded probe results.

    QT_QPA_PLATFORM=offscreen python scripts/lesson_screenshots.py [--results tests/data/lesson_h100.json]
        [--out docs] [--presentation]

writes docs/lesson-timeline.png (the whole Lesson tab at 1280×720 on step 2.2.4) and
docs/lesson-erratum.png (the §2.2.3.3 card "host array to a kernel is an error", with its evidence).

On a GPU, ``--record FILE`` first runs every probe there and writes their results to FILE:

    SIMTVIZ_BACKEND=gpu python scripts/lesson_screenshots.py --record tests/data/lesson_h100.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SIZE = (1280, 720)
TIMELINE_STEP = "2.2.4"
CARD_STEP, CARD = "2.2.3.3", "host-array-error"


def record(path: Path) -> None:
    """Run every probe on this process's backend (a GPU) and write the results as JSON."""
    from simtviz.backends.selection import activate, resolve_backend

    activate(resolve_backend())
    from simtviz.backends.lesson import PROBES, run_probe
    from simtviz.backends.lesson.common import gpu_backend_name

    results = {name: run_probe(name) for name in PROBES}
    payload = {
        "_source": "every lesson probe run by scripts/lesson_screenshots.py --record",
        "device": gpu_backend_name().removeprefix("gpu:"),
        "results": results,
    }
    path.write_text(json.dumps(payload, indent=2, default=str) + "\n", encoding="utf-8")
    print(f"wrote {path}")


def load(path: Path) -> tuple[str, dict[str, dict[str, Any]]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return str(data.get("device", "")), dict(data["results"])


def render(results_path: Path, out: Path, presentation: bool) -> list[Path]:
    from PySide6.QtWidgets import QApplication

    from simtviz.core.lesson import STEPS
    from simtviz.qt.tabs.lesson.tab import LessonPanel
    from simtviz.qt.theme import point_size

    app = QApplication.instance() or QApplication([])
    device, results = load(results_path)
    panel = LessonPanel()
    if presentation:
        panel.setStyleSheet(f"QWidget {{ font-size: {point_size(True)}pt; }}")
    panel.set_backend_kind("gpu" if device else "sim")
    panel.resize(*SIZE)
    panel.show()
    for probe, result in results.items():
        panel.show_probe_result(probe, result)
    sections = [s.section for s in STEPS]
    written = []

    panel.show_step(sections.index(TIMELINE_STEP))
    panel.lessonStatus.setText("")
    app.processEvents()
    # Down to the drawing: the slide a teacher shows after pressing Try it.
    card = panel.card("cp-synchronize")
    if card is not None:  # the erratum card, then the drawing under it
        panel.lessonScroll.verticalScrollBar().setValue(card.y() - 8)
    app.processEvents()
    target = out / "lesson-timeline.png"
    panel.grab().save(str(target))
    written.append(target)

    panel.show_step(sections.index(CARD_STEP))
    panel.lessonStatus.setText("")
    app.processEvents()
    card = panel.card(CARD)
    assert card is not None
    target = out / "lesson-erratum.png"
    card.grab().save(str(target))
    written.append(target)
    panel.close()
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", type=Path, default=ROOT / "tests" / "data" / "lesson_h100.json")
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--record", type=Path, help="run every probe here first and write them to this file")
    parser.add_argument("--presentation", action="store_true", help="presentation-mode fonts")
    args = parser.parse_args()
    if args.record is not None:
        record(args.record)
        args.results = args.record
    for path in render(args.results, args.out, args.presentation):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
