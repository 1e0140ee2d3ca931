"""The lesson's drawings and Try-it words, by hand: the JIT chart's first bar is the first launch
(the one that compiles), and a Try it that cycles colourings counts them from 1."""

from __future__ import annotations

import pyqtgraph as pg

from simtviz.core.lesson import STEPS
from simtviz.qt.tabs.lesson.charts import jit_plot
from simtviz.qt.tabs.lesson.tab import LessonPanel


def test_the_jit_chart_draws_the_first_launch_first(qtbot) -> None:
    # The first launch compiles (620 ms), the second does not (0.05 ms).
    plot = jit_plot({"first_launch_ms": 620.0, "second_launch_ms": 0.05})
    qtbot.addWidget(plot)
    (bars,) = [i for i in plot.getPlotItem().items if isinstance(i, pg.BarGraphItem)]
    assert list(bars.opts["x"]) == [0, 1]
    assert list(bars.opts["height"]) == [620.0, 0.05]
    ticks = dict(plot.getAxis("bottom")._tickLevels[0])
    assert ticks == {0: "1st launch (JIT compile)", 1: "2nd launch"}
    labels = {i.toPlainText() for i in plot.getPlotItem().items if isinstance(i, pg.TextItem)}
    assert labels == {"620 ms", "0.05 ms"}


def test_a_try_it_with_two_colourings_counts_them_from_one(qtbot) -> None:
    panel = LessonPanel()
    qtbot.addWidget(panel)
    # The step whose 3 × 2 grid of 8 × 4 blocks is coloured by blockIdx.x, then blockIdx.y.
    index = next(
        i
        for i, s in enumerate(STEPS)
        if s.try_its and s.try_its[0].params.get("colors") == ("blockIdx.x", "blockIdx.y")
    )
    panel.show_step(index)
    section = STEPS[index].section
    panel.demos.colour_turn[section] = 0
    panel._label_buttons()
    assert panel.lessonTryIt.text() == "▶ Try it: colour by blockIdx.x (1 of 2)"
    panel.demos.colour_turn[section] = 1
    panel._label_buttons()
    assert panel.lessonTryIt.text() == "▶ Try it: colour by blockIdx.y (2 of 2)"
