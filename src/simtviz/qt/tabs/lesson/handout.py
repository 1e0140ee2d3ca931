"""The Lesson tab's handout: the figures each step kept, rendered with this run's numbers and
saved as one HTML page (``core.lesson.handout`` writes the page; this file keeps and saves it)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from PySide6.QtWidgets import QWidget

from simtviz.core.files import ExportError, atomic_write
from simtviz.core.lesson.handout import render_handout
from simtviz.qt import dialogs

FIGURES_PER_STEP = 4  # a few per step: the handout is for reading, not a log


class LessonHandout:
    """This run's figures, step by step, and the page made of them and the probes' results."""

    def __init__(self) -> None:
        self.figures: dict[str, list[tuple[bytes, str]]] = {}  # section → [(PNG, caption)]

    def add_figure(self, section: str, png: bytes, caption: str, replace: bool = False) -> None:
        figures = self.figures.setdefault(section, [])
        if replace:
            figures.clear()
        figures.append((png, caption))
        del figures[:-FIGURES_PER_STEP]

    def html(
        self,
        results: Mapping[str, dict[str, Any]],
        backend: str,
        answers: Mapping[str, str],
        runs: Mapping[str, dict[str, Any]],
    ) -> str:
        return render_handout(results, self.figures, backend=backend, answers=answers, runs=runs)

    def save(self, parent: QWidget, html: str, path: str | Path | None, export_dir: str = "") -> Path | None:
        """Write ``html``; asks where unless ``path``. None when cancelled or it could not be
        written (the dialog has said why; nothing is left half-written)."""
        if path is None:
            start = Path.home() / "simtviz-lesson.html"
            if export_dir:
                start = Path(export_dir) / start.name
            chosen = dialogs.ask_save_path(
                parent, "Export the lesson handout", start, "html", "HTML page (*.html)"
            )
            if chosen is None:
                return None
            path = chosen
        payload = html.encode("utf-8")

        def write(fh: IO[Any]) -> None:
            fh.write(payload)

        try:
            return atomic_write(path, write)
        except ExportError as exc:
            dialogs.export_failed(parent, exc)
            return None
