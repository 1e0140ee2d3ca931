"""The CLI's text output (not --json) read back column by column, with hand-worked numbers, and
the order of checks before a launch."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from simtviz.cli import run
from simtviz.cli.schedule import summary_text as schedule_text
from simtviz.core.trace.analysis import LOG_FIELDS, ArrayInfo, analyse
from simtviz.core.trace.model import TraceResult
from simtviz.core.trace.report import findings
from simtviz.core.trace.rewrite import Site

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


def forty_eight() -> TraceResult:
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
    return TraceResult("sim", "k", (2, 1, 1), (48, 1, 1), sites, arrays, analysis, log, {}, {})


def test_trace_text_of_48_thread_blocks_says_3_sectors_per_request() -> None:
    result = forty_eight()
    text = findings(result)
    assert text[0].startswith("k[(2, 1, 1), (48, 1, 1)] — 96 threads")
    lines = {m.group(1, 2, 3): m.group(4, 5) for m in map(LINE.fullmatch, text) if m}
    assert lines == {("5", "load", "A"): ("3", "100%"), ("6", "store", "C"): ("6", "50%")}
    (c,) = [ln for ln in text if ln.startswith("C float32[192]")]
    assert re.search(r"96 of 192 elements untouched", c)  # the odd elements


LINE = re.compile(
    r"line (\d+) (\w+) (\w+): ([\d.]+) sectors? per request(?: \([^)]*\))?, (\d+%) of the fetched bytes used"
)


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


# --- simtviz schedule's options and its run, with the GPU stood in for ---------------------------


class FakeSchedule:
    def summary(self) -> dict:
        return SCHEDULE


def fake_gpu(monkeypatch: pytest.MonkeyPatch, asked: list) -> None:
    import simtviz.backends as backends
    import simtviz.backends.schedule as schedule_backend
    import simtviz.core.schedule as core_schedule

    class Backend:
        def run(self, name: str, request: object) -> FakeSchedule:
            asked.append((name, request))
            return FakeSchedule()

    monkeypatch.setattr(schedule_backend, "check_can_measure", lambda kind: None)
    monkeypatch.setattr(backends, "create_backend", lambda flag: Backend())
    monkeypatch.setattr(core_schedule, "save_npz", lambda result, path: Path(path))


def test_schedule_prints_its_table_or_one_json_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    asked: list = []
    fake_gpu(monkeypatch, asked)
    assert run(["schedule", "--grid", "3,5", "--block", "48,2"]) == 0
    out = capsys.readouterr().out
    assert columns(out)["resident blocks per SM"] == {"theory": "8", "driver": "7", "measured": "6"}
    ((name, request),) = asked
    # grid (3, 5, 1) and block (48, 2, 1) as given, x first; defaults: no work, no shared memory
    assert getattr(name, "name", name) == "schedule" and (request.grid, request.block) == (
        (3, 5, 1),
        (48, 2, 1),
    )
    assert (request.work_us, request.smem, request.heavy) == (0.0, 0, False)
    assert run(["schedule", "--grid", "2", "--block", "32", "--work-us", "0", "--heavy", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == SCHEDULE
    assert asked[1][1].heavy is True and asked[1][1].work_us == 0.0
    out_file = tmp_path / "s.npz"
    assert run(["schedule", "--grid", "2", "--block", "32", "--work-us", "12.5", "--out", str(out_file)]) == 0
    assert capsys.readouterr().out.startswith(f"saved {out_file}\n")
    assert asked[2][1].work_us == 12.5
    assert run(["schedule", "--grid", "2", "--block", "32", "--out", str(out_file), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == SCHEDULE  # --json: the JSON line alone


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--grid", "2", "--block", "32", "--work-us", "-0.5"], "-0.5 is negative"),
        (["--grid", "2", "--block", "32", "--work-us", "nan"], "'nan' is not a number"),
        (["--grid", "2", "--block", "32", "--work-us", "lots"], "'lots' is not a number"),
        (["--block", "32"], "--grid"),
        (["--grid", "2"], "--block"),
    ],
)
def test_schedule_refuses_bad_options_with_exit_2(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["schedule", *argv]) == 2
    assert words in capsys.readouterr().err


def test_occupancy_of_the_current_device_on_the_simulator_exits_5(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, backend_kind: str
) -> None:
    if backend_kind != "sim":
        pytest.skip("simulator test")
    import simtviz.backends.selection as selection

    monkeypatch.setattr(selection, "gpu_probe", lambda: (True, ""))  # a GPU, but the simulator chosen
    assert run(["occupancy", "--block", "256"]) == 5
    assert "there is no GPU here (the CUDA simulator is in use)" in capsys.readouterr().err
    assert run(["occupancy", "--device", "9.0"]) == 2  # --block is required
    assert "--block" in capsys.readouterr().err


def test_schedule_refuses_an_unwritable_out_before_launching(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    asked: list = []
    fake_gpu(monkeypatch, asked)
    out = tmp_path / "no such folder" / "s.npz"
    assert run(["schedule", "--grid", "2", "--block", "32", "--out", str(out)]) == 2
    assert asked == [] and "the folder" in capsys.readouterr().err


def test_trace_refuses_an_unwritable_out_before_running_the_kernel(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import simtviz.backends.isolated as isolated

    ran: list = []
    monkeypatch.setattr(isolated, "run_isolated", lambda *a, **k: ran.append(a))
    kernel = tmp_path / "k.py"
    kernel.write_text("from numba import cuda\n\n@cuda.jit\ndef k(A):\n    A[0] = 1\n")
    out = tmp_path / "no such folder" / "t.npz"
    argv = ["trace", str(kernel), "--grid", "1", "--block", "1", "--arg", "A=float32[4]", "--out", str(out)]
    assert run(argv) == 2
    assert ran == [] and "the folder" in capsys.readouterr().err


def stub_trace(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, ran: list) -> list[str]:
    import simtviz.backends.isolated as isolated

    def run_isolated(
        kind: str, experiment: object, request: object, *_a: object, **_kw: object
    ) -> TraceResult:
        ran.append(request)
        return forty_eight()

    monkeypatch.setattr(isolated, "run_isolated", run_isolated)
    kernel = tmp_path / "k.py"
    kernel.write_text(
        "from numba import cuda\n\n@cuda.jit\ndef k(A, C):\n    C[2 * cuda.grid(1)] = A[cuda.grid(1)]\n"
    )
    return [
        "trace",
        str(kernel),
        "--grid",
        "2",
        "--block",
        "48",
        "--arg",
        "A=float32[96]",
        "--arg",
        "C=float32[192]",
    ]


def test_trace_prints_its_findings_or_one_json_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    ran: list = []
    argv = stub_trace(monkeypatch, tmp_path, ran)
    assert run([*argv, "--timeout", "0.5"]) == 0
    assert capsys.readouterr().out.splitlines() == findings(forty_eight())
    assert ran[0].time_limit_s == 0.5 and (ran[0].grid, ran[0].block) == ((2, 1, 1), (48, 1, 1))
    out = tmp_path / "t.npz"
    assert run([*argv, "--out", str(out)]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0] == f"saved {out}" and text[1:] == findings(forty_eight())
    assert run([*argv, "--out", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["lines"][0]["requests"] == 4  # the JSON line alone


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--timeout", "0"], "0 is not more than 0 seconds"),
        (["--timeout", "soon"], "'soon' is not a number of seconds"),
    ],
)
def test_trace_refuses_a_timeout_that_is_not_positive(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    extra: list[str],
    words: str,
) -> None:
    ran: list = []
    argv = stub_trace(monkeypatch, tmp_path, ran)
    assert run([*argv, *extra]) == 2 and ran == []
    assert words in capsys.readouterr().err


def test_trace_needs_grid_and_block(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for argv in (["--block", "32"], ["--grid", "1"]):
        assert run(["trace", str(tmp_path / "k.py"), *argv]) == 2
        assert "required" in capsys.readouterr().err


def test_a_kernel_that_fails_is_reported_under_the_files_name(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import simtviz.backends.isolated as isolated
    from simtviz.core.errors import KernelFailed

    argv = stub_trace(monkeypatch, tmp_path, [])

    def fails(*_a: object, **_k: object) -> TraceResult:
        raise KernelFailed("line 5: IndexError: index 96 is out of bounds")

    monkeypatch.setattr(isolated, "run_isolated", fails)
    assert run(argv) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"simtviz: {tmp_path / 'k.py'}, ") and "line 5: IndexError" in "\n".join(err)
