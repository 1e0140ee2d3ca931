"""The GPU backend's warm-up runs every path the first Run → map takes before it reports ready,
and leaves the rest (the other colour fields, the schedule kernels) for after ready (issue 21:
start → ready ≤ 2.5 s). No GPU needed here: the GPU calls are replaced by host recordings;
tests/gpu and benchmarks/first_run_gpu.py, start_phases.py time it."""

from __future__ import annotations

from typing import Any

import pytest

from simtviz.core.launch import LaunchConfig
from simtviz.core.oracle import expected_field
from simtviz.core.recording import Recording
from simtviz.core.schema import COLOR_FIELDS, DEFAULT_COLOR_FIELD, RECORD_FIELDS, allocate

OTHER_FIELDS = [field for field in COLOR_FIELDS if field != DEFAULT_COLOR_FIELD]


def host_recording(config: LaunchConfig, window: Any) -> Recording:
    fields = allocate(window.threads)
    for name in RECORD_FIELDS:
        if name not in ("smid", "t_ns"):
            fields[name][...] = expected_field(name, config, window)
    return Recording(config, window, fields, "gpu:fake")


def test_warm_up_draws_the_default_colouring_now_and_every_other_field_after_ready(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from simtviz.backends.record import gpu as record_gpu
    from simtviz.core import maps

    compiled: list[bool] = []
    recorded: list[int] = []
    drawn: list[tuple[int, str]] = []
    real_map_images = maps.map_images

    def record(_backend: Any, request: Any, _progress: Any = None) -> Recording:
        recorded.append(request.config.rank)
        return host_recording(request.config, request.chosen_window)

    def draw(recording: Recording, field: str, planes: tuple[int, ...]) -> Any:
        drawn.append((recording.config.rank, field))
        return real_map_images(recording, field, planes)

    monkeypatch.setattr(record_gpu, "compile_once", lambda _backend: compiled.append(True))
    monkeypatch.setattr(record_gpu, "record_on_gpu", record)
    monkeypatch.setattr(maps, "map_images", draw)
    later = record_gpu.warm_up_record(object())  # type: ignore[arg-type]
    assert compiled == [True]
    assert recorded == [1, 2, 3]
    # Before ready: the first Run's colouring only (all 14 fields × 3 ranks made start 39 draws longer).
    assert drawn == [(rank, DEFAULT_COLOR_FIELD) for rank in (1, 2, 3)]
    drawn.clear()
    for step in later:
        step.run()
    assert recorded == [1, 2, 3]  # the steps draw from the recordings already made
    assert drawn == [(rank, field) for rank in (1, 2, 3) for field in OTHER_FIELDS]
    assert [step.name for step in later][:2] == [
        f"record: {OTHER_FIELDS[0]}, 1-D",
        f"record: {OTHER_FIELDS[1]}, 1-D",
    ]


def test_gpu_backend_warms_up_through_each_experiments_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    # The backend imports no experiment: it calls the hooks of the experiments named in
    # WARM_UP_GPU, in order; each does what the first Run needs and returns what can wait.
    from simtviz.backends.base import WarmUpStep
    from simtviz.backends.gpu import GpuBackend
    from simtviz.backends.record import gpu as record_gpu
    from simtviz.backends.schedule import occupancy

    calls: list[str] = []

    def warm_up_record(_backend: Any) -> list[WarmUpStep]:
        calls.append("record")
        return [WarmUpStep("record: warp, 1-D", lambda: calls.append("record later"))]

    monkeypatch.setattr(record_gpu, "warm_up_record", warm_up_record)
    monkeypatch.setattr(occupancy, "gpu_occupancy_facts", lambda: calls.append("schedule kernels"))
    backend = GpuBackend.__new__(GpuBackend)  # no device: its __init__ asks the driver
    assert backend.warm_ups_after_ready() == []
    backend.warm_up()
    # Before ready: the record's own; the schedule kernels (≈300 ms on the H200) wait.
    assert calls == ["record"]
    after = backend.warm_ups_after_ready()
    assert [step.name for step in after] == ["record: warp, 1-D", "schedule kernels"]
    for step in after:
        step.run()
    assert calls == ["record", "record later", "schedule kernels"]


def test_the_gpu_warm_up_before_ready_leaves_the_schedule_kernels_and_other_fields(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The whole before-ready list, through the real hooks (GPU launches replaced)."""
    from simtviz.backends.gpu import GpuBackend
    from simtviz.backends.record import gpu as record_gpu
    from simtviz.backends.schedule import occupancy
    from simtviz.core import maps

    before: list[str] = []
    ready = [False]

    def record(_backend: Any, request: Any, _progress: Any = None) -> Recording:
        return host_recording(request.config, request.chosen_window)

    def draw(recording: Recording, field: str, _planes: tuple[int, ...]) -> None:
        (before if not ready[0] else after_names).append(f"{field}, {recording.config.rank}-D")

    after_names: list[str] = []
    monkeypatch.setattr(record_gpu, "compile_once", lambda _backend: before.append("compile_once"))
    monkeypatch.setattr(record_gpu, "record_on_gpu", record)
    monkeypatch.setattr(maps, "map_images", draw)
    monkeypatch.setattr(
        occupancy,
        "gpu_occupancy_facts",
        lambda: (before if not ready[0] else after_names).append("schedule kernels"),
    )
    backend = GpuBackend.__new__(GpuBackend)
    backend.warm_up()
    ready[0] = True
    for step in backend.warm_ups_after_ready():
        step.run()
    assert before == ["compile_once"] + [f"{DEFAULT_COLOR_FIELD}, {rank}-D" for rank in (1, 2, 3)]
    assert "schedule kernels" in after_names
    assert {f"{field}, {rank}-D" for field in OTHER_FIELDS for rank in (1, 2, 3)} <= set(after_names)


class _Runtime:
    def __init__(self, error: Exception | None) -> None:
        self.error = error
        self.freed: list[int] = []

    def free(self, pointer: int) -> None:
        self.freed.append(pointer)
        if self.error is not None:
            raise self.error


class _CuPy:
    def __init__(self, error: Exception | None = None) -> None:
        self.cuda = type("cuda", (), {})()
        self.cuda.runtime = _Runtime(error)


def test_the_cuda_runtime_is_started_before_numba_is_imported() -> None:
    # cudaFree(0) on the worker right after CuPy's import: the driver's start (≈0.3 s on the
    # H200) then runs beside the window's imports instead of after numba's.
    from simtviz.backends.gpu import _start_cuda_early

    cupy = _CuPy()
    _start_cuda_early(cupy)
    assert cupy.cuda.runtime.freed == [0]


def test_a_machine_without_a_usable_gpu_gets_no_driver_error_from_the_early_start() -> None:
    # The student then reads numba's plain "finds no usable NVIDIA GPU", never a CUDA error name.
    from simtviz.backends.gpu import _start_cuda_early

    cupy = _CuPy(RuntimeError("cudaErrorInsufficientDriver: CUDA driver version is insufficient"))
    _start_cuda_early(cupy)  # raises nothing
    assert cupy.cuda.runtime.freed == [0]


def _package_with_probe(root: Any) -> None:
    # A stand-in for scipy (records that it was imported) and a module probing for it the way
    # numba-cuda's arraymath probes for scipy's BLAS.
    (root / "fakeblas").mkdir()
    (root / "fakeblas" / "__init__.py").write_text("")
    (root / "fakeblas" / "linalg.py").write_text("import builtins\nbuiltins.fakeblas_imported = True\n")
    (root / "probing.py").write_text(
        "try:\n    import fakeblas.linalg\n    HAVE = True\nexcept ImportError:\n    HAVE = False\n"
    )


def test_import_without_answers_the_probe_no_without_importing_it(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import builtins
    import sys

    from simtviz.backends.gpu import import_without

    _package_with_probe(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("probing", "fakeblas", "fakeblas.linalg"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.delattr(builtins, "fakeblas_imported", raising=False)
    finders = list(sys.meta_path)
    import_without("probing", "fakeblas.linalg")
    assert sys.modules["probing"].HAVE is False
    assert not hasattr(builtins, "fakeblas_imported")
    assert sys.meta_path == finders  # nothing left behind
    # Afterwards the module imports as usual: a student's own code is never affected.
    import fakeblas.linalg  # noqa: F401

    assert getattr(builtins, "fakeblas_imported", False) is True
    monkeypatch.delitem(sys.modules, "fakeblas.linalg")


def test_import_without_refuses_only_on_its_own_thread() -> None:
    # The worker imports numba's module while the GUI thread imports pyqtgraph: the GUI thread's
    # imports must find everything. (The finder is asked directly: nothing is imported.)
    import threading

    from simtviz.backends.gpu import _RefuseOnThisThread

    finder = _RefuseOnThisThread("fakeblas.linalg")
    found: list[object] = []
    thread = threading.Thread(target=lambda: found.append(finder.find_spec("fakeblas.linalg")))
    thread.start()
    thread.join()
    assert found == [None]  # another thread: left to the other finders
    with pytest.raises(ModuleNotFoundError):
        finder.find_spec("fakeblas.linalg")
    with pytest.raises(ModuleNotFoundError):
        finder.find_spec("fakeblas.linalg.cython_blas")
    assert finder.find_spec("fakeblas") is None  # the package itself, and look-alikes, are not refused
    assert finder.find_spec("fakeblas.linalgebra") is None
