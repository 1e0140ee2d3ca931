"""The traced kernel on the GPU: compile, instrumented and plain kernel time, analysis of 10^7
accesses (CuPy), and Run → first drawn trace in the Your kernel tab for 2^20 accesses.

    SIMTVIZ_BACKEND=gpu QT_QPA_PLATFORM=offscreen python benchmarks/trace_gpu.py [--out FILE.json]

Targets (issue 12): analysis of 10^7 accesses ≤ 200 ms; Run → first drawn for 2^20 accesses
≤ 1.5 s including compile. Every traced run is a child process of its own; "warm" means the
tab had started that process ahead (numba imported), as it does after its first run.
"""

from __future__ import annotations

import argparse
import json
import time

from simtviz.backends.trace.isolated import run_isolated
from simtviz.core.trace_model import TraceRequest
from simtviz.core.trace_templates import template


def vecadd_request(threads: int, budget: int) -> TraceRequest:
    t = template("vecadd_guarded")
    block = 256
    grid = -(-threads // block)
    args = {"A": f"float32[{threads}]:random", "B": f"float32[{threads}]:random", "C": f"float32[{threads}]"}
    return TraceRequest(t.source, (grid, 1, 1), (block, 1, 1), args, filename=t.file, budget=budget)


def one_run(threads: int, budget: int) -> dict[str, float | int | None]:
    t0 = time.perf_counter()
    r = run_isolated("gpu", vecadd_request(threads, budget))
    wall = time.perf_counter() - t0
    s = r.summary()
    return {
        "accesses": s["accesses"],
        "logged": s["logged"],
        "compile_and_first_run_s": r.compile_s,
        "kernel_ms": s["kernel_ms"],
        "instrumented_ms": s["instrumented_ms"],
        "analysis_ms": None if r.analysis_s is None else r.analysis_s * 1000,
        "child_wall_s": wall,
    }


def run_to_drawn(accesses: int) -> dict[str, float]:
    from PySide6.QtWidgets import QApplication

    from simtviz.gui import create_main_window

    app = QApplication.instance() or QApplication([])
    w = create_main_window(backend="gpu")
    tab = w.kernelTab
    t = template("vecadd_guarded")
    n = accesses // 3
    tab.load_template(t.name)
    tab.spins["gridX"].setValue(-(-n // 256))
    tab.set_args({"A": f"float32[{n}]:random", "B": f"float32[{n}]:random", "C": f"float32[{n}]"})
    tab.budget.setValue(1 << 21)
    out = {}
    for label in ("cold", "warm"):
        done = []
        tab.runner.finished.connect(lambda _r, d=done: d.append(time.perf_counter()))
        t0 = time.perf_counter()
        tab.run()
        while not done or tab.summary() is None:
            app.processEvents()
            time.sleep(0.001)
        app.processEvents()  # the drawing happens in the slot; let it paint once
        out[f"run_to_drawn_{label}_s"] = time.perf_counter() - t0
        tab.runner.finished.disconnect()
        tab.runner.finished.connect(tab._on_finished)
        time.sleep(3)  # the next child starts and imports numba
    w.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    rows = {
        "2^20 accesses": one_run((1 << 20) // 3 + 1, 1 << 21),
        "10^7 accesses": one_run(10_000_000 // 3 + 1, 1 << 24),
    }
    rows["Your kernel tab"] = run_to_drawn(1 << 20)  # type: ignore[assignment]
    text = json.dumps({"date": time.strftime("%Y-%m-%d"), **rows}, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
