"""The lesson's "predict, then run" box: one question before a step's Try it.

The student answers (``lessonAnswer``) and presses ``lessonCheckAnswer``; the box keeps the
answer and says so, without the truth. When the step's Try it brings its probe's result, the box
says "You said X, the GPU did Y" and, for a wrong answer, names the right one
(``simtviz.core.lesson.grading`` decides all of it; this file only shows it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from simtviz.core.lesson import Step
from simtviz.core.lesson.grading import after_run, on_check
from simtviz.core.lesson.model import Question

PICK = "Pick one…"


class LessonQuestionBox(QGroupBox):
    """``lessonQuestion``, ``lessonAnswer``, ``lessonCheckAnswer`` and ``lessonFeedback``."""

    answered = Signal(str, str)  # section, the answer as the question spells it
    concluded = Signal(str, str, str)  # section, the answer given ("" for none), the feedback

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Predict, then run", parent)
        self.setObjectName("lessonQuestionBox")
        self._step: Step | None = None
        self._given: str | None = None
        self._result: Mapping[str, Any] | None = None  # this step's run, once it ran
        self._where = ""
        self._enter_wired: object = None  # the combo's line edit whose Enter checks the answer
        self.lessonQuestion = QLabel(objectName="lessonQuestion")
        self.lessonQuestion.setWordWrap(True)
        self.lessonAnswer = QComboBox(objectName="lessonAnswer")
        self.lessonAnswer.setMinimumContentsLength(14)
        self.lessonAnswer.setToolTip("Your prediction: pick one, or type a whole number")
        self.lessonCheckAnswer = QPushButton("Check my answer", objectName="lessonCheckAnswer")
        self.lessonFeedback = QLabel(objectName="lessonFeedback")
        self.lessonFeedback.setWordWrap(True)
        self.lessonCheckAnswer.clicked.connect(self.check)
        row = QHBoxLayout()
        row.addWidget(self.lessonAnswer, stretch=1)
        row.addWidget(self.lessonCheckAnswer)
        layout = QVBoxLayout(self)
        layout.addWidget(self.lessonQuestion)
        layout.addLayout(row)
        layout.addWidget(self.lessonFeedback)

    @property
    def question(self) -> Question | None:
        return self._step.question if self._step is not None else None

    def answer(self) -> str | None:
        """The answer the student checked for this step (None before they did)."""
        return self._given

    def set_step(
        self,
        step: Step,
        given: str | None = None,
        feedback: str = "",
        run: tuple[Mapping[str, Any], str] | None = None,
    ) -> None:
        """Show ``step``'s question (the box hides where there is none), with an earlier answer,
        and ``run`` = (result, where) when its Try it already ran."""
        self._step, self._given = step, given
        self._result, self._where = run if run is not None else (None, "")
        q = step.question
        self.setVisible(q is not None)
        if q is None:
            return
        self.lessonQuestion.setText(q.prompt)
        self.lessonAnswer.clear()
        self.lessonAnswer.setEditable(not q.choices)
        if q.choices:
            self.lessonAnswer.addItems([PICK, *q.choices])
            if given in q.choices:
                self.lessonAnswer.setCurrentText(given)
        else:
            self.lessonAnswer.setEditText(given or "")
            line = self.lessonAnswer.lineEdit()
            if line is not None:
                line.setPlaceholderText("a whole number")
                if line is not self._enter_wired:  # once per line edit (Qt makes a new one per edit mode)
                    line.returnPressed.connect(self.check)
                    self._enter_wired = line
        self.lessonFeedback.setText(feedback)

    def set_answer_text(self, text: str) -> None:
        """Type or pick ``text`` as the student would."""
        if self.lessonAnswer.isEditable():
            self.lessonAnswer.setEditText(text)
        else:
            self.lessonAnswer.setCurrentText(text)

    def check(self) -> None:
        q, step = self.question, self._step
        if q is None or step is None:
            return
        label = next((t.label for t in step.try_its if t.params.get("probe") == q.probe), "")
        answer, text = on_check(q, self.lessonAnswer.currentText(), label)
        self.lessonFeedback.setText(text)
        if answer.value is not None:
            self._given = answer.value
            self.answered.emit(step.section, answer.value)
            if self._result is not None:  # it ran before the answer: compare at once
                self.show_result(q.probe, self._result, self._where)

    def show_result(self, probe: str, result: Mapping[str, Any], where: str) -> bool:
        """After the step's Try it: compare the answer with the run. True when it was the
        question's probe (the feedback then holds the comparison)."""
        q, step = self.question, self._step
        if q is None or step is None or probe != q.probe:
            return False
        self._result, self._where = result, where
        text = after_run(q, self._given, result, where)
        self.lessonFeedback.setText(text)
        self.concluded.emit(step.section, self._given or "", text)
        return True
