"""The vecadd kernels compile to real PTX for cc 9.0 without a GPU; the guard is really there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import json
    from numba import cuda
    from simtviz.kernels.vecadd import VECADD_SIGNATURE, vecadd, vecadd_unguarded
    from simtviz.kernels.busy import HOLD_SIGNATURE, hold_gpu
    out = {}
    for name, kernel, sig in [("vecadd", vecadd, VECADD_SIGNATURE),
                              ("vecadd_unguarded", vecadd_unguarded, VECADD_SIGNATURE),
                              ("hold_gpu", hold_gpu, HOLD_SIGNATURE)]:
        ptx, _ = cuda.compile_ptx(kernel.py_func, sig, cc=(9, 0))
        out[name] = {"entry": ".entry" in ptx, "sm90": ".target sm_90" in ptx,
                     "compares": ptx.count("setp."), "globaltimer": "%globaltimer" in ptx}
    print(json.dumps(out))
    """
)


def test_vecadd_kernels_compile_for_cc_90() -> None:
    # A process of its own: this one runs numba's simulator, which cannot compile PTX.
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["SIMTVIZ_BACKEND"] = "gpu"
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    for name in ("vecadd", "vecadd_unguarded", "hold_gpu"):
        assert out[name]["entry"] and out[name]["sm90"], name
    # The guard is the kernel's only comparison; as printed, nothing compares the index at all:
    # numba-cuda emits no bounds checks, so nothing stops the surplus threads.
    assert out["vecadd"]["compares"] == 1
    assert out["vecadd_unguarded"]["compares"] == 0
    assert out["hold_gpu"]["globaltimer"]
