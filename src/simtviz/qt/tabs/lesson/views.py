"""The lesson panel's pieces: the chapter's code with its corrections marked, an erratum card, and a
probe's values as a small table. Everything wraps: nothing here scrolls sideways on a projector.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from simtviz.core.lesson import Erratum

CORRECTED = "# corrected:"
CORRECTION_BG = "#fff3c4"
GAP = "not measurable here"
# A value the backend could not measure may have a stand-in the probe labels as such: NumPy's own
# default (which CuPy follows), or the simulator's host wall time. Shown named, never as the value.
STAND_INS = (("numpy_", "NumPy's default (CuPy follows it)"), ("sim_", "on the simulator"))
UNITS = (("_ms", " ms"), ("_GBps", " GB/s"))


def wrap_label(text: str = "", name: str = "", rich: bool = True) -> QLabel:
    label = QLabel(text)
    if name:
        label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    # Let the scroll area decide the width; the label's height follows its wrapped text.
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    label.setMinimumWidth(10)
    return label


def code_html(code: str) -> str:
    """The chapter's code, monospace, wrapping; each corrected line highlighted."""
    lines = []
    for line in code.rstrip("\n").split("\n"):
        escaped = html.escape(line) or "&nbsp;"
        if CORRECTED in line:
            escaped = f"<span style='background-color: {CORRECTION_BG}; color: #111'>{escaped}</span>"
        lines.append(escaped)
    body = "<br>".join(lines).replace("  ", "&nbsp;&nbsp;")
    return f"<div style='font-family: monospace; white-space: pre-wrap'>{body}</div>"


def display_value(key: str, value: Any) -> str:
    """A measured value as a student reads it: units from the key, 3 significant digits."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float):
        unit = next((u for suffix, u in UNITS if key.endswith(suffix)), "")
        if unit == " ms":  # 0.06 ms, 50.08 ms, 622 ms: the digits that were measured
            a = abs(value)
            return (f"{value:.2g}" if a < 1 else f"{value:.2f}" if a < 100 else f"{value:,.0f}") + unit
        return (f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}") + unit
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, list):
        if not value:
            return "none"
        if all(isinstance(v, str) for v in value):
            if len(set(value)) == 1:
                return f"{len(value)} × {value[0]}" if len(value) > 1 else value[0]
            return "; ".join(value)
        if all(isinstance(v, dict) for v in value):
            return "; ".join(_dict_text(v) for v in value)
    return str(value)


def _dict_text(item: Mapping[str, Any]) -> str:
    if "line" in item:  # a chapter line run on its own: what it did
        outcome = (
            f"dtype {item['dtype']}" if item.get("dtype") else "ran" if item.get("ok") else item.get("error")
        )
        return f"{item['line']} → {outcome}"
    return ", ".join(f"{k} {display_value(k, v)}" for k, v in item.items())


def evidence_text(erratum: Erratum, result: Mapping[str, Any] | None) -> str:
    """The card's live evidence: the value, or why this backend cannot give it (and a stand-in)."""
    if result is None:
        return "not run yet: press “Check it live” or the step's Try it"
    key = erratum.evidence
    if result.get(key) is not None:
        return display_value(key, result[key])
    reason = result.get("unavailable", {}).get(key) or result.get("error") or "the probe did not report it"
    text = f"{GAP} ({result.get('backend', '?')}): {reason}"
    for prefix, words in STAND_INS:
        stand_in = result.get(prefix + key)
        if stand_in is not None:
            text += f". {words}: {display_value(key, stand_in)}"
    return text


def values_html(result: Mapping[str, Any]) -> str:
    """A probe's values as a two-column table; gaps in grey with their reason."""
    gaps: Mapping[str, str] = result.get("unavailable", {})
    rows = []
    for key, value in result.items():
        if key in ("probe", "backend", "unavailable"):
            continue
        if value is None and key in gaps:
            cell = f"<span style='color: #777'><i>{GAP}: {html.escape(gaps[key])}</i></span>"
        else:
            cell = html.escape(display_value(key, value))
        rows.append(
            f"<tr><td style='padding-right: 12px; vertical-align: top'><code>{html.escape(key)}</code></td>"
            f"<td style='vertical-align: top'>{cell}</td></tr>"
        )
    return f"<table cellspacing='0' cellpadding='2' width='100%'>{''.join(rows)}</table>"


def values_text(result: Mapping[str, Any]) -> str:
    """The same table as plain text, one ``key: value`` a line (tests, screen readers)."""
    gaps: Mapping[str, str] = result.get("unavailable", {})
    lines = []
    for key, value in result.items():
        if key in ("probe", "backend", "unavailable"):
            continue
        shown = f"{GAP}: {gaps[key]}" if value is None and key in gaps else display_value(key, value)
        lines.append(f"{key}: {shown}")
    return "\n".join(lines)


class ErratumCard(QFrame):
    """``lessonErratum_<id>``: what the chapter says, what is true, and the live evidence."""

    def __init__(self, erratum: Erratum, check: Callable[[str], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.erratum = erratum
        self.setObjectName(f"lessonErratum_{erratum.id}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet(
            f"#lessonErratum_{erratum.id} {{ border: 3px solid #c0392b; border-radius: 6px; }}"
        )
        layout = QVBoxLayout(self)
        says = html.escape(erratum.chapter_says)
        self.says = wrap_label(f"<span style='color: #c0392b'><b>✗ The chapter says:</b></span> {says}")
        self.truth = wrap_label(
            f"<span style='color: #1e7e34'><b>✓ What is true:</b></span> {html.escape(erratum.truth)}"
        )
        self.evidence = wrap_label(name=f"lessonEvidence_{erratum.id}")
        self.checkButton = QPushButton("Check it live", objectName=f"lessonCheck_{erratum.id}")
        self.checkButton.setToolTip(f"Run the {erratum.probe} probe on this backend")
        self.checkButton.clicked.connect(lambda: check(erratum.probe))
        for widget in (self.says, self.truth, self.evidence):
            layout.addWidget(widget)
        layout.addWidget(self.checkButton, alignment=Qt.AlignmentFlag.AlignLeft)
        self.show_result(None)

    def show_result(self, result: Mapping[str, Any] | None) -> None:
        text = evidence_text(self.erratum, result)
        where = "" if result is None else f" ({html.escape(str(result.get('backend', '')))})"
        self.evidence.setText(
            f"<b>Live evidence</b>{where}, <code>{html.escape(self.erratum.probe)}: "
            f"{html.escape(self.erratum.evidence)}</code> → <b>{html.escape(text)}</b>"
        )
        self.checkButton.setText("Check it again" if result is not None else "Check it live")

    def evidence_plain(self) -> str:
        return self.evidence.text()

    def set_enabled_checks(self, enabled: bool, available: bool = True) -> None:
        """``available`` False (no backend at all, e.g. a screenshot) hides the button."""
        self.checkButton.setEnabled(enabled)
        self.checkButton.setVisible(available)
