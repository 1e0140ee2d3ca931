"""The cost of "only what a GPU would compile" (issue 21): numba-cuda compiling the student's
kernel to PTX before the simulator runs it.

    python benchmarks/gpu_compile_check.py [--repeat N]

Measures, each the median of N: the checker process from start to ready (numba's import and
NVVM's first compile, which it does while the trace child imports numba itself), one template's
compile once it is ready (what Run waits for on a kernel not seen before), a cached verdict, and
``simtviz trace`` of the guarded vecadd end to end on the simulator with an empty cache and with
its verdict cached.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from simtviz.backends.trace import gpu_compile
from simtviz.core.trace.model import TraceRequest
from simtviz.core.trace.templates import template


def median_s(samples: list[float]) -> str:
    return f"{statistics.median(samples):.3f} s"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    t = template("stencil_shared")
    request = TraceRequest(t.source, t.grid, t.block, t.args, filename=t.file)
    sig = gpu_compile.signature(request)
    ready, ask, hit, cli_miss, cli_hit = [], [], [], [], []
    for _ in range(args.repeat):
        os.environ["SIMTVIZ_CACHE_DIR"] = tempfile.mkdtemp(prefix="simtviz-bench-")
        t0 = time.perf_counter()
        checker = gpu_compile.Checker()
        assert checker.proc.stdout is not None
        from simtviz.backends.isolated_child import read_message

        assert read_message(checker.proc.stdout)[0] == "ready"
        ready.append(time.perf_counter() - t0)
        t1 = time.perf_counter()
        verdict = checker.ask(request, sig)
        ask.append(time.perf_counter() - t1)
        assert verdict.ok and not verdict.unavailable, verdict
        gpu_compile.write_cached(gpu_compile.cache_key(request, sig, gpu_compile.CHECK_CC), verdict)
        t2 = time.perf_counter()
        gpu_compile.verify(request, "sim", None)
        hit.append(time.perf_counter() - t2)
        os.environ["SIMTVIZ_CACHE_DIR"] = tempfile.mkdtemp(prefix="simtviz-bench-")
        vecadd = template("vecadd_guarded")
        argv = [
            sys.executable,
            "-m",
            "simtviz",
            "trace",
            "-",
            "--grid",
            "4",
            "--block",
            "256",
            "--backend",
            "sim",
        ]
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
            f.write(vecadd.source)
        argv[4] = f.name
        for name, spec in vecadd.args.items():
            argv += ["--arg", f"{name}={spec}"]
        for into in (cli_miss, cli_hit):
            t3 = time.perf_counter()
            subprocess.run(argv, check=True, capture_output=True)
            into.append(time.perf_counter() - t3)
        os.unlink(f.name)
    print(f"checker start to ready: {median_s(ready)}")
    print(f"compile of {t.name} once ready: {median_s(ask)}")
    print(f"cached verdict: {median_s(hit)}")
    print(f"simtviz trace vecadd_guarded --backend sim: {median_s(cli_miss)} not cached, ", end="")
    print(f"{median_s(cli_hit)} cached")


if __name__ == "__main__":
    main()
