"""CI has no GPU: every exercise's traced reference solution (and the tile-sync one without its
barrier) compiles to PTX, so the exercises are gradable on a GPU, not only on the simulator."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from repo_paths import TESTS

SCRIPT = textwrap.dedent(
    """
    import json, sys, types
    sys.path.insert(0, TESTS)
    from exercise_solutions import REFERENCE, WRONG
    from simtviz.core.exercise.catalog import exercise
    from simtviz.core.trace.args import ArraySpec, parse_args
    from simtviz.core.trace.rewrite import rewrite_kernel
    from simtviz.kernels import trace_helpers as th

    def signature(specs, rw):
        parts = []
        for p in rw.params:
            s = specs[p]
            if isinstance(s, ArraySpec):
                parts.append(f"{s.dtype}[{', '.join([':'] * (s.ndim - 1) + ['::1'])}]")
            else:
                parts.append(s.dtype)
        return "void(" + ", ".join(parts + ["int64[:, ::1]", "int64[::1]", "int64", "int64"]) + ")"

    out = {}
    sources = {**REFERENCE, "tile-sync/no-barrier": WRONG["tile-sync"]["race_free"]}
    for key, source in sources.items():
        e = exercise(key.split("/")[0])
        specs = parse_args(e.cases[0].args)
        dims = {n: s.ndim for n, s in specs.items() if isinstance(s, ArraySpec)}
        rw = rewrite_kernel(source, e.kernel, dims, "student.py")
        module = types.ModuleType("ex_" + e.kernel)
        exec(rw.compile("student.py"), module.__dict__)
        ptx = th.compile_ptx_offline(getattr(module, rw.kernel).py_func, signature(specs, rw), (9, 0))
        out[key] = [".entry" in ptx, ptx.count("bar.sync") + ptx.count("barrier.sync")]
    print(json.dumps(out))
    """
).replace("TESTS", repr(str(TESTS)))


def test_every_reference_solution_compiles_for_a_gpu() -> None:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["SIMTVIZ_BACKEND"] = "gpu"
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    compiled = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(compiled) >= 13 and all(entry for entry, _ in compiled.values())
    # the traced barrier (tv_sync) is a real barrier: tile-sync has one, without it none
    assert compiled["tile-sync"][1] >= 1 and compiled["tile-sync/no-barrier"][1] == 0
    assert compiled["vecadd-guard"][1] == 0
