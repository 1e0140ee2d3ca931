"""The child process of an isolated experiment: ``python -m simtviz.backends.isolated_child KIND
MODULE NAME PARENT_PID``.

It sets its own limits and dies with the app (``child_limits``), loads the experiment by module
and name (as ``sim_child`` does), lets it start what it needs before the backend is chosen
(``experiment.child_session(kind)``: the trace starts its GPU-compile checker there), chooses the
backend before numba is imported (``NUMBA_ENABLE_CUDASIM=1`` for ``sim``, unset for ``gpu``: a GPU
child gets its own CUDA context), lets the session prepare (imports, context, warm-up), says
``ready``, then reads one pickled request from stdin, runs it and writes pickled messages to its
protocol pipe: ``("phase", name)`` and ``("progress", fraction)`` … then ``("ok", result)`` or
``("error", exception-or-None, type name, text, traceback)``. One run per process: a fault, a
sticky CUDA error or leftover module state dies with it.

File descriptor 1 is the protocol; whatever the run prints (a student's ``print``, CUDA's printf)
is moved to stderr so it can never corrupt a message. If the parent goes away (stdin reaches its
end), the child ends itself: an orphan must not keep spinning an endless loop.
"""

from __future__ import annotations

import os
import pickle
import struct
import sys
import threading
import traceback
from collections.abc import Callable
from typing import IO, Any, Protocol

HEADER = struct.Struct("<Q")
ANALYSIS_CPU_S = 240.0  # CPU seconds beyond the time limit for the analysis and timing


class ChildSession(Protocol):
    """What an isolated experiment does in its child (``Experiment.child_session(kind)``, called
    before the backend is chosen there)."""

    def prepare(self) -> None:
        """After the backend is chosen, before ``ready``: imports, a CUDA context, a warm-up."""

    def run(self, request: Any, progress: Callable[[float], None], phase: Callable[[str], None]) -> Any:
        """Run ``request`` here; its result must pickle."""

    def close(self) -> None:
        """No request came (the app closed, or a child started ahead was not needed)."""


class PlainSession:
    """For an isolated experiment without a ``child_session``: its ``run_<kind>`` half, here."""

    def __init__(self, experiment: Any, kind: str) -> None:
        self.experiment, self.kind = experiment, kind
        self.backend: Any = None

    def prepare(self) -> None:
        if self.kind == "gpu":
            from simtviz.backends.gpu import GpuBackend

            self.backend = GpuBackend()

    def run(self, request: Any, progress: Callable[[float], None], phase: Callable[[str], None]) -> Any:
        from simtviz.backends import info_for

        if self.kind == "gpu":
            return self.experiment.run_gpu(self.backend, request, progress)
        half = self.experiment.run_emu if self.kind == "emu" else self.experiment.run_sim
        return half(request, info_for(self.kind), progress)

    def close(self) -> None:
        return None


def write_message(stream: IO[bytes], message: Any, lock: threading.Lock) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    with lock:
        stream.write(HEADER.pack(len(data)))
        stream.write(data)
        stream.flush()


def read_message(stream: IO[bytes]) -> Any:
    """One message, or raises EOFError when the other side closed the pipe."""
    head = stream.read(HEADER.size)
    if len(head) < HEADER.size:
        raise EOFError
    size = HEADER.unpack(head)[0]
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


def _error_message(exc: BaseException) -> tuple[Any, ...]:
    """The exception itself when it survives pickling (simtviz's errors do), else its words."""
    try:
        data = pickle.dumps(exc)
        pickle.loads(data)
        carried: BaseException | None = exc
    except Exception:
        carried = None
    return ("error", carried, type(exc).__name__, str(exc), traceback.format_exc())


def _watch_parent(stdin: IO[bytes]) -> None:
    """End this process when the parent closes our stdin (it died or gave up on us)."""
    try:
        while stdin.read(1):
            pass
    finally:
        os._exit(3)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    kind, module, name = argv[0], argv[1], argv[2]
    from simtviz.backends.child_limits import apply_limits, die_with_parent, limit_cpu

    die_with_parent(int(argv[3]) if len(argv) > 3 else 0)
    apply_limits(kind)
    proto = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # print() in the run goes to stderr, never into the protocol
    lock = threading.Lock()
    session: ChildSession | None = None
    try:
        from simtviz.backends.experiment import load

        experiment = load(module, name)
        start = getattr(experiment, "child_session", None)
        session = start(kind) if callable(start) else PlainSession(experiment, kind)
        # The backend, chosen before anything imports numba.
        from simtviz.backends.selection import activate

        if kind != "emu":  # the CPU emulator never imports numba: nothing to choose
            activate(kind)
        session.prepare()
    except BaseException as exc:  # no numba, no GPU: reported as the run's error
        write_message(proto, _error_message(_as_unavailable(exc, kind)), lock)
        return 1
    write_message(proto, ("ready", os.getpid()), lock)

    stdin = sys.stdin.buffer
    try:
        request = read_message(stdin)
    except EOFError:
        session.close()
        return 0
    threading.Thread(target=_watch_parent, args=(stdin,), daemon=True).start()
    # A backstop only: the parent's wall-clock limit is the real one (isolated.py).
    limit_cpu((os.cpu_count() or 1) * (float(getattr(request, "time_limit_s", 0.0)) + ANALYSIS_CPU_S))

    def progress(fraction: float) -> None:
        write_message(proto, ("progress", float(fraction)), lock)

    def phase(step: str) -> None:
        write_message(proto, ("phase", step), lock)

    try:
        reply: tuple[Any, ...] = ("ok", session.run(request, progress, phase))
    except BaseException as exc:
        reply = _error_message(exc)
    try:
        write_message(proto, reply, lock)
    except Exception as exc:  # a result that does not pickle: say so rather than hang
        write_message(proto, _error_message(exc), lock)
    proto.close()
    # os._exit: no interpreter teardown (the simulator's threads, a CUDA context) to wait for.
    sys.stderr.flush()
    os._exit(0)


def _as_unavailable(exc: BaseException, kind: str) -> BaseException:
    from simtviz.core.errors import BackendUnavailable, SimtvizError

    if isinstance(exc, SimtvizError):
        return exc
    where = {"gpu": "the GPU", "emu": "the CPU emulator"}.get(kind, "the CUDA simulator")
    return BackendUnavailable(f"the traced kernel's process could not start {where}: {exc}")


if __name__ == "__main__":
    sys.exit(main())
