"""The GPU backend's warm-up runs every path the first Run → map takes (no GPU needed here:
the GPU calls are replaced by host recordings; tests/gpu and benchmarks/first_run_gpu.py time it)."""

from __future__ import annotations

from typing import Any

import pytest

from simtviz.core.launch import LaunchConfig
from simtviz.core.oracle import expected_field
from simtviz.core.recording import Recording
from simtviz.core.schema import COLOR_FIELDS, RECORD_FIELDS, allocate


def host_recording(config: LaunchConfig, window: Any) -> Recording:
    fields = allocate(window.threads)
    for name in RECORD_FIELDS:
        if name not in ("smid", "t_ns"):
            fields[name][...] = expected_field(name, config, window)
    return Recording(config, window, fields, "gpu:fake")


def test_warm_up_draws_every_colour_field_of_1d_2d_and_3d_maps(monkeypatch: pytest.MonkeyPatch) -> None:
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
    record_gpu.warm_up_record(object())  # type: ignore[arg-type]
    assert compiled == [True]
    assert recorded == [1, 2, 3]
    assert drawn == [(rank, field) for rank in (1, 2, 3) for field in COLOR_FIELDS]


def test_gpu_backend_warms_up_through_each_experiments_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    # The backend imports no experiment: it calls the hooks of the experiments named in
    # WARM_UP_GPU, in order (the record's first Run → map, then the schedule kernels).
    from simtviz.backends.gpu import GpuBackend
    from simtviz.backends.record import gpu as record_gpu
    from simtviz.backends.schedule import occupancy

    calls: list[str] = []
    monkeypatch.setattr(record_gpu, "warm_up_record", lambda _backend: calls.append("record"))
    monkeypatch.setattr(occupancy, "gpu_occupancy_facts", lambda: calls.append("schedule"))
    GpuBackend.warm_up(object())  # type: ignore[arg-type]
    assert calls == ["record", "schedule"]
