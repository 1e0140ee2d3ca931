"""Residency, waves, lanes and the tail measured from hand-made block intervals (times in ns)."""

from __future__ import annotations

import numpy as np
import pytest

from simtviz.core.schedule import ScheduleResult, analyse, gantt_bars, is_measured, load_npz, save_npz
from simtviz.core.schedule.occupancy import occupancy, profile_for, theoretical_waves

US = 1000


def test_one_sm_two_slots_five_equal_blocks() -> None:
    # Blocks 0,1 run [0,10) µs, 2,3 replace them [10,20), 4 runs alone [20,30).
    # At 10 µs two end as two start: 2 resident, not 4. Waves 0,0,1,1,2 → 3 waves, tail of 1.
    smid = np.zeros(5, np.int32)
    start = np.array([0, 0, 10, 10, 20]) * US
    end = np.array([10, 10, 20, 20, 30]) * US
    a = analyse(smid, start, end)
    assert a.max_resident_blocks_per_sm == 2
    assert a.wave.tolist() == [0, 0, 1, 1, 2]
    assert (a.waves, a.tail_blocks) == (3, 1)
    # Lanes: the first two take lanes 0 and 1; each replacement reuses the lowest free lane.
    assert a.lane.tolist() == [0, 1, 0, 1, 0]
    assert a.span_us == 30.0
    assert a.per_sm_blocks.tolist() == [5]
    # One SM × 2 slots: the last wave holds 1 of 2.
    assert a.tail_fraction(1, 2) == 0.5


def test_sparse_sm_ids_and_jittered_starts() -> None:
    # SM 3: [100,1100), [150,1150), then [1120,2100) after the first ended (wave 1).
    # SM 7: one block [120,1130). Earliest start 100 ns, latest end 2100 ns → 2.0 µs.
    smid = np.array([3, 3, 7, 3])
    start = np.array([100, 150, 120, 1120])
    end = np.array([1100, 1150, 1130, 2100])
    a = analyse(smid, start, end)
    assert a.sms_used == 2
    assert a.per_sm_blocks.tolist() == [0, 0, 0, 2 + 1, 0, 0, 0, 1]
    assert a.per_sm_max_resident[3] == 2 and a.per_sm_max_resident[7] == 1
    assert a.max_resident_blocks_per_sm == 2
    assert a.wave.tolist() == [0, 0, 0, 1]
    assert (a.waves, a.tail_blocks) == (2, 1)
    assert a.span_us == pytest.approx(2.0)
    bars = gantt_bars(smid, start, end, a)
    assert bars.start_us.tolist() == pytest.approx([0.0, 0.05, 0.02, 1.02])
    assert bars.end_us.tolist() == pytest.approx([1.0, 1.05, 1.03, 2.0])
    assert bars.block.tolist() == [0, 1, 2, 3]
    assert bars.lane.tolist() == [0, 1, 0, 0]


def test_a_block_replacing_one_of_a_staggered_first_wave() -> None:
    # a [0,50) and b [10,60) overlap (2 resident); c starts at 55 after a ended: wave 1, and it
    # overlaps b only, so still 2 resident at most.
    a = analyse(np.zeros(3, int), np.array([0, 10, 55]), np.array([50, 60, 100]))
    assert a.max_resident_blocks_per_sm == 2
    assert a.wave.tolist() == [0, 0, 1]
    assert a.lane.tolist() == [0, 1, 0]


def test_full_gpu_waves_match_the_formula() -> None:
    # 132 SMs × 8 resident = 1056 per wave; 2122 blocks = 2 full waves + 10 (tail).
    # Block i: generation i // 1056, SM (i % 1056) % 132; each generation starts 20 µs after the
    # last, with a few ns of jitter, and ends 100 ns before the next one starts.
    n, per_wave = 2122, 132 * 8
    i = np.arange(n)
    gen = i // per_wave
    smid = (i % per_wave) % 132
    start = gen * 20 * US + (i % 7)
    end = start + 19_900
    a = analyse(smid, start, end)
    assert a.max_resident_blocks_per_sm == 8
    assert a.waves == 3 == theoretical_waves(n, 132, 8)
    assert a.tail_blocks == 10
    assert a.sms_used == 132


def test_the_simulator_measures_nothing() -> None:
    minus = np.full(4, -1)
    assert not is_measured(minus, minus, minus)
    with pytest.raises(ValueError, match="simulator"):
        analyse(minus, minus, minus)
    with pytest.raises(ValueError, match="ends before"):
        analyse(np.zeros(1, int), np.array([10]), np.array([5]))


def _result(driver: int | None, analysed: bool = True) -> ScheduleResult:
    smid = np.zeros(5, np.int32)
    start = np.array([0, 0, 10, 10, 20]) * US
    end = np.array([10, 10, 20, 20, 30]) * US
    return ScheduleResult(
        backend="gpu:NVIDIA H200",
        grid=(5, 1, 1),
        block=(256, 1, 1),
        sms=132,
        work_us=10.0,
        smem_per_block=0,
        occupancy=occupancy(profile_for("9.0"), 256, 64),
        driver_blocks_per_sm=driver,
        smid=smid,
        start_ns=start,
        end_ns=end,
        analysis=analyse(smid, start, end) if analysed else None,
    )


def test_schedule_summary_has_the_contract_keys(tmp_path) -> None:
    result = _result(driver=4)
    summary = result.summary()
    assert list(summary) == [
        "backend", "grid", "block", "blocks", "sms", "work_us", "regs_per_thread", "smem_per_block",
        "theoretical", "driver_blocks_per_sm", "measured",
    ]  # fmt: skip
    assert summary["theoretical"] == {
        "blocks_per_sm": 4,
        "warps_per_sm": 32,
        "occupancy": 0.5,
        "limiter": "registers",
        "waves": 1,  # 5 blocks on 132 × 4 slots
    }
    assert summary["measured"] == {
        "sms_used": 1,
        "max_resident_blocks_per_sm": 2,
        "waves": 3,
        "span_us": 30.0,
    }
    assert not result.driver_disagrees
    assert _result(driver=5).driver_disagrees
    path = save_npz(result, tmp_path / "schedule.npz")
    loaded = load_npz(path)
    assert loaded["summary"] == summary
    assert loaded["wave"].tolist() == [0, 0, 1, 1, 2]
    assert loaded["backend"] == "gpu:NVIDIA H200"
    empty = _result(driver=None, analysed=False).summary()["measured"]
    assert set(empty.values()) == {None}
