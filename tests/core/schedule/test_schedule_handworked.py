"""Schedule analysis edge cases with every expected value worked out by hand (times in ns)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from simtviz.core.errors import RecordFileError
from simtviz.core.schedule import (
    ScheduleRequest,
    ScheduleResult,
    _max_overlap,
    analyse,
    disagreements,
    is_measured,
    load_npz,
    save_npz,
)
from simtviz.core.schedule.occupancy import occupancy, profile_for

# Five blocks on SMs 0 and 2 (SM 1 ran nothing):
#   block 0: SM 0 [0, 100)     block 1: SM 0 [0, 100)
#   block 2: SM 2 [50, 300)
#   block 3: SM 0 [100, 250)   block 4: SM 0 [100, 200)  (both start exactly as 0 and 1 end)
SMID = np.array([0, 0, 2, 0, 0])
START = np.array([0, 0, 50, 100, 100])
END = np.array([100, 100, 300, 250, 200])


def test_touching_intervals_on_two_of_three_sms() -> None:
    a = analyse(SMID, START, END)
    assert a.blocks == 5
    # SM 0 ran 4 blocks, SM 1 none, SM 2 one.
    assert a.per_sm_blocks.tolist() == [4, 0, 1]
    assert a.sms_used == 2
    # At 100 ns two blocks end before two start: SM 0 never holds more than 2; SM 1 holds 0.
    assert a.per_sm_max_resident.tolist() == [2, 0, 1]
    assert a.max_resident_blocks_per_sm == 2
    # Blocks 3 and 4 start once 0 and 1 ended (end <= start): wave 1; block 2 is alone: wave 0.
    assert a.wave.tolist() == [0, 0, 0, 1, 1]
    assert (a.waves, a.tail_blocks) == (2, 2)
    # Lanes: 0 and 1 take lanes 0, 1; by (start, end) block 4 (ends 200) goes before block 3
    # (ends 250) and takes the lowest freed lane 0, block 3 lane 1; block 2 lane 0 of SM 2.
    assert a.lane.tolist() == [0, 1, 0, 1, 0]
    # Earliest start 0, latest end 300 ns = 0.3 µs.
    assert a.t0_ns == 0
    assert a.span_us == pytest.approx(0.3)
    # 3 SMs × 2 slots = 6; the tail holds 2 of them.
    assert a.tail_fraction(3, 2) == pytest.approx(1 / 3)


def test_tail_fraction_of_a_single_slot_and_of_no_slot() -> None:
    a = analyse(np.array([0]), np.array([10]), np.array([20]))
    # One block, one SM × one slot: the only wave is full.
    assert a.tail_fraction(1, 1) == 1.0
    # No slot at all: no fraction (not a division by zero).
    assert a.tail_fraction(0, 4) is None
    assert a.tail_fraction(4, 0) is None


def test_zero_length_block_is_accepted() -> None:
    # [5, 5) inside [0, 10): a block whose clock did not tick is not "ending before it starts".
    # Sweep: +1 at 0, -1 then +1 at 5, -1 at 10 → at most 1 resident; nothing ended by 5: wave 0.
    a = analyse(np.array([0, 0]), np.array([0, 5]), np.array([10, 5]))
    assert a.max_resident_blocks_per_sm == 1
    assert a.wave.tolist() == [0, 0]
    assert a.span_us == pytest.approx(0.01)
    with pytest.raises(ValueError, match="ends before it starts"):
        analyse(np.array([0]), np.array([5]), np.array([4]))


def test_max_overlap_of_nothing_is_zero() -> None:
    assert _max_overlap(np.array([], np.int64), np.array([], np.int64)) == 0


def test_is_measured_accepts_zeros_and_rejects_minus_one() -> None:
    # SM 0 and time 0 are real readings; -1 anywhere is the simulator's "not measured".
    zero = np.array([0])
    assert is_measured(zero, zero, zero) is True
    assert is_measured(np.array([-1]), np.array([5]), np.array([6])) is False
    assert is_measured(zero, np.array([-1]), np.array([6])) is False
    assert is_measured(zero, np.array([5]), np.array([-1])) is False
    empty = np.array([], np.int64)
    assert is_measured(empty, empty, empty) is False


def test_request_defaults_and_validation() -> None:
    r = ScheduleRequest(grid=4, block=32)
    assert (r.work_us, r.smem, r.heavy, r.max_registers) == (0.0, 0, False, None)
    # Zero work and zero shared memory are allowed; small positive work too.
    ScheduleRequest(grid=4, block=32, work_us=0.0, smem=0)
    ScheduleRequest(grid=4, block=32, work_us=0.5, smem=0)
    for bad in ({"work_us": -1.0}, {"smem": -1}, {"work_us": -1.0, "smem": -1}):
        with pytest.raises(ValueError, match="cannot be negative"):
            ScheduleRequest(grid=4, block=32, **bad)  # type: ignore[arg-type]
    # max_registers only with the heavy kernel; heavy alone or with a cap is fine.
    ScheduleRequest(grid=4, block=32, heavy=True)
    assert ScheduleRequest(grid=4, block=32, heavy=True, max_registers=32).max_registers == 32
    with pytest.raises(ValueError, match="heavy"):
        ScheduleRequest(grid=4, block=32, max_registers=32)


def test_work_ns_rounds_microseconds() -> None:
    assert ScheduleRequest(grid=1, block=1, work_us=2.5).work_ns == 2500
    assert ScheduleRequest(grid=1, block=1, work_us=0.0004).work_ns == 0
    assert ScheduleRequest(grid=1, block=1, work_us=3.0).work_ns == 3000


def _result(measured: bool, driver: int | None = None) -> ScheduleResult:
    # cc 9.0, 256 threads × 64 registers = 16384 registers per block: 65536 / 16384 = 4 blocks
    # per SM (threads would allow 2048 / 256 = 8): 4 × 8 warps = 32 of 64 warps, occupancy 0.5.
    return ScheduleResult(
        backend="gpu:test",
        grid=(5, 1, 1),
        block=(256, 1, 1),
        sms=3,
        work_us=2.0,
        smem_per_block=0,
        occupancy=occupancy(profile_for("9.0"), 256, 64),
        driver_blocks_per_sm=driver,
        smid=SMID,
        start_ns=START,
        end_ns=END,
        analysis=analyse(SMID, START, END) if measured else None,
    )


def test_summary_keys_and_values() -> None:
    s = _result(True, driver=4).summary()
    assert list(s) == [
        "backend",
        "grid",
        "block",
        "blocks",
        "sms",
        "work_us",
        "regs_per_thread",
        "smem_per_block",
        "theoretical",
        "driver_blocks_per_sm",
        "measured",
    ]
    assert (s["backend"], s["grid"], s["block"], s["blocks"], s["sms"]) == (
        "gpu:test",
        [5, 1, 1],
        [256, 1, 1],
        5,
        3,
    )
    assert (s["work_us"], s["regs_per_thread"], s["smem_per_block"]) == (2.0, 64, 0)
    # 5 blocks over 3 SMs × 4 slots = 12 slots: one wave.
    assert s["theoretical"] == {
        "blocks_per_sm": 4,
        "warps_per_sm": 32,
        "occupancy": 0.5,
        "limiter": "registers",
        "waves": 1,
    }
    assert s["driver_blocks_per_sm"] == 4
    assert s["measured"] == {
        "sms_used": 2,
        "max_resident_blocks_per_sm": 2,
        "waves": 2,
        "span_us": pytest.approx(0.3),
    }
    # Theory 4, measured 2 resident (fewer: the hint) and 2 waves against 1.
    assert disagreements(s) == [
        "at most 2 blocks were resident on one SM at once, theory allows 4"
        " (did blocks finish before the SM filled up? give each more work)",
        "measured 2 waves, theory says 1",
    ]


def test_unmeasured_result_has_no_bars_and_null_measurements() -> None:
    r = _result(False)
    assert r.bars() is None
    s = r.summary()
    assert s["measured"] == {
        "sms_used": None,
        "max_resident_blocks_per_sm": None,
        "waves": None,
        "span_us": None,
    }
    assert s["driver_blocks_per_sm"] is None
    # Nothing measured and no driver figure: nothing to disagree about.
    assert disagreements(s) == []


def test_measured_result_bars() -> None:
    bars = _result(True).bars()
    assert bars is not None
    assert bars.sm.tolist() == [0, 0, 2, 0, 0]
    assert bars.lane.tolist() == [0, 1, 0, 1, 0]
    assert bars.start_us.tolist() == pytest.approx([0.0, 0.0, 0.05, 0.1, 0.1])
    assert bars.end_us.tolist() == pytest.approx([0.1, 0.1, 0.3, 0.25, 0.2])
    assert bars.wave.tolist() == [0, 0, 0, 1, 1]


def _summary(driver: int | None, resident: int | None, waves: int | None, t_waves: int | None) -> dict:
    return {
        "driver_blocks_per_sm": driver,
        "theoretical": {"blocks_per_sm": 4, "waves": t_waves},
        "measured": {"max_resident_blocks_per_sm": resident, "waves": waves},
    }


def test_disagreements_one_sentence_per_differing_figure() -> None:
    # Everything agrees: an empty list (not None).
    assert disagreements(_summary(4, 4, 2, 2)) == []
    # Missing figures are not disagreements.
    assert disagreements(_summary(None, None, None, 2)) == []
    assert disagreements(_summary(None, 4, 2, None)) == []
    assert disagreements(_summary(5, 4, 2, 2)) == ["the driver says 5 blocks per SM, simtviz computed 4"]
    # More resident than theory: no "give more work" hint.
    assert disagreements(_summary(4, 6, 2, 2)) == [
        "at most 6 blocks were resident on one SM at once, theory allows 4"
    ]
    assert disagreements(_summary(None, 4, 3, 2)) == ["measured 3 waves, theory says 2"]


def test_npz_round_trip(tmp_path) -> None:
    r = _result(True, driver=4)
    path = save_npz(r, tmp_path / "s.npz")
    got = load_npz(path)
    assert got["smid"].tolist() == [0, 0, 2, 0, 0]
    assert got["start_ns"].tolist() == [0, 0, 50, 100, 100]
    assert got["end_ns"].tolist() == [100, 100, 300, 250, 200]
    assert got["gridDim"].tolist() == [5, 1, 1]
    assert got["blockDim"].tolist() == [256, 1, 1]
    assert got["backend"] == "gpu:test"
    assert got["wave"].tolist() == [0, 0, 0, 1, 1]
    assert got["lane"].tolist() == [0, 1, 0, 1, 0]
    assert got["summary"]["measured"]["waves"] == 2
    assert got["summary"]["theoretical"]["blocks_per_sm"] == 4
    # Unmeasured: no wave/lane arrays.
    got = load_npz(save_npz(_result(False), tmp_path / "u.npz"))
    assert "wave" not in got and "lane" not in got
    assert got["summary"]["measured"]["waves"] is None


def test_npz_malformed_files(tmp_path) -> None:
    # One error type for every file that is not a schedule, each said in words (issue 24).
    # No summary array: not a schedule file.
    np.savez(tmp_path / "nosummary.npz", smid=np.zeros(1), backend=np.asarray("x"))
    with pytest.raises(RecordFileError, match="is not a simtviz schedule: 'summary'"):
        load_npz(tmp_path / "nosummary.npz")
    # A pickled object array is refused, even when its content would parse (never unpickle).
    np.savez(
        tmp_path / "pickled.npz",
        summary=np.array(json.dumps({"a": 1}), dtype=object),
        backend=np.asarray("x"),
    )
    with pytest.raises(RecordFileError, match="holds Python objects, which simtviz never loads"):
        load_npz(tmp_path / "pickled.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(RecordFileError, match=r"is not a NumPy \.npz archive"):
        load_npz(tmp_path / "junk.npz")


def test_disagreements_at_a_count_of_one_speak_in_the_singular() -> None:
    summary = {
        "driver_blocks_per_sm": 1,
        "theoretical": {"blocks_per_sm": 2, "waves": 3},
        "measured": {"max_resident_blocks_per_sm": 1, "waves": 1},
    }
    assert disagreements(summary) == [
        "the driver says 1 block per SM, simtviz computed 2",
        "at most 1 block was resident on one SM at once, theory allows 2"
        " (did blocks finish before the SM filled up? give each more work)",
        "measured 1 wave, theory says 3",
    ]
