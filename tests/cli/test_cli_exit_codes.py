"""The exit status of every command-line path (docs/CONTRACT.md): 0 ok, 1 the check failed, 2 usage,
3 rejected, 4 too large without --force, 130 interrupted (Ctrl-C)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from numba import cuda  # the simulator: conftest chose it before this import

import simtviz.cli
from simtviz.cli import run
from simtviz.core.vecadd import VecaddResult, check_result


def record(tmp_path: Path, *args: str) -> int:
    return run(["record", *args, "--out", str(tmp_path / "r.npz"), "--backend", "sim"])


def test_record_ok_exits_0(tmp_path, capsys) -> None:
    assert record(tmp_path, "--grid", "2", "--block", "4") == 0
    out = capsys.readouterr().out
    assert "8 of 8 threads match" in out and "saved " in out


@cuda.jit
def writes_nothing(threadIdx, blockIdx, grid1, grid2, grid3, laneid, warp, smid, t_ns, window, ended):  # type: ignore[no-untyped-def]
    pass


def test_record_exits_1_when_verification_fails(tmp_path, capsys, monkeypatch) -> None:
    # A kernel that writes nothing: every row stays -1 and no thread matches.
    monkeypatch.setattr("simtviz.kernels.record.record_threads", writes_nothing)
    assert record(tmp_path, "--grid", "2", "--block", "4") == 1
    out = capsys.readouterr().out
    assert "0 of 8 threads match — MISMATCH" in out
    assert (tmp_path / "r.npz").exists()  # the record is saved all the same, to be inspected


@pytest.mark.parametrize(
    "argv",
    [
        ["record", "--grid", "4,x", "--block", "4", "--out", "r.npz"],
        ["record", "--grid", "4", "--block", "4"],  # no --out
        ["record", "--grid", "4", "--block", "4", "--out", "r.npz", "--budget", "-1"],
        ["vecadd", "--n", "ten"],
        ["nonsense"],
        ["snapshot", "--grid", "2", "--block", "4", "--color", "rainbow", "--out", "x.png"],
    ],
)
def test_bad_usage_exits_2(argv, capsys) -> None:
    assert run([*argv, "--backend", "sim"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err and err[0].startswith("simtviz")


def test_a_bad_backend_in_the_environment_exits_2(monkeypatch, capsys) -> None:
    monkeypatch.setenv("SIMTVIZ_BACKEND", "quantum")
    assert run(["devices"]) == 2
    assert "quantum" in capsys.readouterr().err


def test_a_rejected_launch_exits_3(tmp_path, capsys) -> None:
    assert record(tmp_path, "--grid", "1", "--block", "1,1,65") == 3
    err = capsys.readouterr().err
    assert "blockDim.z is 65; this device allows at most 64" in err
    assert not (tmp_path / "r.npz").exists()


def test_a_long_launch_without_force_exits_4(tmp_path, capsys) -> None:
    assert record(tmp_path, "--grid", "129", "--block", "1024") == 4
    err = capsys.readouterr().err
    assert "132,096" in err and "use --force to run it anyway" in err


def test_devices_exits_0(capsys) -> None:
    assert run(["devices", "--backend", "sim"]) == 0
    assert "(* = the backend 'simtviz' uses here)" in capsys.readouterr().out


def test_vecadd_ok_exits_0(capsys) -> None:
    assert run(["vecadd", "--n", "100", "--block", "32", "--backend", "sim"]) == 0


def test_vecadd_unguarded_past_the_end_exits_1(capsys) -> None:
    # 100 elements in 4 blocks of 32: threads 100–127 index past the end; the simulator raises.
    assert run(["vecadd", "--n", "100", "--block", "32", "--unguarded", "--backend", "sim"]) == 1
    assert "simtviz: the kernel raised IndexError" in capsys.readouterr().err


@cuda.jit
def subtracts(a, b, c):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] - b[i]


def test_vecadd_exits_1_when_the_check_fails(monkeypatch, capsys) -> None:
    monkeypatch.setattr("simtviz.kernels.vecadd.kernel_for", lambda guarded: subtracts)
    assert run(["vecadd", "--n", "64", "--block", "32", "--backend", "sim"]) == 1
    err = capsys.readouterr().err
    assert "simtviz: the check failed" in err and "Arrays are not almost equal" in err


def test_the_vecadd_check_by_hand() -> None:
    result = VecaddResult("sim", 3, 32, 1)
    check_result(result, np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 4.0]))
    assert result.verified is False and result.max_abs_err == 1.0
    assert "Arrays are not almost equal to 6 decimals" in result.assertion_text
    check_result(result, np.array([1.0, 2.0000001]), np.array([1.0, 2.0]))  # within 6 decimals
    assert result.verified is True and result.max_abs_err == pytest.approx(1e-7)


def test_an_interrupt_inside_a_command_exits_130(monkeypatch, capsys) -> None:
    def interrupted(_args):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    monkeypatch.setattr("simtviz.cli.devices.run", interrupted)
    assert run(["devices", "--backend", "sim"]) == 130
    assert capsys.readouterr().err.strip() == "simtviz: interrupted"


def test_an_unexpected_error_is_not_hidden_behind_an_exit_code(monkeypatch) -> None:
    def broken(_args):  # type: ignore[no-untyped-def]
        raise RuntimeError("a bug in simtviz")

    monkeypatch.setattr("simtviz.cli.devices.run", broken)
    with pytest.raises(RuntimeError, match="a bug in simtviz"):
        run(["devices", "--backend", "sim"])


# Runs the command line with a line on stderr as the simulator starts the launch, so the test
# interrupts the run itself (not Python's start-up, which Ctrl-C ends with a traceback).
ANNOUNCING_MAIN = """
import signal
import sys

# Ctrl+C as in a terminal, however the tests were started (a background job ignores SIGINT, and
# its children inherit that)
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
from simtviz.backends.record import sim as record_sim
from simtviz.backends.vecadd import sim as vecadd_sim

def announce(module, name):
    original = getattr(module, name)
    def announced(*args, **kwargs):
        print("simulator started", file=sys.stderr, flush=True)
        return original(*args, **kwargs)
    setattr(module, name, announced)

announce(record_sim, "run_kernel_in_simulator")
announce(vecadd_sim, "run_vecadd_sim")
from simtviz.cli import main
main(sys.argv[1:])
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        ["record", "--grid", "64", "--block", "1024", "--force", "--out", "never.npz"],
        ["vecadd", "--n", "1000000", "--block", "1024", "--force"],
    ],
)
def test_ctrl_c_during_a_run_exits_130(tmp_path, argv) -> None:
    env = {**os.environ, "SIMTVIZ_BACKEND": "sim", "PYTHONPATH": str(Path(simtviz.cli.__file__).parents[2])}
    proc = subprocess.Popen(
        [sys.executable, "-c", ANNOUNCING_MAIN, *argv],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        assert proc.stderr.readline().strip() == "simulator started"
        time.sleep(0.5)  # into the launch: 65,536 simulated threads take ~15 s
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()  # closes the pipes (an open one is a ResourceWarning, an error here)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "simtviz: interrupted"
    assert not (tmp_path / "never.npz").exists()


# --- the pieces of the command line, by hand -----------------------------------------------------


def test_argument_types() -> None:
    from argparse import ArgumentTypeError

    from simtviz.cli.parser import backend, dim, positive_int

    assert positive_int("1_000") == 1000 and positive_int("0x10") == 16 and positive_int("0") == 0
    for bad in ("-1", "ten", "0xZZ"):
        with pytest.raises(ArgumentTypeError):
            positive_int(bad)
    assert backend(" SIM ") == "sim"
    with pytest.raises(ArgumentTypeError):
        backend("quantum")
    assert dim("4,3").as_tuple() == (4, 3, 1)
    with pytest.raises(ArgumentTypeError):
        dim("4,-3")


def test_describe_timings() -> None:
    from simtviz.cli.record import describe_timings

    gpu = {"kernel_ms": 0.5341, "wall_ms": 1.54, "verify_ms": 1.6, "copy_ms": None}
    assert describe_timings(gpu) == (
        "kernel 0.534 ms (GPU time: CUDA events, GPU kept busy), run (host clock) 1.5 ms, verify 1.6 ms"
    )
    sim = {"kernel_ms": None, "wall_ms": 2000.0, "verify_ms": 0.25, "copy_ms": 3.0}
    assert describe_timings(sim) == (
        "kernel time unknown (the simulator has no GPU clock), run (host clock) 2000.0 ms, verify 0.2 ms, "
        "copy to host 3.0 ms"
    )


def test_debug_shows_the_error_itself(monkeypatch, capsys) -> None:
    from simtviz.core.errors import SimtvizError

    def failing(_args):  # type: ignore[no-untyped-def]
        raise SimtvizError("no such thing")

    monkeypatch.setattr("simtviz.cli.devices.run", failing)
    assert run(["devices", "--backend", "sim"]) == 2
    assert capsys.readouterr().err == "simtviz: no such thing\n"
    with pytest.raises(SimtvizError):
        run(["devices", "--backend", "sim", "--debug"])


def test_devices_lists_the_simulator_as_selected(capsys) -> None:
    import json

    from simtviz.cli.devices import list_devices

    gpu, emu, sim = list_devices("sim")
    assert (gpu["backend"], gpu["selected"]) == ("gpu", False)
    assert (emu["backend"], emu["available"], emu["selected"]) == ("emu", True, False)
    assert (sim["backend"], sim["available"], sim["selected"]) == ("sim", True, True)
    assert sim["limits"]["max_block"] == [1024, 1024, 64]
    assert run(["devices", "--backend", "sim", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[2]["selected"] is True
    assert run(["devices", "--backend", "sim"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-3].startswith("* sim: CUDA simulator")
    assert out[-2] == (
        "    threads per block ≤ 1,024; block ≤ 1,024 × 1,024 × 64; "
        "grid ≤ 2,147,483,647 × 65,535 × 65,535; warp 32"
    )


def test_vecadd_json_and_default_n(capsys) -> None:
    import json

    assert run(["vecadd", "--n", "100", "--block", "32", "--json", "--backend", "sim"]) == 0
    result = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert (result["n"], result["block"], result["grid"], result["verified"]) == (100, 32, 4, True)


def test_without_a_command_the_app_starts_and_its_status_is_returned(monkeypatch) -> None:
    started: list[object] = []
    monkeypatch.setattr("simtviz.qt.app.run_app", lambda backend: started.append(backend) or 7)
    assert run(["--backend", "sim"]) == 7
    assert started == ["sim"]


@pytest.mark.parametrize("missing", ["--grid", "--block"])
def test_record_needs_grid_and_block(missing, capsys) -> None:
    argv = {"--grid": "2", "--block": "4", "--out": "r.npz"}
    del argv[missing]
    assert run(["record", *(x for kv in argv.items() for x in kv), "--backend", "sim"]) == 2
    assert missing in capsys.readouterr().err


def test_vecadd_repeats_as_asked() -> None:
    from simtviz.cli import build_parser
    from simtviz.cli.vecadd import request_from_args

    args = build_parser().parse_args(["vecadd", "--n", "64", "--repeat", "2", "--unguarded", "--sweep"])
    request = request_from_args(args, "sim")
    assert (request.n, request.block, request.repeat) == (64, 256, 2)
    assert (request.guarded, request.sweep, request.force) == (False, True, False)
    default = request_from_args(build_parser().parse_args(["vecadd"]), "sim")
    assert default.repeat is None and default.n == 4107  # 2^12 + 11 in the simulator


def test_devices_with_a_gpu_present(monkeypatch) -> None:
    from simtviz.backends.base import BackendInfo, BackendKind
    from simtviz.cli.devices import list_devices
    from simtviz.core.limits import DeviceLimits

    monkeypatch.setattr("simtviz.cli.devices.gpu_probe", lambda: (True, "1 NVIDIA GPU(s) found"))
    gpu, _emu, _sim = list_devices("sim")
    # This process already runs the simulator: the GPU is named, not used.
    assert (
        gpu["available"] is False and gpu["label"] == "a GPU is present, but this process runs the simulator"
    )

    class FakeGpu:
        def info(self) -> BackendInfo:
            return BackendInfo(BackendKind.GPU, "gpu:H200", "NVIDIA H200", DeviceLimits(name="NVIDIA H200"))

    monkeypatch.setattr("simtviz.cli.devices.numba_is_simulated", lambda: False)
    monkeypatch.setattr("simtviz.backends.gpu.GpuBackend", FakeGpu)
    gpu, _emu, _sim = list_devices("sim")
    assert (gpu["available"], gpu["label"], gpu["device"]) == (True, "NVIDIA H200", "NVIDIA H200")
    assert gpu["limits"]["max_grid"] == [2**31 - 1, 65535, 65535]


def test_devices_without_a_gpu(monkeypatch) -> None:
    from simtviz.cli.devices import list_devices

    monkeypatch.setattr("simtviz.cli.devices.gpu_probe", lambda: (False, "no NVIDIA driver (libcuda) found"))
    gpu, _emu, _sim = list_devices("sim")
    assert (gpu["available"], gpu["label"], gpu["limits"]) == (
        False,
        "no NVIDIA driver (libcuda) found",
        None,
    )
