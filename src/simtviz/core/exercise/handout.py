"""The exercise list as one HTML page for a class: statements, pictures, signatures, launches,
checks and (optionally) hints; never an answer. Self-contained (no scripts, inline style)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from simtviz.core.exercise.model import CHECK_TITLES, Exercise

STYLE = (
    "body{font-family:sans-serif;max-width:52em;margin:2em auto;line-height:1.45}"
    "pre{background:#f4f4f4;padding:.6em;overflow-x:auto}code{background:#f4f4f4}"
    "h2{border-top:1px solid #ccc;padding-top:1em}"
)


def exercise_html(e: Exercise, hints: bool = False) -> str:
    paragraphs = "".join(f"<p>{escape(p)}</p>" for p in e.statement.split("\n\n"))
    launches = "".join(f"<li>{escape(c.words())}</li>" for c in e.cases)
    checks = ", ".join(escape(CHECK_TITLES[c]) for c in e.checks)
    out = (
        f'<h2 id="{escape(e.id)}">{escape(e.title)} <small>({escape(e.id)})</small></h2>'
        f"<p>Write <code>{escape(e.signature)}</code>. <em>{escape(e.topic)}</em></p>"
        f"{paragraphs}<pre>{escape(e.picture)}</pre>"
        f"<p>The grader launches:</p><ul>{launches}</ul><p>Checks: {checks}.</p>"
        f"<p>Start from:</p><pre>{escape(e.starter)}</pre>"
    )
    if hints:
        out += "<ol>" + "".join(f"<li>{escape(h)}</li>" for h in e.hints) + "</ol>"
    return out


def handout_html(items: Sequence[Exercise], title: str = "simtviz exercises", hints: bool = False) -> str:
    """One page: a table of contents, then each exercise."""
    toc = "".join(
        f'<li><a href="#{escape(e.id)}">{escape(e.title)}</a> — <code>{escape(e.signature)}</code></li>'
        for e in items
    )
    body = "".join(exercise_html(e, hints) for e in items)
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{STYLE}</style></head><body><h1>{escape(title)}</h1>"
        "<p>Check a solution with <code>simtviz exercise check ID FILE.py</code> or the Exercises tab: "
        "it is graded by what the kernel does to memory, not only by its output.</p>"
        f"<ol>{toc}</ol>{body}</body></html>\n"
    )
