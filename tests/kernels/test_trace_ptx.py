"""CI has no GPU: the trace helpers and every rewritten template compile to PTX for cc 7.5 and 9.0.

The simulator accepts kernels a GPU refuses (a shared array sized by an expression, say), so
every template is compiled here, not only run in the simulator."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import json, types
    from simtviz.core.trace.rewrite import rewrite_kernel
    from simtviz.core.trace.templates import templates
    from simtviz.kernels import trace_helpers as th

    NUMBA = {"float32": "float32", "float64": "float64", "int32": "int32", "int64": "int64"}

    def signature(t, rw):
        from simtviz.core.trace.args import ArraySpec, parse_args
        specs = parse_args(t.args)
        parts = []
        for p in rw.params:
            s = specs[p]
            if isinstance(s, ArraySpec):
                dims = ", ".join([":"] * (s.ndim - 1) + ["::1"])
                parts.append(f"{NUMBA[s.dtype]}[{dims}]")
            else:
                parts.append(NUMBA[s.dtype])
        return "void(" + ", ".join(parts + ["int64[:, ::1]", "int64[::1]", "int64", "int64"]) + ")"

    def facts(ptx, cc):
        shared = ptx.count("ld.shared") + ptx.count("st.shared") + ptx.count("atom.shared")
        return [".entry" in ptx, f".target sm_{cc[0]}{cc[1]}" in ptx, ptx.count("atom."), shared]

    out = {}
    for cc in [(7, 5), (9, 0)]:
        probe = th.trace_helpers_probe.py_func
        ptx = th.compile_ptx_offline(probe, th.PTX_KERNELS["trace_helpers_probe"], cc)
        out[f"helpers@{cc[0]}{cc[1]}"] = facts(ptx, cc)
        for t in templates():
            name = t.name
            dims = {k: v.count(",") + 1 for k, v in t.args.items() if "[" in v}
            rw = rewrite_kernel(t.source, arrays=dims, filename=t.file)
            module = types.ModuleType("traced_" + name)
            exec(rw.compile(t.file), module.__dict__)
            fn = getattr(module, rw.kernel).py_func
            ptx = th.compile_ptx_offline(fn, signature(t, rw), cc)
            out[f"{name}@{cc[0]}{cc[1]}"] = facts(ptx, cc)
    print(json.dumps(out))
    """
)


@pytest.fixture(scope="module")
def compiled() -> dict[str, list]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["SIMTVIZ_BACKEND"] = "gpu"
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_helpers_and_every_traced_template_compile_for_both_targets(compiled: dict[str, list]) -> None:
    from simtviz.core.trace.templates import templates

    names = ["helpers", *(t.name for t in templates())]
    assert "stencil_shared" in names and len(names) >= 9
    assert sorted(compiled) == sorted(f"{n}@{cc}" for n in names for cc in ("75", "90"))
    for key, (entry, target, atomics, _shared) in compiled.items():
        assert entry and target, key
        assert atomics >= 1, key  # every traced access takes its log slot with an atomic add


def test_each_traced_access_takes_one_log_slot(compiled: dict[str, list]) -> None:
    # vecadd: 3 accesses, 3 slots; transpose: 2; the atomic histogram: data load + slot, bins atomic + slot.
    assert compiled["vecadd_unguarded@90"][2] == 3
    assert compiled["transpose_naive@90"][2] == 2
    assert compiled["histogram_atomic@90"][2] == 3
    # Shared arrays are traced on the GPU too: the tile transposes make 4 accesses (A, tile, tile,
    # B); the stencil 12 (3 loads of X, 5 stores and 3 loads of the tile, 1 store of Y).
    assert compiled["transpose_tile@90"][2] == compiled["transpose_tile_padded@90"][2] == 4
    assert compiled["stencil_shared@90"][2] == 12


def test_traced_shared_accesses_stay_in_shared_memory(compiled: dict[str, list]) -> None:
    # The helpers take the shared array like any array; once inlined, its accesses are still
    # ld/st.shared (a generic access would be slower and would not be what the student wrote).
    for cc in ("75", "90"):
        assert compiled[f"transpose_tile@{cc}"][3] >= 2
        assert compiled[f"stencil_shared@{cc}"][3] >= 2
        assert compiled[f"helpers@{cc}"][3] >= 6
        assert compiled[f"vecadd_guarded@{cc}"][3] == 0
