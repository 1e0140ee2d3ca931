"""Worked by hand: the lesson's values table (units, digits, the limits between formats), an
erratum card's evidence, the corrected lines of the code, and the words and bars of its two charts."""

from __future__ import annotations

import pyqtgraph as pg
import pytest

from simtviz.core.lesson.model import Erratum
from simtviz.qt.tabs.lesson.charts import chart_for, jit_plot, timeline_plot
from simtviz.qt.tabs.lesson.views import ErratumCard, code_html, display_value, evidence_text, values_text


@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [
        ("launch_ms", 0.0612, "0.061 ms"),  # below 1 ms: 2 significant digits
        ("launch_ms", 1.0, "1.00 ms"),  # exactly 1 ms: two decimals, not "1 ms"
        ("launch_ms", 50.084, "50.08 ms"),
        ("launch_ms", 99.994, "99.99 ms"),
        ("launch_ms", 100.0, "100 ms"),  # exactly 100 ms: whole milliseconds
        ("launch_ms", 1234.4, "1,234 ms"),
        ("launch_ms", -0.5, "-0.5 ms"),
        ("h2d_GBps", 12.345, "12.3 GB/s"),  # 3 significant digits
        ("h2d_GBps", 999.4, "999 GB/s"),
        ("h2d_GBps", 1000.0, "1,000 GB/s"),  # exactly 1,000: whole, with a comma
        ("ratio", 0.12345, "0.123"),  # no unit for a key without a suffix
        ("threads", 1048576, "1,048,576"),
        ("verified", True, "True"),
        ("value", None, "None"),
        ("writes", [], "none"),
        ("dtypes", ["float64", "float64", "float64"], "3 × float64"),
        ("dtypes", ["float64"], "float64"),
        ("dtypes", ["float64", "float32"], "float64; float32"),
    ],
)
def test_a_value_is_shown_with_its_unit_and_measured_digits(key: str, value: object, shown: str) -> None:
    assert display_value(key, value) == shown


def test_a_chapter_line_says_what_it_did_and_a_dict_lists_its_items() -> None:
    lines = [
        {"line": "a = cp.zeros(4)", "dtype": "float64"},
        {"line": "b = 1", "ok": True},
        {"line": "c = A", "ok": False, "error": "NameError"},
    ]
    assert (
        display_value("chapter_lines", lines)
        == "a = cp.zeros(4) → dtype float64; b = 1 → ran; c = A → NameError"
    )
    # Items in their order; each item's own unit (t_ms → ms).
    assert display_value("runs", [{"n": 3000, "t_ms": 0.5}]) == "n 3,000, t_ms 0.5 ms"


ERRATUM = Erratum("late", "it returns late", "it returns at once", "async_timeline", "launch_return_ms")


def test_evidence_names_the_gap_its_backend_and_the_stand_in() -> None:
    assert evidence_text(ERRATUM, None) == "not run yet: press “Check it live” or the step's Try it"
    assert evidence_text(ERRATUM, {"backend": "gpu", "launch_return_ms": 0.05}) == "0.05 ms"
    result = {"backend": "sim", "launch_return_ms": None, "unavailable": {"launch_return_ms": "no GPU"}}
    result["sim_launch_return_ms"] = 12.0
    assert evidence_text(ERRATUM, result) == "not measurable here (sim): no GPU. on the simulator: 12.00 ms"
    # No reason given: the probe's error, else that it did not report it.
    assert evidence_text(ERRATUM, {"backend": "emu", "error": "boom"}) == "not measurable here (emu): boom"
    assert evidence_text(ERRATUM, {}) == "not measurable here (?): the probe did not report it"


def test_the_card_says_its_backend_and_its_button_follows(qtbot) -> None:
    checked: list[str] = []
    card = ErratumCard(ERRATUM, checked.append)
    qtbot.addWidget(card)
    assert card.objectName() == "lessonErratum_late"
    assert card.checkButton.objectName() == "lessonCheck_late"
    assert card.checkButton.text() == "Check it live"
    assert card.checkButton.toolTip() == "Run the async_timeline probe on this backend"
    card.checkButton.click()
    assert checked == ["async_timeline"]
    card.show_result({"backend": "gpu", "launch_return_ms": 0.05})
    assert card.checkButton.text() == "Check it again"
    text = card.evidence_plain()
    assert text.startswith("<b>Live evidence</b> (gpu), <code>async_timeline: launch_return_ms</code>")
    assert text.endswith("→ <b>0.05 ms</b>")
    card.set_enabled_checks(False, True)
    assert not card.checkButton.isEnabled() and card.checkButton.isVisibleTo(card)
    card.set_enabled_checks(True, False)
    assert card.checkButton.isEnabled() and not card.checkButton.isVisibleTo(card)


def test_values_text_skips_the_names_and_words_the_gaps_in_order() -> None:
    result = {
        "probe": "async_timeline",
        "backend": "sim",
        "unavailable": {"launch_return_ms": "no GPU"},
        "launch_return_ms": None,
        "sim_launch_return_ms": 12.0,
        "threads": 2048,
    }
    assert values_text(result) == (
        "launch_return_ms: not measurable here: no GPU\nsim_launch_return_ms: 12.00 ms\nthreads: 2,048"
    )


def test_only_the_corrected_line_is_highlighted() -> None:
    text = code_html("a = 1\n\nb = 2  # corrected: was 3\n")
    body = text.split("'>", 1)[1]
    lines = body.removesuffix("</div>").split("<br>")
    assert lines[0] == "a = 1"
    assert lines[1] == "&nbsp;"  # an empty line keeps its height
    assert lines[2].startswith("<span style='background-color: #fff3c4")
    assert "b = 2&nbsp;&nbsp;# corrected: was 3" in lines[2]
    assert len(lines) == 3  # the last newline adds no line


def _texts(plot: pg.PlotWidget) -> list[str]:
    return [i.toPlainText() for i in plot.getPlotItem().items if isinstance(i, pg.TextItem)]


def _bars(plot: pg.PlotWidget) -> pg.BarGraphItem:
    (bars,) = [i for i in plot.getPlotItem().items if isinstance(i, pg.BarGraphItem)]
    return bars


def test_the_gpu_timeline_puts_the_host_above_the_gpu_with_its_times(qtbot) -> None:
    # launch returns at 0.05 ms, synchronize at 50.08 ms, the kernel ran 49.9 ms on the GPU.
    plot = timeline_plot({"launch_return_ms": 0.05, "sync_return_ms": 50.08, "kernel_gpu_ms": 49.9})
    qtbot.addWidget(plot)
    assert (
        plot.getPlotItem().titleLabel.text == "A launch returns at once; synchronize() waits for the kernel"
    )
    assert dict(plot.getAxis("left")._tickLevels[0]) == {1.0: "host thread", 0.0: "GPU"}
    assert plot.getAxis("bottom").labelText == "time since the launch call (ms)"
    bars = _bars(plot)
    # the launch call (0 → 0.05) and the wait (0.05 → 50.08) on the host row; the kernel on the GPU row
    assert list(bars.opts["x0"]) == [0.0, 0.05, 0.0]
    assert list(bars.opts["x1"]) == [0.05, 50.08, 49.9]
    assert list(bars.opts["y"]) == [1.0, 1.0, 0.0]
    assert _texts(plot) == [
        "launch returns after 0.05 ms",
        "synchronize() waits until 50.08 ms",
        "kernel runs 49.90 ms (GPU events)",
    ]
    # x to the later of the two ends (50.08 ms) and 2 % more: 51.0816
    (x0, x1), _ = plot.getPlotItem().getViewBox().viewRange()
    assert x0 == pytest.approx(0.0) and x1 == pytest.approx(51.0816)


def test_the_kernel_longer_than_the_wait_sets_the_time_axis(qtbot) -> None:
    plot = timeline_plot({"launch_return_ms": 0.05, "sync_return_ms": 10.0, "kernel_gpu_ms": 20.0})
    qtbot.addWidget(plot)
    (_x0, x1), (y0, y1) = plot.getPlotItem().getViewBox().viewRange()
    assert x1 == pytest.approx(20.4)  # 20 ms × 1.02
    assert (y0, y1) == (pytest.approx(-0.7), pytest.approx(1.7))


def test_the_simulator_timeline_says_no_gpu_ran(qtbot) -> None:
    plot = timeline_plot({"sim_launch_return_ms": 12.0, "sim_sync_return_ms": 12.5})
    qtbot.addWidget(plot)
    assert plot.getPlotItem().titleLabel.text == "CPU simulator: the kernel runs inside the launch call"
    bars = _bars(plot)
    assert list(bars.opts["x0"]) == [0.0, 12.0]
    assert list(bars.opts["x1"]) == [12.0, 12.5]
    assert _texts(plot) == [
        "launch call returns after 12.00 ms: the kernel had already run",
        "no GPU: nothing runs asynchronously, no GPU time to show",
    ]
    (_x0, x1), _ = plot.getPlotItem().getViewBox().viewRange()
    assert x1 == pytest.approx(12.75)  # 12.5 ms × 1.02


def test_the_simulator_jit_chart_names_wall_time(qtbot) -> None:
    plot = jit_plot({"first_sim_launch_ms": 30.0, "second_sim_launch_ms": 2.5})
    qtbot.addWidget(plot)
    assert plot.getPlotItem().titleLabel.text == "CPU simulator: host wall time, nothing compiled"
    assert plot.getAxis("left").labelText == "simulator wall time (ms)"
    assert dict(plot.getAxis("bottom")._tickLevels[0]) == {0: "1st launch", 1: "2nd launch"}
    assert list(_bars(plot).opts["height"]) == [30.0, 2.5]
    assert _texts(plot) == ["30.00 ms", "2.50 ms"]
    _, (y0, y1) = plot.getPlotItem().getViewBox().viewRange()
    assert y0 == pytest.approx(0.0) and y1 == pytest.approx(36.0)  # the taller bar, 30 ms × 1.2


def test_the_gpu_jit_chart_names_the_launch_call(qtbot) -> None:
    plot = jit_plot({"first_launch_ms": 0.5, "second_launch_ms": 620.0})
    qtbot.addWidget(plot)
    assert plot.getAxis("left").labelText == "host time of the launch call (ms)"
    _, (_y0, y1) = plot.getPlotItem().getViewBox().viewRange()
    assert y1 == pytest.approx(744.0)  # the second is the taller here: 620 × 1.2


def test_a_failed_probe_or_one_without_a_drawing_gets_no_chart(qtbot) -> None:
    from PySide6.QtGui import QColor

    white, black = QColor("white"), QColor("black")
    assert chart_for("async_timeline", {"error": "boom"}, white, black, 11) is None
    assert chart_for("warps", {"x": 1}, white, black, 11) is None
    chart = chart_for("jit_timing", {"first_sim_launch_ms": 1.0}, white, black, 11)
    assert chart is not None and chart.objectName() == "lessonJitChart"
    qtbot.addWidget(chart)
