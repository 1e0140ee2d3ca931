"""The lesson panel shows a card's evidence under its step (planted bug E9 of plant-c: the cards'
probes left out of a step's probes; every other test still passed).

§2.2.3.2 has one erratum card, cp-rand, proved by array_dtypes' has_cp_rand; the step has no Try
it of array_dtypes, only the card's "Check it live". The result must appear in the step's results.
"""

from __future__ import annotations

from PySide6.QtWidgets import QGroupBox, QLabel

from simtviz.core.lesson import STEPS


def test_a_card_s_live_check_shows_its_result_box_on_the_card_s_step(qtbot) -> None:
    from simtviz.qt.tabs.lesson.tab import LessonPanel

    panel = LessonPanel()
    qtbot.addWidget(panel)
    panel.show_step([s.section for s in STEPS].index("2.2.3.2"))
    assert panel.lessonStepTitle.text().startswith("2.2.3.2 ")
    result = {"probe": "array_dtypes", "backend": "sim", "unavailable": {}, "has_cp_rand": False}
    panel.show_probe_result("array_dtypes", result)
    box = panel.findChild(QGroupBox, "lessonResult_array_dtypes")
    assert box is not None and box.title().startswith("array_dtypes on sim")
    values = box.findChild(QLabel, "lessonValues_array_dtypes")
    assert values is not None and "has_cp_rand" in values.text()
