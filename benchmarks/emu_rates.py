"""The CPU emulator (``simtviz.emu``) beside numba's CUDA simulator, on this machine, in one run.

    python benchmarks/emu_rates.py [repeats]      (default 3; medians)

- record: 2^20 threads, 1-D (4096 × 256) and 2-D (64 × 64 blocks of 16 × 16), end to end
  (``RECORD.run_emu``: emulate + verify against the formulas), and the simulator on 2^14
  threads of the same shapes (1-D 64 × 256, 2-D 8 × 8 blocks of 16 × 16), scaled per thread
  to 2^20 (its time is linear in threads; a 2^20 run would take minutes). Also a 2-D 256 × 256
  launch, the emulator's share of Run → map in the window.
- trace: the guarded vecadd template over 2^20 threads (3,145,728 accesses, default budget),
  in this process (the app runs it in a child): logged accesses per second of the emulation
  alone and end to end (with ``core.trace.analysis``).
- the tile-transpose templates (2 blocks of 32 × 32), end to end.

Goals (issue 20): record 2^20 ≥ 200× the simulator and ≤ 1.5 s; trace ≥ 10^6 accesses/s;
transposes ≤ 0.5 s.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # for the simulator's side; the emulator imports no numba

from simtviz.backends.record import RECORD, RecordRequest
from simtviz.core.launch import Dim3, LaunchConfig
from simtviz.core.trace.model import TraceRequest
from simtviz.core.trace.templates import template


def median_s(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def record_emu(grid: tuple[int, int, int], block: tuple[int, int, int]) -> dict[str, float]:
    r = RECORD.run_emu(RecordRequest(LaunchConfig(Dim3(*grid), Dim3(*block))), None, None)  # type: ignore[arg-type]
    assert r.verification is not None and r.verification.ok
    return {"emulate_s": r.timings_ms["wall_ms"] / 1000, "verify_s": r.timings_ms["verify_ms"] / 1000}


def record_sim(grid: tuple[int, int, int], block: tuple[int, int, int]) -> None:
    from simtviz.backends.record.sim import record_in_simulator

    r = record_in_simulator(RecordRequest(LaunchConfig(Dim3(*grid), Dim3(*block))), None)  # type: ignore[arg-type]
    assert r.verification is not None and r.verification.ok


def trace_request(name: str, n: int | None = None) -> TraceRequest:
    t = template(name)
    if n is None:
        return TraceRequest(t.source, t.grid, t.block, t.args, check=t.check, filename=t.file)
    args = {"A": f"float32[{n}]:random", "B": f"float32[{n}]:random", "C": f"float32[{n}]"}
    return TraceRequest(t.source, (-(-n // 256), 1, 1), (256, 1, 1), args, filename=t.file)


def main() -> None:
    from simtviz.backends.trace.emu import run_trace_emu

    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; medians of {repeats}")
    record_emu((1, 1, 1), (32, 1, 1))  # reads the kernel module once
    record_sim((1, 1, 1), (32, 1, 1))  # numba's import and first launch, paid once
    print("\n| launch | emulator (end to end) | emulate | verify | simulator 2^14 → 2^20 | ratio |")
    print("| --- | --- | --- | --- | --- | --- |")
    shapes = {
        "record 2^20 1-D": ((4096, 1, 1), (256, 1, 1), (64, 1, 1)),
        "record 2^20 2-D": ((64, 64, 1), (16, 16, 1), (8, 8, 1)),
    }
    for label, (grid, block, small) in shapes.items():
        parts: list[dict[str, float]] = []
        total = median_s(lambda g=grid, b=block, p=parts: p.append(record_emu(g, b)), repeats)
        emulate = statistics.median(p["emulate_s"] for p in parts)
        verify = statistics.median(p["verify_s"] for p in parts)
        sim = median_s(lambda s=small, b=block: record_sim(s, b), 1) * 64
        cells = [f"{total:.3f} s", f"{emulate:.3f} s", f"{verify:.3f} s", f"{sim:.1f} s"]
        cells.append(f"{sim / total:.0f}×")
        print(f"| {label} | " + " | ".join(cells) + " |")
    small = median_s(lambda: record_emu((16, 16, 1), (16, 16, 1)), repeats)
    print(f"| record 256 × 256 2-D | {small * 1000:.0f} ms | | | | |")

    results = []
    total = median_s(lambda: results.append(run_trace_emu(trace_request("vecadd_guarded", 1 << 20))), repeats)
    r = results[-1]
    emulate = statistics.median(x.compile_s or 0.0 for x in results)
    s = r.summary()
    print(
        f"\ntrace vecadd 2^20: {s['accesses']:,} accesses, {s['logged']:,} logged; emulation "
        f"{emulate:.2f} s ({s['logged'] / emulate / 1e6:.2f} M logged/s, "
        f"{s['accesses'] / emulate / 1e6:.2f} M made/s); end to end {total:.2f} s "
        f"({s['logged'] / total / 1e6:.2f} M logged/s, analysis {r.analysis_s:.2f} s)"
    )
    for name in ("transpose_naive", "transpose_tile", "transpose_tile_padded", "stencil_shared"):
        seconds = median_s(lambda n=name: run_trace_emu(trace_request(n)), repeats)
        print(f"trace {name}: {seconds * 1000:.0f} ms end to end")


if __name__ == "__main__":
    main()
