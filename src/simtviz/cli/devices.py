"""``simtviz devices``: each backend, whether it can run here, and its launch limits."""

from __future__ import annotations

import argparse
import json
from typing import Any

from simtviz.backends.selection import gpu_probe, numba_is_simulated, resolve_backend
from simtviz.core.errors import EXIT_OK, BackendUnavailable

NAME = "devices"
HELP = "list the backends and their launch limits"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    entries = list_devices(args.backend)
    if args.json:
        print(json.dumps(entries))
        return EXIT_OK
    for entry in entries:
        mark = "*" if entry["selected"] else " "
        print(f"{mark} {entry['backend']}: {entry['label']}")
        limits = entry.get("limits")
        if limits:
            block = " × ".join(f"{v:,}" for v in limits["max_block"])
            grid = " × ".join(f"{v:,}" for v in limits["max_grid"])
            print(
                f"    threads per block ≤ {limits['max_threads_per_block']:,}; block ≤ {block}; "
                f"grid ≤ {grid}; warp {limits['warp_size']}"
            )
    print("(* = the backend 'simtviz' uses here)")
    return EXIT_OK


def list_devices(flag: str | None = None) -> list[dict[str, Any]]:
    """One entry per backend: ``backend``, ``available``, ``selected``, ``label``, ``limits``."""
    from simtviz.backends.emu_backend import emu_info
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
    for info in (emu_info(), sim_info()):
        entries.append(
            {
                "backend": info.backend_id,
                "available": True,
                "selected": selected == info.backend_id,
                "label": info.label,
                "limits": info.limits.as_dict(),
            }
        )
    return entries
