"""Text the app shows about one launch or one thread: worked formulas, tooltips, the launch's code.

Qt-free: the thread inspector, the map's tooltip and the launch panel render these strings.
"""

from __future__ import annotations

from typing import Any

from simtviz.core.launch import WARP_SIZE, LaunchConfig
from simtviz.core.recording import Recording


def _check(value: int, recorded: int, what: str) -> str:
    if value == recorded:
        return f"  ✓ {what}"
    return f"  ✗ but {what} is {recorded}"


def formula_lines(config: LaunchConfig, t: dict[str, Any]) -> list[str]:
    """The formulas of the chapter with this thread's numbers, each checked against what it recorded.

    ``t`` is ``Recording.thread_at(row)``: threadIdx, blockIdx, grid1, grid2, grid3, laneid, warp.
    """
    tx, ty, tz = t["threadIdx"]
    bx, by, bz = t["blockIdx"]
    dx, dy, dz = config.block.as_tuple()
    gx, gy, _gz = config.grid.as_tuple()
    rank = config.rank
    lines: list[str] = []
    x = tx + bx * dx
    if rank == 1:
        lines.append(
            f"idx = threadIdx.x + blockIdx.x * blockDim.x = {tx} + {bx} × {dx} = {x}"
            + _check(x, t["grid1"], "= cuda.grid(1)")
        )
    else:
        y = ty + by * dy
        lines.append(
            f"x = threadIdx.x + blockIdx.x * blockDim.x = {tx} + {bx} × {dx} = {x}"
            + _check(x, t["grid3"][0], "as recorded")
        )
        lines.append(
            f"y = threadIdx.y + blockIdx.y * blockDim.y = {ty} + {by} × {dy} = {y}"
            + _check(y, t["grid3"][1], "as recorded")
        )
        width = gx * dx
        if rank == 2:
            linear = x + y * width
            lines.append(
                f"global linear index = x + y * (gridDim.x * blockDim.x) = {x} + {y} × {width} = {linear}"
            )
        else:
            z = tz + bz * dz
            lines.append(
                f"z = threadIdx.z + blockIdx.z * blockDim.z = {tz} + {bz} × {dz} = {z}"
                + _check(z, t["grid3"][2], "as recorded")
            )
            height = gy * dy
            linear = x + y * width + z * width * height
            lines.append(
                f"global linear index = x + y * W + z * W * H (W = {width}, H = {height})"
                f" = {x} + {y} × {width} + {z} × {width * height} = {linear}"
            )
        lines.append(f"cuda.grid(1) = threadIdx.x + blockIdx.x * blockDim.x = {x} (x only)")
    tid = tx + ty * dx + tz * dx * dy
    if rank == 1:
        lines.append(f"thread id in block = threadIdx.x = {tid}")
    else:
        lines.append(
            "thread id in block = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x "
            f"* blockDim.y = {tx} + {ty} × {dx} + {tz} × {dx * dy} = {tid}"
        )
    lines.append(
        f"warp = thread id // {WARP_SIZE} = {tid} // {WARP_SIZE} = {tid // WARP_SIZE}"
        + _check(tid // WARP_SIZE, t["warp"], "as recorded")
    )
    lines.append(
        f"lane = thread id % {WARP_SIZE} = {tid} % {WARP_SIZE} = {tid % WARP_SIZE}"
        + _check(tid % WARP_SIZE, t["laneid"], "= cuda.laneid")
    )
    block_id = bx + by * gx + bz * gx * gy
    if rank > 1:
        lines.append(
            "block linear id = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y"
            f" = {bx} + {by} × {gx} + {bz} × {gx * gy} = {block_id}"
        )
    return lines


def value_lines(recording: Recording, t: dict[str, Any]) -> list[tuple[str, str]]:
    config = recording.config
    hw = recording.has_hardware_fields
    return [
        ("threadIdx", str(t["threadIdx"])),
        ("blockIdx", str(t["blockIdx"])),
        ("blockDim", str(config.block)),
        ("gridDim", str(config.grid)),
        ("cuda.grid(1)", str(t["grid1"])),
        ("cuda.grid(2)", str(t["grid2"])),
        ("cuda.grid(3)", str(t["grid3"])),
        ("lane (cuda.laneid)", str(t["laneid"])),
        ("warp", str(t["warp"])),
        ("SM (%smid)", str(t["smid"]) if hw else "unknown in the simulator"),
        ("start (%globaltimer)", f"{t['t_ns']:,} ns" if hw else "unknown in the simulator"),
    ]


def tooltip_lines(recording: Recording, field: str, value: str, t: dict[str, Any] | None) -> list[str]:
    """The map's hover text for one cell (HTML lines); ``t`` None while its record is fetched."""
    if t is None:
        return [f"<b>{field} = {value}</b>", "fetching this thread's record …"]
    lines = [
        f"<b>{field} = {value}</b>",
        f"threadIdx = {t['threadIdx']}",
        f"blockIdx = {t['blockIdx']}",
        f"cuda.grid(1) = {t['grid1']}",
        f"cuda.grid(2) = {t['grid2']}",
    ]
    if recording.config.rank == 3:
        lines.append(f"cuda.grid(3) = {t['grid3']}")
    lines.append(f"warp {t['warp']}, lane {t['laneid']}")
    if recording.has_hardware_fields:
        lines.append(f"SM {t['smid']}")
    lines.append("<i>click to pin it in the inspector</i>")
    return lines


def launch_code(config: LaunchConfig) -> str:
    """The Python a student would write for this launch: the kernel and its launch line."""
    rank = config.rank
    if rank == 1:
        body = [
            "    # i = threadIdx.x + blockIdx.x * blockDim.x",
            "    i = cuda.grid(1)",
            "    out[i] = i",
        ]
    elif rank == 2:
        body = [
            "    # x = threadIdx.x + blockIdx.x * blockDim.x; y alike",
            "    x, y = cuda.grid(2)",
            "    out[y, x] = y * out.shape[1] + x",
        ]
    else:
        body = [
            "    x, y, z = cuda.grid(3)",
            "    out[z, y, x] = (z * out.shape[1] + y) * out.shape[2] + x",
        ]
    ex, ey, ez = config.extent
    shape = {1: f"({ex},)", 2: f"({ey}, {ex})", 3: f"({ez}, {ey}, {ex})"}[rank]
    return "\n".join(
        [
            "from numba import cuda",
            "import numpy as np",
            "",
            "@cuda.jit",
            "def index_kernel(out):",
            *body,
            "",
            f"out = cuda.device_array({shape}, dtype=np.int64)",
            config.launch_line("index_kernel", "out"),
            f"# {config.blocks:,} blocks × {config.threads_per_block:,} threads = "
            f"{config.total_threads:,} threads",
        ]
    )


def totals_text(config: LaunchConfig) -> str:
    tpb = config.threads_per_block
    last = config.last_warp_size
    partial = (
        f" — the last warp has only {last} of {WARP_SIZE} threads"
        if tpb and last != WARP_SIZE
        else " (all full)"
        if tpb
        else ""
    )
    return (
        f"Threads per block: <b>{tpb:,}</b><br>"
        f"Blocks: <b>{config.blocks:,}</b><br>"
        f"Threads: <b>{config.total_threads:,}</b><br>"
        f"Warps per block: <b>{config.warps_per_block:,}</b>{partial}"
    )


def backend_words(backend: str) -> str:
    """A recording's ``backend`` (``sim``, ``emu`` or ``gpu:<device name>``) as the map's title says it."""
    if backend.startswith("gpu:"):
        return f"ran on the GPU: {backend[4:]}"
    if backend.startswith("gpu"):
        return "ran on the GPU"
    if backend == "emu":
        return "ran on the CPU emulator (lockstep, NumPy)"
    return "ran on the CUDA simulator (CPU)"
