"""What the schedule view shows: one schedule (a GPU run or a saved file) and the launches it offers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton, QTableWidgetItem, QVBoxLayout, QWidget

from simtviz.core.schedule import ScheduleAnalysis, ScheduleResult, analyse, is_measured, load_npz
from simtviz.resources import ResourceNotFound, resource_path

SCHEDULE = "schedule"

# Launches that each show one limiting factor on an H100/H200 (the recorded fixtures):
# label → (blocks, threads per block, work µs, shared memory bytes, register-heavy).
PRESETS: dict[str, tuple[int, int, float, int, bool]] = {
    "threads limit: 2,464 × 256": (2464, 256, 20.0, 0, False),
    "registers limit: 1,232 × 256, register-heavy": (1232, 256, 20.0, 0, True),
    "shared memory limit: 1,540 × 128, 40 KiB": (1540, 128, 20.0, 40960, False),
    "blocks limit: 9,856 × 32": (9856, 32, 20.0, 0, False),
}

SAMPLE = "samples/schedule-h100-threads.npz"  # tests/data/schedule/schedule-threads.npz
SAMPLE_WORDS = "2,464 blocks of 256 threads measured on an NVIDIA H100 (132 SMs), 20 µs of work per thread"
EMPTY_CHART = (
    "<b>The chart goes here:</b> one bar per block, on the SM it ran on, from its start to its end, "
    "and how many blocks each SM ran. It needs a schedule measured on a GPU: Run on one, or open a "
    "saved schedule (<code>simtviz schedule … --out FILE.npz</code>)."
)


def sample_path() -> Path | None:
    """The sample schedule shipped in resources, or None where it was left out."""
    try:
        return resource_path(SAMPLE)
    except ResourceNotFound:
        return None


def empty_chart(open_sample: Any) -> QWidget:
    """``scheduleEmpty``: what stands where the chart goes until a schedule is shown (empty axes
    took 60 % of the tab), with ``scheduleSampleButton`` when the sample ships."""
    widget = QWidget(objectName="scheduleEmpty")
    layout = QVBoxLayout(widget)
    text = QLabel(EMPTY_CHART, objectName="scheduleEmptyText", wordWrap=True)
    text.setTextFormat(Qt.TextFormat.RichText)
    button = QPushButton("Open the sample (H100)", objectName="scheduleSampleButton")
    button.setToolTip(SAMPLE_WORDS)
    button.clicked.connect(lambda: open_sample())
    button.setVisible(sample_path() is not None)
    layout.addWidget(text)
    layout.addWidget(button, 0, Qt.AlignmentFlag.AlignLeft)
    layout.addStretch(1)
    return widget


NOTHING_HERE = (
    "<b>Nothing to measure on the CPU.</b> The CPU emulator and the CUDA simulator run the blocks "
    "on the CPU: there are no SMs and no GPU clock, so no block has a place or a time. On a GPU, Run "
    "records for every block the SM it ran on (<code>%smid</code>) and when it started and ended "
    "(<code>%globaltimer</code>). Open a schedule saved on a GPU (e.g. "
    "<code>simtviz schedule … --out FILE.npz</code>) to see one here; the occupancy arithmetic "
    "on the right works anywhere."
)

FACT_ROWS = (
    ("resident", "resident blocks / SM"),
    ("waves", "waves"),
    ("tail", "tail (last wave) blocks"),
    ("sms", "SMs used"),
)


@dataclass(frozen=True)
class ShownSchedule:
    """What the view draws: the ``schedule --json`` summary and one row per block."""

    summary: dict[str, Any]
    smid: np.ndarray
    start_ns: np.ndarray
    end_ns: np.ndarray
    analysis: ScheduleAnalysis | None
    source: str  # "this GPU" or the file it came from
    result: ScheduleResult | None = None  # a run of this session (it can be saved)

    @property
    def grid(self) -> tuple[int, int, int]:
        return tuple(int(v) for v in self.summary["grid"])  # type: ignore[return-value]

    @property
    def block(self) -> tuple[int, int, int]:
        return tuple(int(v) for v in self.summary["block"])  # type: ignore[return-value]

    def block_xyz(self, linear: int) -> tuple[int, int, int]:
        """blockIdx of the block in row ``linear`` (x fastest, as the kernel numbers them)."""
        gx, gy, _ = self.grid
        return (linear % gx, (linear // gx) % gy, linear // (gx * gy))

    @classmethod
    def of_result(cls, result: ScheduleResult) -> ShownSchedule:
        return cls(
            result.summary(), result.smid, result.start_ns, result.end_ns, result.analysis, "this GPU", result
        )

    @classmethod
    def of_file(cls, path: str | Path) -> ShownSchedule:
        data = load_npz(path)
        smid, start, end = data["smid"], data["start_ns"], data["end_ns"]
        analysis = analyse(smid, start, end) if is_measured(smid, start, end) else None
        return cls(data["summary"], smid, start, end, analysis, Path(path).name)


def fact_values(shown: ShownSchedule) -> dict[str, tuple[Any, Any, Any]]:
    """The facts table's cells, per FACT_ROWS key: (theory, driver, measured); None where a
    column has no figure for that row."""
    s, a = shown.summary, shown.analysis
    t, m = s["theoretical"], s["measured"]
    tail_theory = None
    if t["waves"]:
        tail_theory = s["blocks"] - (t["waves"] - 1) * s["sms"] * t["blocks_per_sm"]
    return {
        "resident": (t["blocks_per_sm"], s.get("driver_blocks_per_sm"), m["max_resident_blocks_per_sm"]),
        "waves": (t["waves"], None, m["waves"]),
        "tail": (tail_theory, None, a.tail_blocks if a else None),
        "sms": (s["sms"], None, m["sms_used"]),
    }


def bar_times_us(shown: ShownSchedule, analysis: ScheduleAnalysis) -> tuple[np.ndarray, np.ndarray]:
    """Each block's bar on the Gantt's time axis: start and end in µs since the first start."""
    t0 = analysis.t0_ns
    x0 = (np.asarray(shown.start_ns, np.int64) - t0) / 1000.0
    x1 = (np.asarray(shown.end_ns, np.int64) - t0) / 1000.0
    return x0, x1


def table_item(text: str, bold: bool = False) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
    if bold:
        font = item.font()
        font.setBold(True)
        item.setFont(font)
    return item
