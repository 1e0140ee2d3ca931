"""Run every Your-kernel template traced on this process's backend and print its summary (GPU checks).

``SIMTVIZ_BACKEND=gpu python scripts/trace_templates_gpu.py`` on the GPU machine; the same with
``sim`` here. The two outputs must agree in every count (sectors and bank wavefronts per request included).
"""

from __future__ import annotations

import json
import sys

from simtviz.backends.selection import activate, resolve_backend

kind = resolve_backend()
activate(kind)

from simtviz.core.trace.model import TraceRequest  # noqa: E402
from simtviz.core.trace.templates import templates  # noqa: E402

KEYS = ("accesses", "logged", "oob_total", "arrays", "lines", "shared_lines", "kernel_ms", "instrumented_ms")


def main() -> int:
    if kind == "gpu":
        from simtviz.backends.trace.gpu import run_trace_gpu as run
    else:
        from simtviz.backends.trace.sim import run_trace_sim as run
    for t in templates():
        request = TraceRequest(t.source, t.grid, t.block, dict(t.args), check=t.check)
        try:
            summary = run(request).summary()
        except Exception as exc:  # report and go on: one template's failure must not hide the rest
            print(t.name, "FAILED", type(exc).__name__, exc)
            continue
        print(t.name, json.dumps({k: summary.get(k) for k in KEYS}, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
