"""Every real kernel with its argument types, so CI can compile each to PTX without a GPU.

Add new kernels here: ``tests/kernels/test_ptx.py`` compiles all of them for cc 7.5 and 9.0.
"""

from __future__ import annotations

import importlib
from typing import Any

# module → list of (kernel attribute, signature attribute)
KERNEL_MODULES: dict[str, list[tuple[str, str]]] = {
    "simtviz.kernels.record": [("record_threads", "RECORD_SIGNATURE")],
    "simtviz.kernels.verify": [("verify_records", "VERIFY_SIGNATURE")],
    # The chapter's vecadd (guarded and as printed) and the hold kernel its timing uses.
    "simtviz.kernels.vecadd": [],
    "simtviz.kernels.busy": [],
    # Blocks record (SM, start, end); the schedule experiment (issue 13).
    "simtviz.kernels.schedule": [],
    # The lesson's probes: counting threads, indices, warps and lanes (issue 22).
    "simtviz.kernels.lesson": [],
}


def all_kernels() -> dict[str, tuple[Any, str]]:
    """``name → (dispatcher, signature)`` for every kernel of every registered module."""
    out: dict[str, tuple[Any, str]] = {}
    for module_name, entries in KERNEL_MODULES.items():
        module = importlib.import_module(module_name)
        for kernel_attr, signature_attr in entries:
            out[kernel_attr] = (getattr(module, kernel_attr), getattr(module, signature_attr))
        for kernel_attr, signature in getattr(module, "PTX_KERNELS", {}).items():
            out[kernel_attr] = (getattr(module, kernel_attr), signature)
    return out
