"""`simtviz trace FILE.py` as docs/CONTRACT.md states it, on the CUDA simulator.

Each run starts a child process of its own (the student's kernel never runs in this one);
counts are worked out by hand from the launch and the array sizes.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from simtviz.cli import run
from simtviz.resources import resource_path

KERNELS = resource_path("kernels/index.json").parent
SUMMARY_KEYS = {
    "backend", "kernel", "grid", "block", "threads", "accesses", "logged", "oob_total", "oob",
    "arrays", "lines", "hazards", "kernel_ms", "instrumented_ms",
}  # fmt: skip
VECADD_ARGS = [
    "--arg",
    "A=float32[1000]:random",
    "--arg",
    "B=float32[1000]:random",
    "--arg",
    "C=float32[1000]",
]

ENDLESS = """from numba import cuda


@cuda.jit
def spin(A):
    i = cuda.grid(1)
    while A[0] == 0.0:
        i += 1
"""


def trace_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any] | None, str]:
    code = run(["trace", *argv, "--backend", "sim", "--json"])
    out, err = capsys.readouterr()
    lines = out.strip().splitlines()
    return code, (json.loads(lines[-1]) if code == 0 else None), err


def test_unguarded_vecadd_json_counts_three_oob_accesses_per_extra_thread(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # N = 1000, grid 4 × 256 = 1024 threads: 24 extra threads × (load A, load B, store C) = 72.
    out = tmp_path / "t.npz"
    code, s, _ = trace_json(
        capsys, str(KERNELS / "vecadd_unguarded.py"), "--grid", "4", "--block", "256", *VECADD_ARGS,
        "--out", str(out),
    )  # fmt: skip
    assert code == 0 and s is not None
    assert set(s) == SUMMARY_KEYS
    assert (s["grid"], s["block"], s["threads"]) == ([4, 1, 1], [256, 1, 1], 1024)
    assert (s["accesses"], s["logged"], s["oob_total"]) == (3072, 3072, 72)
    assert s["backend"] == "sim" and s["kernel"] == "vecadd"
    assert s["kernel_ms"] is None and s["instrumented_ms"] is None
    assert sorted((o["array"], o["line"], o["kind"], o["count"]) for o in s["oob"]) == [
        ("A", 14, "load", 24),
        ("B", 14, "load", 24),
        ("C", 14, "store", 24),
    ]
    assert s["arrays"]["C"] == {
        "shape": [1000], "dtype": "float32", "loads": 0, "stores": 1024, "atomics": 0,
        "untouched": 0, "multi_writer": 0,
    }  # fmt: skip
    with np.load(out) as data:
        assert data["log"].shape == (3072, 8)  # thread … i2, epoch
        assert int(data["oob"].sum()) == 72
        assert set(data["line"].tolist()) == {14}
        assert json.loads(str(data["summary"])) == s
        np.testing.assert_array_equal(data["final_C"][:1000].size, 1000)


def test_a_kernel_with_a_shared_array_adds_its_bank_conflicts_to_the_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The stencil: 4 blocks × 128 threads; the tile takes 130 stores per block and 3 loads per
    # thread (neighbouring words: 1 wavefront per request). CONTRACT's keys stay as they were.
    out = tmp_path / "s.npz"
    code, s, _ = trace_json(
        capsys, str(KERNELS / "stencil_shared.py"), "--grid", "4", "--block", "128",
        "--arg", "X=float32[512]:random", "--arg", "Y=float32[512]", "--out", str(out),
    )  # fmt: skip
    assert code == 0 and s is not None
    assert set(s) == SUMMARY_KEYS | {"shared_arrays", "shared_lines"}
    assert set(s["arrays"]) == {"X", "Y"}
    assert s["shared_arrays"]["tile"]["loads"] == 3 * 512 and s["shared_arrays"]["tile"]["stores"] == 4 * 130
    assert {(r["line"], r["kind"], r["wavefronts_per_request"]) for r in s["shared_lines"]} == {
        (21, "store", 1.0), (24, "store", 1.0), (26, "store", 1.0), (28, "store", 1.0), (30, "store", 1.0),
        (33, "load", 1.0),
    }  # fmt: skip
    with np.load(out) as data:
        assert data["arrays"].tolist() == ["X", "Y", "tile"]
        assert data["array_spaces"].tolist() == ["global", "global", "shared"]
        assert int((data["array"] == "tile").sum()) == 3 * 512 + 4 * 130


def test_text_output_names_the_out_of_bounds_thread_and_index(capsys: pytest.CaptureFixture[str]) -> None:
    code = run(
        ["trace", str(KERNELS / "vecadd_unguarded.py"), "--grid", "4", "--block", "256", *VECADD_ARGS,
         "--backend", "sim"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "72 out-of-bounds accesses" in out
    # thread 1,000 = block 1000 // 256 = 3, thread 1000 - 3 × 256 = 232 of it
    assert (
        "line 14: the thread with blockIdx.x=3, threadIdx.x=232 (thread 1,000) loads A[1000], "
        "but A has 1,000 elements (0 to 999)"
    ) in out


def test_unsupported_construct_exits_2_with_its_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    f = tmp_path / "slice.py"
    f.write_text("from numba import cuda\n\n\n@cuda.jit\ndef k(A):\n    A[1:] = 0\n")
    code, _, err = trace_json(capsys, str(f), "--grid", "1", "--block", "32", "--arg", "A=float32[64]")
    assert code == 2
    assert "slice.py, line 6:" in err and "slice" in err
    assert "Traceback" not in err


def test_bad_spec_missing_arg_and_missing_file_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    vecadd = str(KERNELS / "vecadd_guarded.py")
    code, _, err = trace_json(capsys, vecadd, "--grid", "4", "--block", "256", "--arg", "A=float16[10]")
    assert code == 2 and "unknown type 'float16'" in err
    code, _, err = trace_json(capsys, vecadd, "--grid", "4", "--block", "256", "--arg", "A=float32[10]")
    assert code == 2 and "no --arg for parameters B, C" in err
    code, _, err = trace_json(capsys, str(tmp_path / "nope.py"), "--grid", "1", "--block", "1")
    assert code == 2 and "cannot read" in err


def test_launch_rejected_exits_3_and_too_large_exits_4(capsys: pytest.CaptureFixture[str]) -> None:
    vecadd = str(KERNELS / "vecadd_guarded.py")
    code, _, err = trace_json(capsys, vecadd, "--grid", "1", "--block", "2048", *VECADD_ARGS)
    assert code == 3 and err.startswith("CUDA_ERROR_INVALID_VALUE") and "(2,048 > 1,024)" in err
    code, _, err = trace_json(capsys, vecadd, "--grid", "1024", "--block", "256", *VECADD_ARGS)
    assert code == 4 and "--force" in err


@pytest.mark.skipif(sys.platform == "win32", reason="checks the child's pid with os.kill(pid, 0)")
def test_endless_loop_stops_at_the_timeout_with_exit_6_and_the_child_is_gone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from simtviz.backends import isolated

    pids: list[int] = []
    real_init = isolated.IsolatedChild.__init__

    def recording_init(self: isolated.IsolatedChild, kind: str, experiment: object, *rest: object) -> None:
        real_init(self, kind, experiment, *rest)  # type: ignore[arg-type]
        pids.append(self.pid)

    monkeypatch.setattr(isolated.IsolatedChild, "__init__", recording_init)
    f = tmp_path / "spin.py"
    f.write_text(ENDLESS)
    code, _, err = trace_json(
        capsys, str(f), "--grid", "1", "--block", "4", "--arg", "A=float32[4]", "--timeout", "2"
    )
    assert code == 6
    assert "stopped at the time limit" in err and "2 s" in err
    assert len(pids) == 1
    with pytest.raises(ProcessLookupError):  # killed and reaped, not left spinning
        os.kill(pids[0], 0)


def test_window_logs_one_block_and_adds_only_a_window_key(capsys: pytest.CaptureFixture[str]) -> None:
    # Block 3 of 4 (threads 768..1023): 3 × 256 = 768 logged of 3 × 1024 = 3072; its 24 threads
    # past N = 1000 make the 72 out-of-bounds accesses.
    vecadd = str(KERNELS / "vecadd_unguarded.py")
    code, s, _ = trace_json(capsys, vecadd, "--grid", "4", "--block", "256", *VECADD_ARGS, "--window", "3:1")
    assert code == 0 and s is not None
    assert set(s) == SUMMARY_KEYS | {"window"}
    assert (s["accesses"], s["logged"], s["oob_total"]) == (3072, 768, 72)
    assert s["window"] == {"first_block": 3, "blocks": 1, "threads": 256, "accesses": 768}
    window = ["--grid", "4", "--block", "256", *VECADD_ARGS, "--window", "3:1", "--backend", "sim"]
    code = run(["trace", vecadd, *window])
    out = capsys.readouterr().out
    assert code == 0 and "Threads in window: block 3 of 4 (256 threads)." in out
    assert "Logged all 768 accesses these threads made, of 3,072 the launch made." in out


def test_a_bad_window_exits_2_with_words(capsys: pytest.CaptureFixture[str]) -> None:
    vecadd = str(KERNELS / "vecadd_guarded.py")
    code, _, err = trace_json(
        capsys, vecadd, "--grid", "4", "--block", "256", *VECADD_ARGS, "--window", "4:1"
    )
    assert code == 2 and "the window starts at block 4, but the launch has 4 blocks (0–3)" in err
    assert "Traceback" not in err
    code, _, err = trace_json(capsys, vecadd, "--grid", "4", "--block", "256", *VECADD_ARGS, "--window", "3")
    assert code == 2 and "write FIRST:COUNT in blocks" in err
