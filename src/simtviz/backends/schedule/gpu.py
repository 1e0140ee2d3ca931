"""The schedule launch on a real GPU: record (SM, start, end) per block, then put theory beside it.

Theory comes twice and both are shown: simtviz's own arithmetic (``core.occupancy``, from the
device's attributes and the kernel's registers and shared memory) and the driver's
``cuOccupancyMaxActiveBlocksPerMultiprocessor`` for the very same compiled function. numba-cuda
exposes the latter on a compiled overload as ``max_cooperative_grid_blocks(block, smem)`` =
driver blocks per SM × SMs (dispatcher.py calls ``ctx.get_active_blocks_per_multiprocessor``
on ``overload._codelibrary.get_cufunc()``); a disagreement is reported, not smoothed over.
"""

from __future__ import annotations

import traceback
from typing import Any

import numpy as np

from simtviz.backends.selection import activate
from simtviz.core.errors import BackendUnavailable, KernelFailed, LaunchRejected
from simtviz.core.launch import LaunchConfig
from simtviz.core.schedule import ScheduleRequest, ScheduleResult, analyse, is_measured
from simtviz.core.schedule.occupancy import occupancy, profile_from_attributes, read_device_attributes


def _kernel_for(heavy: bool, max_registers: int | None) -> Any:
    from simtviz.kernels.schedule import heavy_kernel, schedule_blocks

    return heavy_kernel(max_registers) if heavy else schedule_blocks


def compiled_kernel(heavy: bool, max_registers: int | None = None) -> Any:
    """The compiled overload (numba ``_Kernel``) of the schedule kernel (``heavy``: its
    register-heavy variant, optionally capped) that a launch uses: registers, static shared memory."""
    from simtviz.kernels.schedule import SCHEDULE_SIGNATURE

    return _kernel_for(heavy, max_registers).compile(SCHEDULE_SIGNATURE)


def driver_blocks_per_sm(overload: Any, threads_per_block: int, dynamic_smem: int) -> int | None:
    """``cuOccupancyMaxActiveBlocksPerMultiprocessor`` for a compiled overload; None if unreachable."""
    from numba import cuda

    sms = int(cuda.get_current_device().MULTIPROCESSOR_COUNT)
    try:
        return int(overload.max_cooperative_grid_blocks(threads_per_block, dynamic_smem)) // sms
    except Exception:
        pass
    try:  # the same driver call by hand, through the context numba keeps
        cufunc = overload._codelibrary.get_cufunc()
        value = cuda.current_context().get_active_blocks_per_multiprocessor(
            cufunc, threads_per_block, dynamic_smem
        )
        return int(value[0] if isinstance(value, tuple) else value)
    except Exception:
        return None


def _launch_errors() -> tuple[type[BaseException], ...]:
    from simtviz.backends.cuda_tools import launch_error_types

    return launch_error_types()


def run_schedule_gpu(request: ScheduleRequest) -> ScheduleResult:
    """Launch the schedule kernel once, read every block's (SM, start, end) back, analyse it."""
    activate("gpu")
    try:
        import cupy as cp
        from numba import cuda
    except Exception as exc:
        raise BackendUnavailable(f"the GPU backend cannot start: {exc}") from exc
    if not cuda.is_available():
        raise BackendUnavailable("numba-cuda finds no usable NVIDIA GPU on this machine")

    from simtviz.backends.cuda_tools import device_limits
    from simtviz.core.limits import validate

    config = LaunchConfig.of(request.grid, request.block)
    device = cuda.get_current_device()
    name = device.name.decode() if isinstance(device.name, bytes) else str(device.name)
    profile = profile_from_attributes(read_device_attributes(device), name)
    violations = validate(config, device_limits(device))

    kernel = _kernel_for(request.heavy, request.max_registers)
    # compiled before the launch: the compile is not the lesson
    overload = compiled_kernel(request.heavy, request.max_registers)
    regs = int(overload.regs_per_thread)
    static_smem = int(overload.shared_mem_per_block)
    threads = config.threads_per_block
    blocks = config.blocks
    theory = occupancy(profile, threads, regs, static_smem + request.smem)
    driver = (
        driver_blocks_per_sm(overload, threads, request.smem)
        if threads <= profile.max_threads_per_block
        else 0
    )

    smid = cp.full(blocks, -1, dtype=np.int32)
    start = cp.full(blocks, -1, dtype=np.int64)
    end = cp.full(blocks, -1, dtype=np.int64)
    try:
        kernel[config.grid.as_tuple(), config.block.as_tuple(), 0, request.smem](
            np.int64(request.work_ns), smid, start, end
        )
    except _launch_errors() as exc:
        raise LaunchRejected(
            str(exc), config, violations, type(exc).__name__, traceback_text=traceback.format_exc()
        ) from exc
    try:
        cuda.synchronize()
    except Exception as exc:  # sticky: the context is unusable after it
        raise KernelFailed(
            f"the GPU reported an error after the launch: {exc}. "
            "CUDA cannot recover from this in the same process: restart simtviz."
        ) from exc
    smid_h, start_h, end_h = smid.get(), start.get(), end.get()
    analysis = analyse(smid_h, start_h, end_h) if is_measured(smid_h, start_h, end_h) else None
    return ScheduleResult(
        backend=f"gpu:{name}",
        grid=config.grid.as_tuple(),
        block=config.block.as_tuple(),
        sms=profile.sms,
        work_us=float(request.work_us),
        smem_per_block=static_smem + request.smem,
        occupancy=theory,
        driver_blocks_per_sm=driver,
        smid=smid_h,
        start_ns=start_h,
        end_ns=end_h,
        analysis=analysis,
    )
