"""Where and when the blocks ran: residency and waves measured from per-block SM ids and times.

Input: for every block its SM (``%smid``), and its start and end (``%globaltimer``, ns) as
thread 0 of the block read them. A block holds its SM's resources over ``[start, end)``.

Definitions (chosen so that no threshold or clock tuning is involved):

- **resident at once** on an SM: the most intervals of that SM that overlap at one instant,
  from a sweep over starts and ends (an end at the same instant as a start counts first: the
  finished block made room for the new one).
- **wave** of a block: how many blocks had to finish on its SM before it could start, in
  generations: 0 when no block of that SM had ended by its start, else 1 + the largest wave of
  the blocks of that SM that ended by then. A new block only gets an SM's slot once an earlier
  block freed it, so with equal blocks the first blocks an SM takes are wave 0, the ones that
  replace them wave 1, and so on. ``waves`` = largest wave + 1; the **tail** is the last wave.
  With equal work per block and a full first wave this equals ``ceil(blocks / (SMs × resident))``.
- **lane**: the row inside an SM's Gantt row: blocks that overlap get different lanes (greedy
  interval colouring), so an SM needs as many lanes as it held blocks at once.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simtviz.core.files import atomic_write
from simtviz.core.schedule.occupancy import Occupancy, theoretical_waves


def is_measured(smid: np.ndarray, start_ns: np.ndarray, end_ns: np.ndarray) -> bool:
    """False when the backend could not read the SM or the clock (the simulator writes -1)."""
    return bool(len(smid)) and bool((smid >= 0).all() and (start_ns >= 0).all() and (end_ns >= 0).all())


@dataclass(frozen=True)
class ScheduleAnalysis:
    """What the recorded intervals show, per block, per SM and overall."""

    blocks: int
    sms_used: int
    per_sm_blocks: np.ndarray  # index = SM id, value = blocks it ran (length max SM id + 1)
    per_sm_max_resident: np.ndarray  # index = SM id
    max_resident_blocks_per_sm: int
    waves: int
    wave: np.ndarray  # per block
    lane: np.ndarray  # per block: row inside the SM's Gantt row
    tail_blocks: int  # blocks in the last wave
    t0_ns: int  # earliest start: the origin of the Gantt's time axis
    span_us: float  # earliest start to latest end

    def tail_fraction(self, sms: int, blocks_per_sm: int) -> float | None:
        """How full the last wave is, against a full GPU (1.0: no partial tail)."""
        capacity = sms * blocks_per_sm
        return self.tail_blocks / capacity if capacity > 0 else None


def _max_overlap(start: np.ndarray, end: np.ndarray) -> int:
    """Most intervals [start, end) alive at one instant."""
    if len(start) == 0:
        return 0
    times = np.concatenate([start, end])
    delta = np.concatenate([np.ones(len(start), np.int64), -np.ones(len(end), np.int64)])
    # At equal times the end (-1) sorts before the start (+1): lexsort's last key is the primary.
    order = np.lexsort((delta, times))
    return int(np.cumsum(delta[order]).max())


def _waves_and_lanes(start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per interval of one SM: its wave (generation) and its lane (greedy interval colouring)."""
    n = len(start)
    wave = np.zeros(n, np.int64)
    lane = np.zeros(n, np.int64)
    order = np.lexsort((end, start))
    running: list[tuple[int, int, int]] = []  # (end, wave, lane) of blocks not yet known to be over
    free_lanes: list[int] = []
    next_lane = 0
    finished_wave = -1  # largest wave among blocks that ended by the current start
    for i in order:
        s = int(start[i])
        while running and running[0][0] <= s:
            _, w, ln = heapq.heappop(running)
            finished_wave = max(finished_wave, w)
            heapq.heappush(free_lanes, ln)
        wave[i] = finished_wave + 1
        if free_lanes:
            lane[i] = heapq.heappop(free_lanes)
        else:
            lane[i] = next_lane
            next_lane += 1
        heapq.heappush(running, (int(end[i]), int(wave[i]), int(lane[i])))
    return wave, lane


def analyse(smid: np.ndarray, start_ns: np.ndarray, end_ns: np.ndarray) -> ScheduleAnalysis:
    """Residency, waves, lanes and span from one row per block (arrays of equal length)."""
    smid = np.asarray(smid, dtype=np.int64)
    start = np.asarray(start_ns, dtype=np.int64)
    end = np.asarray(end_ns, dtype=np.int64)
    if not (len(smid) == len(start) == len(end)):
        raise ValueError("smid, start and end need one entry per block")
    if not is_measured(smid, start, end):
        raise ValueError("no SM ids or clock readings to analyse (the simulator records none)")
    if (end < start).any():
        raise ValueError("a block ends before it starts")
    n = len(smid)
    sms = int(smid.max()) + 1
    per_sm_blocks = np.bincount(smid, minlength=sms)
    per_sm_max = np.zeros(sms, np.int64)
    wave = np.zeros(n, np.int64)
    lane = np.zeros(n, np.int64)
    by_sm = np.argsort(smid, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(per_sm_blocks)])
    for sm in np.flatnonzero(per_sm_blocks):
        rows = by_sm[bounds[sm] : bounds[sm + 1]]
        per_sm_max[sm] = _max_overlap(start[rows], end[rows])
        wave[rows], lane[rows] = _waves_and_lanes(start[rows], end[rows])
    waves = int(wave.max()) + 1
    t0 = int(start.min())
    return ScheduleAnalysis(
        blocks=n,
        sms_used=int((per_sm_blocks > 0).sum()),
        per_sm_blocks=per_sm_blocks,
        per_sm_max_resident=per_sm_max,
        max_resident_blocks_per_sm=int(per_sm_max.max()),
        waves=waves,
        wave=wave,
        lane=lane,
        tail_blocks=int((wave == waves - 1).sum()),
        t0_ns=t0,
        span_us=(int(end.max()) - t0) / 1000.0,
    )


@dataclass(frozen=True)
class GanttBars:
    """One bar per block, for the schedule view (times in µs from the earliest start)."""

    sm: np.ndarray
    lane: np.ndarray
    start_us: np.ndarray
    end_us: np.ndarray
    block: np.ndarray  # linear block index
    wave: np.ndarray


def gantt_bars(
    smid: np.ndarray,
    start_ns: np.ndarray,
    end_ns: np.ndarray,
    analysis: ScheduleAnalysis,
    block: np.ndarray | None = None,
) -> GanttBars:
    t0 = analysis.t0_ns
    n = len(smid)
    return GanttBars(
        sm=np.asarray(smid, np.int64),
        lane=analysis.lane,
        start_us=(np.asarray(start_ns, np.int64) - t0) / 1000.0,
        end_us=(np.asarray(end_ns, np.int64) - t0) / 1000.0,
        block=np.arange(n, dtype=np.int64) if block is None else np.asarray(block, np.int64),
        wave=analysis.wave,
    )


@dataclass(frozen=True)
class ScheduleRequest:
    """One schedule launch: the configuration, busy work per thread, shared memory per block, and
    which kernel (``heavy``: the register-heavy variant, optionally capped at ``max_registers``)."""

    grid: tuple[int, int, int] | int
    block: tuple[int, int, int] | int
    work_us: float = 0.0
    smem: int = 0  # dynamic shared memory per block, bytes
    heavy: bool = False
    max_registers: int | None = None

    def __post_init__(self) -> None:
        if self.work_us < 0 or self.smem < 0:
            raise ValueError("busy work and shared memory cannot be negative")
        if self.max_registers is not None and not self.heavy:
            raise ValueError("max_registers applies to the register-heavy kernel (heavy=True)")

    @property
    def work_ns(self) -> int:
        return round(self.work_us * 1000)


@dataclass(frozen=True)
class ScheduleResult:
    """One schedule launch: what each block recorded, the analysis, and the theory beside it."""

    backend: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    sms: int
    work_us: float
    smem_per_block: int
    occupancy: Occupancy  # theoretical, for this kernel's registers and shared memory
    driver_blocks_per_sm: int | None  # cuOccupancyMaxActiveBlocksPerMultiprocessor, None if unknown
    smid: np.ndarray
    start_ns: np.ndarray
    end_ns: np.ndarray
    analysis: ScheduleAnalysis | None  # None where nothing was measured

    @property
    def blocks(self) -> int:
        return int(np.prod(self.grid))

    @property
    def theoretical_waves(self) -> int | None:
        return theoretical_waves(self.blocks, self.sms, self.occupancy.blocks_per_sm)

    @property
    def driver_disagrees(self) -> bool:
        """The driver's blocks per SM differ from the computed value (shown, never hidden)."""
        return (
            self.driver_blocks_per_sm is not None
            and self.driver_blocks_per_sm != self.occupancy.blocks_per_sm
        )

    def bars(self) -> GanttBars | None:
        if self.analysis is None:
            return None
        return gantt_bars(self.smid, self.start_ns, self.end_ns, self.analysis)

    def summary(self) -> dict[str, Any]:
        """The ``simtviz schedule --json`` object (CONTRACT keys, in order)."""
        occ = self.occupancy
        a = self.analysis
        return {
            "backend": self.backend,
            "grid": list(self.grid),
            "block": list(self.block),
            "blocks": self.blocks,
            "sms": self.sms,
            "work_us": self.work_us,
            "regs_per_thread": occ.regs_per_thread,
            "smem_per_block": self.smem_per_block,
            "theoretical": {
                "blocks_per_sm": occ.blocks_per_sm,
                "warps_per_sm": occ.warps_per_sm,
                "occupancy": occ.occupancy,
                "limiter": occ.limiter,
                "waves": self.theoretical_waves,
            },
            "driver_blocks_per_sm": self.driver_blocks_per_sm,
            "measured": {
                "sms_used": a.sms_used if a else None,
                "max_resident_blocks_per_sm": a.max_resident_blocks_per_sm if a else None,
                "waves": a.waves if a else None,
                "span_us": a.span_us if a else None,
            },
        }

    def npz_arrays(self) -> dict[str, Any]:
        """Arrays for ``--out FILE.npz``: one row per block, plus the launch and the summary."""
        import json

        out: dict[str, Any] = {
            "smid": np.asarray(self.smid, np.int32),
            "start_ns": np.asarray(self.start_ns, np.int64),
            "end_ns": np.asarray(self.end_ns, np.int64),
            "gridDim": np.asarray(self.grid, np.int64),
            "blockDim": np.asarray(self.block, np.int64),
            "backend": np.asarray(self.backend),
            "summary": np.asarray(json.dumps(self.summary())),
        }
        if self.analysis is not None:
            out["wave"] = self.analysis.wave.astype(np.int32)
            out["lane"] = self.analysis.lane.astype(np.int32)
        return out


def counted(n: int, noun: str) -> str:
    """``3 blocks``, ``1 block``: a count and its noun, as a sentence says it."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def disagreements(summary: dict[str, Any]) -> list[str]:
    """One sentence per figure where theory, the driver and the measurement differ, from a
    ``schedule --json`` dict (shown, never hidden); empty when they all agree."""
    t, m = summary["theoretical"], summary["measured"]
    out = []
    driver = summary.get("driver_blocks_per_sm")
    if driver is not None and driver != t["blocks_per_sm"]:
        out.append(
            f"the driver says {counted(driver, 'block')} per SM, simtviz computed {t['blocks_per_sm']}"
        )
    resident = m["max_resident_blocks_per_sm"]
    if resident is not None and resident != t["blocks_per_sm"]:
        # Fewer: blocks finished before the SM filled up (too little work per block), or the
        # launch had too few blocks to fill every slot. More would mean the model is wrong.
        hint = (
            " (did blocks finish before the SM filled up? give each more work)"
            if resident < t["blocks_per_sm"]
            else ""
        )
        were = "was" if resident == 1 else "were"
        out.append(
            f"at most {counted(resident, 'block')} {were} resident on one SM at once, theory allows "
            f"{t['blocks_per_sm']}{hint}"
        )
    if m["waves"] is not None and t["waves"] is not None and m["waves"] != t["waves"]:
        out.append(f"measured {counted(m['waves'], 'wave')}, theory says {t['waves']}")
    return out


def save_npz(result: ScheduleResult, path: str | Path) -> Path:
    """Write ``result.npz_arrays()`` atomically (never a half-written file)."""
    arrays = result.npz_arrays()
    return atomic_write(path, lambda fh: np.savez_compressed(fh, **arrays))


def load_npz(path: str | Path) -> dict[str, Any]:
    """The arrays of a saved schedule and its summary dict (``"summary"``), e.g. a test fixture.

    Checked from the headers before anything is decompressed (``npz_read``); any file that is
    not a schedule raises ``RecordFileError`` in words."""
    import json

    from simtviz.core.errors import RecordFileError
    from simtviz.core.npz_read import CheckedNpz

    with CheckedNpz(Path(path), MAX_SCHEDULE_BYTES, "schedule") as data:
        out: dict[str, Any] = {key: data.array(key) for key in data.files}
    try:
        out["summary"] = json.loads(str(out["summary"]))
        out["backend"] = str(out["backend"])
    except (KeyError, ValueError) as exc:
        raise RecordFileError(f"{path} is not a simtviz schedule: {exc}") from exc
    if not isinstance(out["summary"], dict):
        raise RecordFileError(f"{path} is not a simtviz schedule: its summary is not a table")
    return out


# A schedule holds a few numbers per block: 256 MB is millions of blocks, far past any lesson's.
MAX_SCHEDULE_BYTES = 256_000_000
