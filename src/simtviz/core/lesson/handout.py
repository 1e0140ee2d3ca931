"""The lesson as a take-home HTML handout: one self-contained file, printable.

Inline CSS, figures as base64 PNG given by the caller (the app grabs them from its views), the
numbers of this run (the probes' results, each probe's table once, at the first step that uses
it) and the student's predictions beside what the run measured. Values a backend could not
measure are printed with their reason, never left blank or filled in.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from simtviz.core.lesson import STEPS, Step, probes_of
from simtviz.core.lesson.grading import measured, why_not_measured

CSS = """
body { font-family: system-ui, sans-serif; max-width: 52em; margin: 2em auto; line-height: 1.45; }
h1 { font-size: 1.8em; } h2 { font-size: 1.3em; margin-top: 2em; border-bottom: 1px solid #999; }
pre { background: #f4f4f4; padding: .8em; overflow-x: auto; font-size: .9em; }
.corrected { background: #fff3c4; }
.card { border: 2px solid #c0392b; border-radius: 6px; padding: .6em 1em; margin: 1em 0; }
.card .says { color: #c0392b; } .card .true { color: #1e7e34; }
table { border-collapse: collapse; margin: .5em 0; } td, th { border: 1px solid #bbb; padding: .2em .6em; }
.gap { color: #666; font-style: italic; }
.sim { color: #444; font-size: .9em; }
.predict { border-left: 4px solid #2c6fbb; padding: .2em .8em; margin: 1em 0; }
img { max-width: 100%; }
@media print { h2 { page-break-before: auto; } .card, pre, table, img { page-break-inside: avoid; } }
"""


def _e(text: object) -> str:
    return html.escape(str(text))


def _code(code: str) -> str:
    lines = []
    for line in code.rstrip("\n").split("\n"):
        escaped = _e(line)
        lines.append(f'<span class="corrected">{escaped}</span>' if "# corrected:" in line else escaped)
    return "<pre><code>" + "\n".join(lines) + "</code></pre>"


def format_value(value: Any) -> str:
    """A measured value as a student reads it (floats to 3 significant digits)."""
    if value is None:  # measured as nothing (nothing raised, no error): said in words
        return "none"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return "; ".join(", ".join(f"{k}={format_value(v)}" for k, v in item.items()) for item in value)
    return str(value)


def _numbers(result: Mapping[str, Any]) -> str:
    skip = {"probe", "backend", "unavailable"}
    gaps: Mapping[str, str] = result.get("unavailable", {})
    rows = []
    for key, value in result.items():
        if key in skip:
            continue
        if value is None and key in gaps:
            cell = f'<span class="gap">not measurable here: {_e(gaps[key])}</span>'
        else:
            cell = _e(format_value(value))
        rows.append(f"<tr><th>{_e(key)}</th><td>{cell}</td></tr>")
    head = f"<p>{_e(result.get('probe', ''))} on {_e(result.get('backend', '?'))}</p>"
    return head + "<table>" + "".join(rows) + "</table>"


def _figure(png: bytes | str, caption: str) -> str:
    data = png if isinstance(png, str) else base64.b64encode(png).decode("ascii")
    img = f'<img alt="{_e(caption)}" src="data:image/png;base64,{data}">'
    return f"<figure>{img}<figcaption>{_e(caption)}</figcaption></figure>"


def _evidence(result: Mapping[str, Any] | None, key: str) -> str:
    """A card's evidence: the measured value, or why there is none (never a bare None)."""
    if not result:
        return "not run"
    if result.get("error"):
        return f"the probe failed: {result['error']}"
    value = result.get(key)
    if value is None:
        reason = result.get("unavailable", {}).get(key)
        return f"not measurable here: {reason}" if reason else "not reported by this run"
    return format_value(value)


def _prediction(step: Step, answers: Mapping[str, str], runs: Mapping[str, Mapping[str, Any]]) -> str:
    q = step.question
    if q is None:
        return ""
    given = answers.get(step.section)
    result = runs.get(step.section)
    got = measured(q, result)
    run = _e(got) if got is not None else f'<span class="gap">{_e(why_not_measured(q, result))}</span>'
    rows = [
        ("Question", _e(q.prompt)),
        ("Your answer", _e(given) if given is not None else '<span class="gap">not answered</span>'),
        (f"Measured ({_e(result.get('backend', '?'))})" if result else "Measured", run),
        ("Answer on a GPU", f"{_e(q.answer)}: {_e(q.why)}"),
    ]
    table = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<div class="predict"><p><b>Predict, then run</b></p><table>{table}</table></div>'


def _step(
    step: Step,
    results: Mapping[str, Mapping[str, Any]],
    figures: Sequence[tuple[bytes | str, str]],
    tables: Sequence[str] = (),
    answers: Mapping[str, str] | None = None,
    runs: Mapping[str, Mapping[str, Any]] | None = None,
) -> str:
    lines = (*step.explanation, *step.after_answer)
    parts = [f"<h2>{_e(step.heading)}</h2>", "<p>" + "<br>".join(_e(s) for s in lines) + "</p>"]
    if step.diagram:
        parts.append(f"<pre>{_e(step.diagram)}</pre>")
    if step.code:
        parts.append(_code(step.code))
    parts.append(_prediction(step, answers or {}, runs or {}))
    for erratum in step.errata:
        shown = _evidence(results.get(erratum.probe), erratum.evidence)
        parts.append(
            '<div class="card">'
            f'<p class="says"><b>The chapter says:</b> {_e(erratum.chapter_says)}</p>'
            f'<p class="true"><b>What is true:</b> {_e(erratum.truth)}</p>'
            f"<p><b>Evidence</b> ({_e(erratum.probe)}: {_e(erratum.evidence)}): {_e(shown)}</p></div>"
        )
    for name in tables:
        parts.append(_numbers(results[name]))
    for png, caption in figures:
        parts.append(_figure(png, caption))
    parts.append(
        f'<p class="sim"><b>On the simulator</b> it shows: {_e(step.sim_shows)} '
        f"It cannot show: {_e(step.sim_cannot)}</p>"
    )
    return "\n".join(parts)


def render_handout(
    results: Mapping[str, Mapping[str, Any]],
    figures: Mapping[str, Sequence[tuple[bytes | str, str]]] | None = None,
    *,
    backend: str = "",
    when: date | None = None,
    title: str = "CUDA Python, step by step (CUDA Programming Guide §2.2)",
    answers: Mapping[str, str] | None = None,
    runs: Mapping[str, Mapping[str, Any]] | None = None,
) -> str:
    """The handout's HTML. ``results``: probe name → its result dict from this run;
    ``figures``: section → [(PNG bytes or base64 text, caption)]; ``answers``: section → the
    student's prediction; ``runs``: section → the probe result its Try it measured the answer by."""
    figures = figures or {}
    day = (when or date.today()).isoformat()
    body = [f"<h1>{_e(title)}</h1>", f"<p>Run on {_e(backend or 'this machine')}, {_e(day)}.</p>"]
    printed: set[str] = set()
    for s in STEPS:
        tables = [name for name in probes_of(s) if name in results and name not in printed]
        printed.update(tables)
        body.append(_step(s, results, figures.get(s.section, ()), tables, answers, runs))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{_e(title)}</title><style>{CSS}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
