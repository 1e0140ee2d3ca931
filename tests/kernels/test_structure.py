"""The tables the rest derives from: the record schema, the error table, the backend policy."""

from __future__ import annotations

import inspect

import numpy as np

from simtviz.backends.base import BackendInfo, BackendKind
from simtviz.backends.sim import sim_info
from simtviz.core import schema
from simtviz.core.errors import (
    BackendUnavailable,
    Cancelled,
    KernelFailed,
    LaunchRejected,
    LaunchTooLarge,
    OutOfDeviceMemory,
    describe,
)
from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import DeviceLimits, validate
from simtviz.core.recording import COLOR_FIELDS, GPU_ONLY_FIELDS


def test_a_recorded_thread_costs_92_bytes() -> None:
    # threadIdx, blockIdx 3 × 4; grid1 8; grid2 2 × 8; grid3 3 × 8; laneid, warp, smid 4; t_ns 8.
    assert schema.BYTES_PER_THREAD == 12 + 12 + 8 + 16 + 24 + 4 + 4 + 4 + 8 == 92


def test_csv_columns_are_named_as_the_kernel_reads_them() -> None:
    assert ",".join(schema.CSV_COLUMNS) == (
        "threadIdx.x,threadIdx.y,threadIdx.z,blockIdx.x,blockIdx.y,blockIdx.z,"
        "grid1,grid2.x,grid2.y,grid3.x,grid3.y,grid3.z,laneid,warp,smid,t_ns"
    )


def test_the_kernels_take_their_arguments_in_schema_order() -> None:
    from simtviz.kernels.record import RECORD_SIGNATURE, record_threads
    from simtviz.kernels.verify import verify_records

    record_args = list(inspect.signature(record_threads.py_func).parameters)
    assert record_args == [*schema.RECORD_FIELDS, "window", "ended"]
    verify_args = list(inspect.signature(verify_records.py_func).parameters)
    assert verify_args[:7] == ["threadIdx", "blockIdx", "grid1", "grid2", "grid3", "laneid", "warp"]
    assert RECORD_SIGNATURE.startswith("void(int32[:, ::1], int32[:, ::1], int64[::1], int64[:, ::1]")


def test_allocation_fills_every_field_with_minus_one() -> None:
    fields = schema.allocate(5)
    assert fields["grid3"].shape == (5, 3) and fields["grid3"].dtype == np.int64
    assert fields["laneid"].shape == (5,) and fields["laneid"].dtype == np.int32
    assert all((a == -1).all() for a in fields.values())


def test_colour_fields_keep_their_menu_order_and_kinds() -> None:
    assert list(COLOR_FIELDS)[:2] == ["global linear index", "blockIdx.x"]
    assert COLOR_FIELDS["warp"] is True and COLOR_FIELDS["lane"] is False
    assert GPU_ONLY_FIELDS == ("SM", "start order")


def test_each_error_has_its_exit_code_and_advice() -> None:
    config = LaunchConfig.of(1, 2048)
    rejected = LaunchRejected("CUDA_ERROR_INVALID_VALUE", config, validate(config), "CUDAError")
    assert describe(rejected).exit_code == 3
    assert describe(LaunchTooLarge(1_048_576, 262.0, 131_072, "the CUDA simulator")).exit_code == 4
    oom = describe(OutOfDeviceMemory(3 << 30, None, "record 4,194,304 threads"))
    assert (oom.exit_code, oom.title) == (4, "Not enough GPU memory")
    assert oom.what == "the GPU has too little free memory to record 4,194,304 threads (3.0 GiB)"
    assert "--backend sim" in describe(BackendUnavailable("no GPU")).todo
    assert describe(KernelFailed("IndexError")).exit_code == 1
    assert "restart simtviz" in describe(KernelFailed("illegal address", needs_restart=True)).todo
    assert describe(Cancelled("run cancelled")).exit_code == 1


def test_backend_policy_follows_its_kind() -> None:
    sim = sim_info()
    assert sim.kind is BackendKind.SIM and sim.kind == "sim"
    assert sim.device_words == "the CUDA simulator"
    assert not sim.needs_confirmation(131_072) and sim.needs_confirmation(131_073)
    assert sim.estimate_seconds(9_000) == 3.0  # 3,000 simulated threads a second
    assert sim.estimate_seconds(6_000, "vecadd") == 3.0  # the same rate, plus a second to start
    gpu = BackendInfo("gpu", "gpu:Test", "Test GPU", DeviceLimits(name="Test"))
    assert gpu.kind is BackendKind.GPU and gpu.device_words == "the GPU"
    assert not gpu.needs_confirmation(1 << 40)
