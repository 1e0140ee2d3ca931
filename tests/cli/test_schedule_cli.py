"""``simtviz occupancy`` and ``simtviz schedule`` on the command line (CONTRACT keys and exit codes).

Expected values are worked from the CUDA rules for compute capability 9.0 (2,048 threads,
32 blocks, 65,536 registers in 4 sub-partitions, 228 KiB of shared memory per SM; registers
allocated per warp in units of 256; 1 KiB reserved per block; shared memory in 128-byte units).
"""

from __future__ import annotations

import json

import pytest

from simtviz.cli import run


def occupancy_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert run(["occupancy", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_occupancy_json_has_the_contract_keys(capsys: pytest.CaptureFixture[str]) -> None:
    s = occupancy_json(capsys, "--block", "256", "--regs", "32", "--device", "9.0")
    assert list(s) == [
        "device", "cc", "block", "regs_per_thread", "smem_per_block",
        "blocks_per_sm", "warps_per_sm", "occupancy", "limiter", "limits",
    ]  # fmt: skip
    assert set(s["limits"]) == {"threads", "blocks", "registers", "shared_memory"}
    assert s["cc"] == "9.0" and "computed" in s["device"]


@pytest.mark.parametrize(
    ("args", "blocks", "warps", "occ", "limiter", "limits"),
    [
        # 2048 / 256 = 8 blocks; registers: 32 × 32 = 1024 per warp, 16384 / 1024 = 16 warps per
        # sub-partition × 4 = 64 warps / 8 per block = 8 as well (a tie: threads named first);
        # shared memory: the reserved 1 KiB per block, 233472 / 1024 = 228.
        (["--block", "256", "--regs", "32"], 8, 64, 1.0, "threads", [8, 32, 8, 228]),
        # 64 × 32 = 2048 per warp: 16384 / 2048 = 8 warps × 4 = 32 warps / 8 per block = 4.
        (["--block", "256", "--regs", "64"], 4, 32, 0.5, "registers", [8, 32, 4, 228]),
        # 48 KiB + 1 KiB reserved = 49 KiB per block: 228 KiB / 49 KiB = 4.65 → 4.
        (["--block", "256", "--regs", "32", "--smem", "49152"], 4, 32, 0.5, "shared memory", [8, 32, 8, 4]),
        # One warp per block: 64 by threads, 64 by registers, but at most 32 blocks per SM.
        (["--block", "32", "--regs", "32"], 32, 32, 0.5, "blocks", [64, 32, 64, 228]),
    ],
)
def test_occupancy_on_the_cc_9_0_profile(
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    blocks: int,
    warps: int,
    occ: float,
    limiter: str,
    limits: list[int],
) -> None:
    s = occupancy_json(capsys, *args, "--device", "9.0")
    assert (s["blocks_per_sm"], s["warps_per_sm"], s["limiter"]) == (blocks, warps, limiter)
    assert s["occupancy"] == pytest.approx(occ)
    assert [s["limits"][k] for k in ("threads", "blocks", "registers", "shared_memory")] == limits


def test_occupancy_on_turing(capsys: pytest.CaptureFixture[str]) -> None:
    # cc 7.5: 1,024 threads per SM, so a block of 1,024 is alone on its SM, and that is all of it.
    s = occupancy_json(capsys, "--block", "1024", "--regs", "32", "--device", "7.5")
    assert (s["blocks_per_sm"], s["warps_per_sm"], s["occupancy"], s["limiter"]) == (1, 32, 1.0, "threads")


def test_occupancy_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["occupancy", "--block", "256", "--regs", "64", "--device", "9.0"]) == 0
    out = capsys.readouterr().out
    assert "active blocks per SM: 4" in out and "limited by registers" in out and "50%" in out


def test_occupancy_of_the_current_device_without_a_gpu_exits_5(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["occupancy", "--block", "256", "--backend", "sim"]) == 5
    err = capsys.readouterr().err
    assert "no GPU" in err and "--device 9.0" in err and "Traceback" not in err


def test_an_unknown_compute_capability_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["occupancy", "--block", "256", "--device", "6.1"]) == 2
    assert "7.5, 8.0, 8.6, 8.9, 9.0" in capsys.readouterr().err


def test_schedule_on_the_simulator_exits_5_before_anything_runs(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--grid", "1232", "--block", "256", "--work-us", "20", "--json", "--backend", "sim"]
    code = run(["schedule", *args])
    assert code == 5
    captured = capsys.readouterr()
    assert captured.out == ""  # no JSON: nothing was measured
    assert "no SMs and no GPU clock" in captured.err and "GPU" in captured.err.splitlines()[-1]


def test_schedule_refuses_negative_work(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["schedule", "--grid", "4", "--block", "32", "--work-us", "-1", "--backend", "sim"]) == 2


def test_the_schedule_experiment_refuses_on_the_simulator_backend(backend_kind: str) -> None:
    if backend_kind != "sim":
        pytest.skip("simulator behaviour")
    from simtviz.backends import create_backend
    from simtviz.backends.experiment import names
    from simtviz.core.errors import NothingToMeasure, describe
    from simtviz.core.schedule import ScheduleRequest

    assert "schedule" in names()
    with pytest.raises(NothingToMeasure) as caught:
        create_backend("sim").run("schedule", ScheduleRequest(8, 32, work_us=20))
    assert describe(caught.value).exit_code == 5
