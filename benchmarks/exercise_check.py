"""How long a check of a small exercise takes (issue 23: target ≤ 1 s on the 2-core machine).

    python benchmarks/exercise_check.py [--backend sim|gpu] [--repeat N] [--exercise ID]

Three timings, medians of N, each grading the exercise's reference-like kernel on all its cases:
- ``warm``: as the Exercises tab does it: the child process was started ahead (numba imported,
  waiting), so Check → report is the cases' traced runs, the analysis and the checks;
- ``cold``: a fresh child per check, as ``simtviz exercise check`` from a shell (numba's import
  included; the CLI's own start adds the interpreter's);
- ``cli``: the whole ``python -m simtviz exercise check`` command, wall clock.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# A guarded vecadd, as a student would write it (the benchmark's kernel, not a shipped answer).
VECADD = """from numba import cuda


@cuda.jit
def add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]
"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--backend", default="sim", choices=("sim", "gpu"))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    from simtviz.backends.exercise import ExerciseRequest
    from simtviz.backends.isolated import IsolatedChild, run_isolated

    request = ExerciseRequest("vecadd-guard", VECADD, "add.py")
    warm, cold, cli = [], [], []
    for _ in range(args.repeat):
        child = IsolatedChild(args.backend, "exercise")
        child.ready.wait(120)  # numba imported; the 'ready' message stays queued for run()
        t0 = time.perf_counter()
        report = run_isolated(args.backend, "exercise", request, child=child)
        warm.append(time.perf_counter() - t0)
        assert report.passed, report.to_json()
        t0 = time.perf_counter()
        run_isolated(args.backend, "exercise", request)
        cold.append(time.perf_counter() - t0)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "add.py"
        path.write_text(VECADD)
        env = dict(os.environ)
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "simtviz", "exercise", "check", "vecadd-guard", str(path),
                 "--backend", args.backend], capture_output=True, env=env, check=False,
            )  # fmt: skip
            cli.append(time.perf_counter() - t0)
            assert done.returncode == 0, done.stderr.decode()
    for name, values in (("warm (tab)", warm), ("cold child", cold), ("cli command", cli)):
        spread = f"min {min(values):.2f}, max {max(values):.2f}"
        print(f"{name:12s} median {statistics.median(values):.2f} s  ({spread})")


if __name__ == "__main__":
    main()
