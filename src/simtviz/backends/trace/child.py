"""The child process that runs one traced kernel: ``python -m simtviz.backends.trace.child KIND``.

It sets its own backend before numba is imported (``NUMBA_ENABLE_CUDASIM=1`` for ``sim``, unset
for ``gpu``: a GPU child gets its own CUDA context), imports numba and the helpers, says
``ready``, then reads one pickled ``(TraceRequest)`` from stdin, runs it and writes pickled
messages to its protocol pipe: ``("progress", fraction)`` … then ``("ok", TraceResult)`` or
``("error", exception-or-None, type name, text, traceback)``. One run per process: a fault, a
sticky CUDA error or leftover module state dies with it.

File descriptor 1 is the protocol; the student's ``print`` (and CUDA's printf) is moved to
stderr so it can never corrupt a message. If the parent goes away (stdin reaches its end), the
child ends itself: an orphan must not keep spinning an endless loop.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import struct
import sys
import threading
import traceback
from typing import IO, Any

HEADER = struct.Struct("<Q")
ANALYSIS_CPU_S = 240.0  # CPU seconds beyond the time limit for the analysis and timing


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
    kind = argv[0] if argv else "sim"
    from simtviz.backends.trace.limits import apply_limits, die_with_parent, limit_cpu

    die_with_parent(int(argv[1]) if len(argv) > 1 else 0)
    apply_limits(kind)
    proto = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # print() in the student's kernel goes to stderr, never into the protocol
    lock = threading.Lock()

    # A GPU would compile the kernel? Asked of a process with numba real, started now so that
    # its import overlaps ours (backends/trace/gpu_compile.py).
    from simtviz.backends.trace.gpu_compile import start_checker, verify

    checker = start_checker(kind)
    # The backend, chosen before anything imports numba.
    from simtviz.backends.selection import activate

    if kind != "emu":  # the CPU emulator never imports numba: nothing to choose
        activate(kind)
    try:
        from simtviz.backends.trace import RUNNERS

        module_name, _, func_name = RUNNERS[kind].partition(":")
        import importlib

        runner = getattr(importlib.import_module(module_name), func_name)
        if kind != "emu":  # the emulator imports no numba
            import simtviz.kernels.trace_helpers  # noqa: F401  (numba and the helpers, before 'ready')

        if kind == "gpu":
            from numba import cuda

            cuda.current_context()  # this process's own context, made now rather than at Run
    except BaseException as exc:  # no numba, no GPU: reported as the run's error
        write_message(proto, _error_message(_as_unavailable(exc, kind)), lock)
        return 1
    if kind == "gpu":
        warm_up(runner)
    write_message(proto, ("ready", os.getpid()), lock)

    stdin = sys.stdin.buffer
    try:
        request = read_message(stdin)
    except EOFError:
        if checker is not None:
            checker.close()
        return 0
    threading.Thread(target=_watch_parent, args=(stdin,), daemon=True).start()
    # A backstop only: the parent's wall-clock limit is the real one (isolated.py).
    limit_cpu((os.cpu_count() or 1) * (float(request.time_limit_s) + ANALYSIS_CPU_S))

    def progress(fraction: float) -> None:
        write_message(proto, ("progress", float(fraction)), lock)

    def phase(name: str) -> None:
        write_message(proto, ("phase", name), lock)

    from simtviz.backends.trace import prepare

    prepare.PHASE_HOOK = phase

    try:
        note = verify(request, kind, checker, lambda: progress(0.0))  # refuses what a GPU would not compile
        reply: tuple[Any, ...] = ("ok", runner(request, progress))
        if note:
            reply[1].notes.append(note)
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


# The warm-up's kernel: a template's vecadd over 2^16 threads (196,608 accesses). Not tiny on
# purpose: CuPy's scans and reductions take other kernels above a few thousand elements, and a
# warm-up too small to reach them left the first 10^7-access analysis 120 ms slower (H200).
WARM_UP_TEMPLATE = "vecadd_guarded"
WARM_UP_THREADS = 1 << 16


def warm_up(runner: Any, threads: int = WARM_UP_THREADS) -> None:
    """One tiny traced run before saying ``ready``, its output discarded, so the student's Run
    only compiles their own kernel: the first compile in a process also sets up numba's NVVM and
    typing (≈0.8 s on the H200) and the analysis loads CuPy's kernels (on a machine that never ran
    them, CuPy compiles them: over 10 s once). The app starts this process ahead of Run (the
    Your kernel tab, when shown, and after each run). Whatever goes wrong here is left for the
    real run to say; nothing it prints reaches the student's output."""
    from simtviz.core.trace.model import TraceRequest
    from simtviz.core.trace.templates import template

    t = template(WARM_UP_TEMPLATE)
    n = threads
    request = TraceRequest(
        t.source,
        (-(-n // 256), 1, 1),
        (min(n, 256), 1, 1),
        {"A": f"float32[{n}]:random", "B": f"float32[{n}]:random", "C": f"float32[{n}]"},
        filename=t.file,
    )
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            runner(request, None)
    except Exception:
        pass
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def _as_unavailable(exc: BaseException, kind: str) -> BaseException:
    from simtviz.backends.base import DEVICE_WORDS, BackendKind
    from simtviz.core.errors import BackendUnavailable, SimtvizError

    if isinstance(exc, SimtvizError):
        return exc
    where = DEVICE_WORDS[BackendKind(kind)]
    return BackendUnavailable(f"the traced kernel's process could not start {where}: {exc}")


if __name__ == "__main__":
    sys.exit(main())
