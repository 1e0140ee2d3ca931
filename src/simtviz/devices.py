"""What ``simtviz devices`` lists: each backend, whether it can run here, and its launch limits."""

from __future__ import annotations

from typing import Any

from simtviz.backends.selection import gpu_probe, numba_is_simulated, resolve_backend
from simtviz.core.errors import BackendUnavailable


def list_devices(flag: str | None = None) -> list[dict[str, Any]]:
    """One entry per backend: ``backend``, ``available``, ``selected``, ``label``, ``limits``."""
    from simtviz.backends.sim import sim_info

    selected = resolve_backend(flag)
    entries: list[dict[str, Any]] = []
    found, why = gpu_probe()
    gpu: dict[str, Any] = {
        "backend": "gpu",
        "available": False,
        "selected": selected == "gpu",
        "label": why,
        "limits": None,
    }
    if found and numba_is_simulated() is not True:
        try:
            from simtviz.backends.gpu import GpuBackend

            info = GpuBackend().info()
            gpu.update(
                available=True, label=info.label, device=info.limits.name, limits=info.limits.as_dict()
            )
        except BackendUnavailable as exc:
            gpu["label"] = str(exc)
    elif found:
        gpu["label"] = "a GPU is present, but this process runs the simulator"
    entries.append(gpu)
    info = sim_info()
    entries.append(
        {
            "backend": "sim",
            "available": True,
            "selected": selected == "sim",
            "label": info.label,
            "limits": info.limits.as_dict(),
        }
    )
    return entries
