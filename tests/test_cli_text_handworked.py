"""The CLI's text output (not --json) read back column by column, with hand-worked numbers, and
the order of checks before a launch."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from simtviz.cli import run
from simtviz.cli.schedule import summary_text as schedule_text
from simtviz.core.trace_analysis import LOG_FIELDS, ArrayInfo, analyse
from simtviz.core.trace_model import TraceResult
from simtviz.core.trace_report import findings
from simtviz.core.trace_rewrite import Site

# --- simtviz occupancy ---------------------------------------------------------------------------


def allowed(text: str) -> dict[str, str]:
    (line,) = [ln for ln in text.splitlines() if ln.startswith("each resource allows: ")]
    return dict(re.fullmatch(r"(.+?) (\d+ blocks|no limit)", part).groups() for part in line[22:].split(", "))  # type: ignore[union-attr]


def test_occupancy_text_names_each_limit_under_its_own_resource(capsys: pytest.CaptureFixture[str]) -> None:
    # cc 9.0, block 256 (8 warps), 64 registers, 40,960 B shared:
    # threads 64 warps // 8 = 8; blocks: the cap, 32;
    # registers 64 × 32 = 2,048 per warp; (65,536 / 4) // 2,048 = 8 warps per quarter × 4 = 32 // 8 = 4;
    # shared (40,960 + 1,024 reserved) = 41,984 B (a multiple of 128); 233,472 // 41,984 = 5.
    code = run(["occupancy", "--block", "256", "--regs", "64", "--smem", "40960", "--device", "9.0"])
    text = capsys.readouterr().out
    assert code == 0
    assert allowed(text) == {
        "threads": "8 blocks", "blocks": "32 blocks", "registers": "4 blocks", "shared memory": "5 blocks",
    }  # fmt: skip
    # 4 blocks × 8 warps = 32 warps of 64: 50 %
    assert "active blocks per SM: 4  (32 warps, occupancy 50%), limited by registers" in text
    assert "block of 256 threads, 64 registers/thread, 40,960 B shared memory/block" in text


def test_occupancy_text_when_shared_memory_limits(capsys: pytest.CaptureFixture[str]) -> None:
    # cc 8.6, block 128 (4 warps), 32 registers, 30,000 B: threads 48 // 4 = 12; blocks 16;
    # registers 1,024 per warp, 16,384 // 1,024 = 16 × 4 = 64 warps // 4 = 16;
    # shared 30,000 + 1,024 = 31,024 → 31,104 (243 × 128); 102,400 // 31,104 = 3.
    assert run(["occupancy", "--block", "128", "--regs", "32", "--smem", "30000", "--device", "8.6"]) == 0
    text = capsys.readouterr().out
    assert allowed(text) == {
        "threads": "12 blocks", "blocks": "16 blocks", "registers": "16 blocks", "shared memory": "3 blocks",
    }  # fmt: skip
    # 3 blocks × 4 warps = 12 warps of 48: 25 %
    assert "active blocks per SM: 3  (12 warps, occupancy 25%), limited by shared memory" in text


# --- simtviz schedule (its text, from a summary written by hand) ---------------------------------

SCHEDULE = {
    "backend": "gpu:NVIDIA H200",
    "grid": [2464, 1, 1],
    "block": [256, 1, 1],
    "blocks": 2464,
    "work_us": 20.0,
    "regs_per_thread": 30,
    "smem_per_block": 0,
    "sms": 132,
    "driver_blocks_per_sm": 7,
    "theoretical": {"blocks_per_sm": 8, "waves": 3, "limiter": "threads"},
    "measured": {"max_resident_blocks_per_sm": 6, "waves": 4, "sms_used": 130, "span_us": 61.4},
}


def columns(text: str) -> dict[str, dict[str, str]]:
    """The table under the header ``theory driver measured``, each cell read at its column."""
    lines = text.splitlines()
    (h,) = [i for i, ln in enumerate(lines) if ln.split() == ["theory", "driver", "measured"]]
    header = lines[h]
    ends = [header.index(name) + len(name) for name in ("theory", "driver", "measured")]
    starts = [ends[0] - 10, ends[0], ends[1]]  # right-aligned in 10 characters each
    table: dict[str, dict[str, str]] = {}
    for line in lines[h + 1 : h + 4]:
        label = line[: starts[0]].strip()
        table[label] = {
            name: line[a:b].strip()
            for name, a, b in zip(("theory", "driver", "measured"), starts, ends, strict=True)
        }
    return table


def test_schedule_text_puts_theory_driver_and_measured_in_their_columns() -> None:
    text = schedule_text(SCHEDULE)
    assert columns(text) == {
        "resident blocks per SM": {"theory": "8", "driver": "7", "measured": "6"},
        "waves": {"theory": "3", "driver": "", "measured": "4"},
        "SMs used": {"theory": "132", "driver": "", "measured": "130"},
    }
    assert "(limited by threads)" in text
    assert "first start to last end: 61.4 µs" in text
    assert "the driver says 7 blocks per SM, simtviz computed 8" in text
    assert "at most 6 blocks were resident on one SM at once, theory allows 8" in text
    assert "measured 4 waves, theory says 3" in text


def test_schedule_text_without_a_driver_figure_or_a_measurement_shows_dashes() -> None:
    s = SCHEDULE | {
        "driver_blocks_per_sm": None,
        "measured": {"max_resident_blocks_per_sm": None, "waves": None, "sms_used": None, "span_us": None},
    }
    text = schedule_text(s)
    assert columns(text)["resident blocks per SM"] == {"theory": "8", "driver": "—", "measured": "—"}
    assert "first start to last end" not in text
    assert text.splitlines()[-1] == "theory, driver and measurement agree"


# --- simtviz trace's text: the findings of a hand-made log ---------------------------------------


def test_trace_text_of_48_thread_blocks_says_3_sectors_per_request() -> None:
    # grid 2 × block 48, A[t] loaded (float32): 4 requests (2 warps per block), 12 sectors → 3 per
    # request, 384 bytes used of 12 × 32 fetched: 100 %. C[t] stored at t · 2 (stride 2 floats):
    # each warp spans twice the bytes: warp 0 bytes 0..255 → 8 sectors, warp 1 (16 threads) 4,
    # block 1 likewise: 24 sectors / 4 = 6 per request; 384 bytes / 768 = 50 %.
    n = 96
    log = np.zeros((LOG_FIELDS, 2 * n), dtype=np.int64)
    t = np.arange(n)
    log[0] = np.r_[t, t]
    log[1] = np.r_[np.zeros(n), np.ones(n)]
    log[2] = np.r_[np.zeros(n), np.full(n, 1 << 1 | 1 << 3)]  # loads of array 0, stores to array 1
    log[3] = np.r_[4 * t, 8 * t]
    log[4] = np.r_[t, 2 * t]
    sites = (Site(0, 5, 8, "A", "load", 1), Site(1, 6, 4, "C", "store", 1))
    arrays = (ArrayInfo("A", (96,), "float32"), ArrayInfo("C", (192,), "float32"))
    analysis = analyse(log, 2 * n, sites, arrays, (48, 1, 1))
    result = TraceResult("sim", "k", (2, 1, 1), (48, 1, 1), sites, arrays, analysis, log, {}, {})
    text = findings(result)
    assert text[0].startswith("k[(2, 1, 1), (48, 1, 1)] — 96 threads")
    lines = {m.group(1, 2, 3): m.group(4, 5) for m in map(LINE.fullmatch, text) if m}
    assert lines == {("5", "load", "A"): ("3", "100%"), ("6", "store", "C"): ("6", "50%")}
    (c,) = [ln for ln in text if ln.startswith("C float32[192]")]
    assert re.search(r"96 of 192 elements untouched", c)  # the odd elements


LINE = re.compile(r"line (\d+) (\w+) (\w+): ([\d.]+) sectors per request, (\d+%) of the fetched bytes used")


# --- the order of checks: nothing launches before --out is known to be writable ------------------


def test_snapshot_refuses_an_unwritable_out_before_launching(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import simtviz.cli.snapshot as snapshot

    launched: list[object] = []
    monkeypatch.setattr(snapshot, "record_for_snapshot", lambda *a: launched.append(a))
    out = tmp_path / "no such folder" / "map.png"
    code = run(["snapshot", "--grid", "2", "--block", "4", "--out", str(out)])
    assert code == 2 and launched == []
    assert "the folder" in capsys.readouterr().err and not out.parent.exists()
