"""The ``record`` experiment: launch the instrumented kernel once; every thread writes its record.

``check`` refuses what the device would (the simulator checks no limits, so the backend speaks
for the driver) and what would run too long without ``force``. The GPU half (``record.gpu``)
keeps the record on the device; the simulator half (``record.sim``) fills NumPy arrays.
"""

from __future__ import annotations

from simtviz.backends.base import (
    Backend,
    BackendInfo,
    Progress,
    WarmUpStep,
    check_size,
    simulated_rejection,
)
from simtviz.backends.experiment import Experiment, register
from simtviz.core.limits import validate
from simtviz.core.record import RecordRequest
from simtviz.core.recording import Recording


class RecordExperiment:
    name = "record"

    def check(self, request: RecordRequest, info: BackendInfo) -> None:
        if validate(request.config, info.limits):
            # A GPU gets the launch anyway: the driver's own error is the lesson.
            rejection = simulated_rejection(request.config, info.limits)
            if info.speaks_for_driver and rejection is not None:
                raise rejection
            return
        check_size(info, request.config.total_threads, request.force)

    def estimate_s(self, request: RecordRequest, info: BackendInfo) -> float | None:
        return None  # both halves report real progress

    def run_gpu(self, backend: Backend, request: RecordRequest, progress: Progress | None) -> Recording:
        from simtviz.backends.record.gpu import record_on_gpu

        return record_on_gpu(backend, request, progress)

    def warm_up_gpu(self, backend: Backend) -> list[WarmUpStep]:
        """Run every GPU path the first Run → map takes; the other colour fields are returned
        for after ready (``record.gpu.warm_up_record``)."""
        from simtviz.backends.record.gpu import warm_up_record

        return warm_up_record(backend)

    def run_sim(self, request: RecordRequest, info: BackendInfo, progress: Progress | None) -> Recording:
        from simtviz.backends.record.sim import record_in_simulator

        return record_in_simulator(request, info, progress)

    def run_emu(self, request: RecordRequest, info: BackendInfo, progress: Progress | None) -> Recording:
        from simtviz.backends.record.emu import record_in_emulator

        # The emulator checks no limits either: it speaks for the driver, as the simulator does.
        rejection = simulated_rejection(request.config, info.limits) if info is not None else None
        if rejection is not None:
            raise rejection
        return record_in_emulator(request, info, progress)


RECORD: Experiment[RecordRequest, Recording] = register(RecordExperiment())

__all__ = ["RECORD", "RecordExperiment", "RecordRequest"]
