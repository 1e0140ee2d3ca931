"""CI has no GPU: the trace helpers and every rewritten template compile to PTX for cc 7.5 and 9.0.

The simulator accepts kernels a GPU refuses (a shared array sized by an expression, say), so
every template is compiled here, not only run in the simulator.

Each kernel is typed and lowered to NVVM IR once, and that IR compiled by NVVM for both targets:
numba-cuda 0.30's lowering reads the compute capability only below 6.0 (float64 atomics) and at
7.5 (fastmath tanh), so 7.5 and 9.0 get the same IR, and lowering is most of the time (the
script's CPU time went from 73 s to 37 s on 2 cores). ``compile_ptx`` does the same two steps for
one target; that both ways give the same 9.0 PTX (but for the mangled names, which encode the
flags) is checked on one template, so a numba-cuda that lowers 9.0 differently fails here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    r"""
    import json, re, types
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

    CCS = [(7, 5), (9, 0)]

    def both_targets(fn, sig):
        # compile_ptx's own two steps (numba.cuda.compiler.compile), the IR kept for both targets
        from numba.cuda.compiler import _compile_pyfunc_with_fixup

        with th.device_cc(CCS[0]):
            lib, _ = _compile_pyfunc_with_fixup(fn, sig, device=False, cc=CCS[0], abi="numba")
            return {cc: lib.get_asm_strs(cc=cc)[0] for cc in CCS}

    def unnamed(ptx):
        # mangled names carry a hash of the compile's flags (the target among them) and a counter
        return re.sub(r"_Z\w+", "NAME", ptx)

    out = {}
    probe = th.trace_helpers_probe.py_func
    for cc, ptx in both_targets(probe, th.PTX_KERNELS["trace_helpers_probe"]).items():
        out[f"helpers@{cc[0]}{cc[1]}"] = facts(ptx, cc)
    for t in templates():
        name = t.name
        dims = {k: v.count(",") + 1 for k, v in t.args.items() if "[" in v}
        rw = rewrite_kernel(t.source, arrays=dims, filename=t.file)
        module = types.ModuleType("traced_" + name)
        exec(rw.compile(t.file), module.__dict__)
        fn = getattr(module, rw.kernel).py_func
        ptxes = both_targets(fn, signature(t, rw))
        for cc, ptx in ptxes.items():
            out[f"{name}@{cc[0]}{cc[1]}"] = facts(ptx, cc)
        if name == "vecadd_guarded":  # the shared IR gives compile_ptx's own 9.0 PTX
            own = th.compile_ptx_offline(fn, signature(t, rw), (9, 0))
            out["same_as_compile_ptx@90"] = unnamed(ptxes[(9, 0)]) == unnamed(own)
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
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out.pop("same_as_compile_ptx@90") is True  # see the module's docstring
    return out


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
