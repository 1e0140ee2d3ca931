"""The class handout's HTML for a small exercise, written out by hand: every part, escaped, with
hints only when asked."""

from __future__ import annotations

from simtviz.core.exercise.handout import exercise_html, handout_html
from simtviz.core.exercise.model import Case, Exercise

EX = Exercise(
    id="ex-1",
    title="A & B",
    kernel="k",
    params=("a", "out"),
    statement="First <p>.\n\nSecond.",
    picture="a -> b",
    starter="def k(a, out):\n    pass\n",
    hints=("use i < n", "two"),
    checks=("output", "in_bounds"),
    outputs=("out",),
    cases=(Case((3, 1, 1), (4, 1, 1), {"a": "float32[10]:random", "out": "float32[10]"}),),
    expect=lambda x: {},
    topic="guards",
)

# the title and the statement escaped, one <p> per paragraph; the launch in words (grid (3, 1, 1)
# -> 3, the init dropped); the checks by their titles
BODY = (
    '<h2 id="ex-1">A &amp; B <small>(ex-1)</small></h2><p>Write <code>k(a, out)</code>. <em>guards</em></p>'
    "<p>First &lt;p&gt;.</p><p>Second.</p><pre>a -&gt; b</pre>"
    "<p>The grader launches:</p><ul><li>grid 3, block 4, a=float32[10], out=float32[10]</li></ul>"
    "<p>Checks: Output, In bounds.</p><p>Start from:</p><pre>def k(a, out):\n    pass\n</pre>"
)
HINTS = "<ol><li>use i &lt; n</li><li>two</li></ol>"


def test_one_exercise_without_and_with_its_hints() -> None:
    assert exercise_html(EX) == BODY
    assert exercise_html(EX, hints=True) == BODY + HINTS


def test_the_page_has_a_title_a_table_of_contents_and_hints_only_when_asked() -> None:
    page = handout_html([EX, EX], "Week <3>")
    assert page.startswith(
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Week &lt;3&gt;</title><style>'
    )
    toc = '<li><a href="#ex-1">A &amp; B</a> — <code>k(a, out)</code></li>'
    assert page.endswith(f"<ol>{toc}{toc}</ol>{BODY}{BODY}</body></html>\n")
    assert "<h1>Week &lt;3&gt;</h1>" in page and "use i &lt; n" not in page
    assert handout_html([EX], hints=True).endswith(f"{BODY}{HINTS}</body></html>\n")
    assert "<title>simtviz exercises</title>" in handout_html([EX])
