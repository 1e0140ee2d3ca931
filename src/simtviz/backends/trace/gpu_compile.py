"""Would a GPU compile it? The student's kernel is compiled to PTX by numba-cuda before any backend
runs it, and refused on every backend when it does not compile.

numba's CUDA simulator runs each thread as plain Python, so it happily runs kernels that no GPU
compiles (``random.random()``, ``np.linalg.norm(a)``): the lesson would be wrong. ``compile_ptx``
needs no GPU and no driver (the ``[cu12]`` extra brings NVVM), but it needs numba *not* simulated,
and the simulator's process imported numba with ``NUMBA_ENABLE_CUDASIM=1``. So:

- the GPU's own child compiles in its process (``verify`` with no checker);
- every other child starts a *checker* (``python -m simtviz.backends.trace.gpu_compile``, numba
  real) as it starts itself, so numba's import and NVVM's first compile are done by Run
  (``start_checker``); it compiles one kernel and is gone with the child;
- verdicts are cached on disk by a hash of the source, the kernel, its argument types and the
  target, so a kernel run again is not compiled again (``SIMTVIZ_CACHE_DIR`` moves the cache);
- where numba-cuda cannot compile for a GPU at all (no CUDA wheels, no NVVM), the check is skipped
  and the run's notes say so once (a marker in the cache, renewed weekly).

The compiled module is the rewrite's *plain* module (``trace_rewrite.plain_module``): imports,
constants, functions; the student's launch code never runs.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from simtviz.core.trace.model import KernelCompileError, TraceRequest
from simtviz.core.trace.source import TraceUnsupported, parse

# The target when no GPU says its own: the oldest compute capability numba-cuda 0.30 compiles for.
CHECK_CC = (7, 5)
CHECK_TIMEOUT_S = 120.0
UNAVAILABLE_MARKER = "gpu-compile-unavailable.json"
UNAVAILABLE_RENEW_S = 7 * 24 * 3600
CACHE_KEEP = 2000  # verdicts kept on disk
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_NUMBA = {"float32": "float32", "float64": "float64", "int32": "int32", "int64": "int64"}


@dataclass(frozen=True)
class Verdict:
    """``ok``; else ``line`` (0: unknown) and ``message`` in words; ``unavailable`` says why the
    check could not run here at all (then ``ok`` is True: nothing is refused for it)."""

    ok: bool
    line: int = 0
    message: str = ""
    unavailable: str = ""
    machine: bool = False  # unavailable for every kernel on this machine (remembered, said once)

    def error(self) -> KernelCompileError:
        return KernelCompileError(self.line, self.message)


# --- what is compiled --------------------------------------------------------------------------


def signature(request: TraceRequest) -> str:
    """numba's signature of the kernel for the request's arguments, in the kernel's order
    (C-contiguous arrays and NumPy scalars: what the runners pass)."""
    from simtviz.core.trace.args import ArraySpec, match_parameters, parse_args

    fn = request.plan().kernel  # the request's one parse (core/trace/plan.py)
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    parts = []
    for spec in match_parameters(params, parse_args(request.args)):
        if isinstance(spec, ArraySpec):
            parts.append(f"{_NUMBA[spec.dtype]}[{', '.join([':'] * (spec.ndim - 1) + ['::1'])}]")
        else:
            parts.append(_NUMBA[spec.dtype])
    return f"void({', '.join(parts)})"


def _numba_cuda_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("numba-cuda")
    except metadata.PackageNotFoundError:
        return "none"


def cache_dir() -> Path:
    env = os.environ.get("SIMTVIZ_CACHE_DIR")
    if env:
        return Path(env)
    if sys.platform == "win32":  # pragma: no cover
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    elif sys.platform == "darwin":  # pragma: no cover
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "simtviz"


def cache_key(request: TraceRequest, sig: str, cc: tuple[int, int]) -> str:
    text = json.dumps(
        [_numba_cuda_version(), list(cc), request.kernel, request.filename, sig, request.source]
    )
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _cache_file(key: str) -> Path:
    return cache_dir() / "gpu-compile" / f"{key}.json"


def read_cached(key: str) -> Verdict | None:
    try:
        data = json.loads(_cache_file(key).read_text(encoding="utf-8"))
        return Verdict(bool(data["ok"]), int(data["line"]), str(data["message"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Atomically, and silently not at all where the cache cannot be written."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, path)


def write_cached(key: str, verdict: Verdict) -> None:
    if not verdict.unavailable:
        _write_json(_cache_file(key), {"ok": verdict.ok, "line": verdict.line, "message": verdict.message})
        _prune(_cache_file(key).parent)


def _prune(folder: Path) -> None:
    """At most CACHE_KEEP verdicts (a few hundred bytes each): the oldest half goes beyond that."""
    with contextlib.suppress(OSError):
        files = list(folder.glob("*.json"))
        if len(files) > CACHE_KEEP:
            files.sort(key=lambda f: (f.stat().st_mtime_ns, f.name))
            for f in files[: len(files) - CACHE_KEEP // 2]:
                f.unlink(missing_ok=True)


def _unavailable_known() -> bool:
    path = cache_dir() / UNAVAILABLE_MARKER
    try:
        return time.time() - path.stat().st_mtime < UNAVAILABLE_RENEW_S
    except OSError:
        return False


def _remember_unavailable(reason: str) -> None:
    _write_json(cache_dir() / UNAVAILABLE_MARKER, {"reason": reason, "numba_cuda": _numba_cuda_version()})


def unavailable_note(reason: str) -> str:
    return (
        "Not checked that a GPU would compile this kernel: numba-cuda cannot compile for a GPU on "
        f"this machine ({reason}). The simulator runs some Python a GPU would refuse."
    )


# --- compiling (numba real, in this process) ------------------------------------------------------


@contextlib.contextmanager
def _student_file(request: TraceRequest) -> Iterator[Path]:
    """The student's source in a temporary file of its own name: numba quotes its lines from it."""
    folder = Path(tempfile.mkdtemp(prefix="simtviz-ptx-"))
    stem = "".join(c if c.isalnum() else "_" for c in Path(request.filename).stem) or "kernel"
    path = folder / f"{stem}.py"
    path.write_text(request.source, encoding="utf-8")
    try:
        yield path
    finally:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


def compile_here(request: TraceRequest, sig: str, cc: tuple[int, int] | None) -> Verdict:
    """Compile the request's kernel to PTX in this process (numba must not be simulated).
    ``cc`` None: the current device's. A module that fails before compiling (an import the
    student's file needs) is left to the run to report."""
    from numba import cuda

    from simtviz.backends.trace.prepare import phase
    from simtviz.kernels.trace_helpers import device_cc

    tree, name = request.plan().plain_module()
    with _student_file(request) as path:
        module = types.ModuleType(f"simtviz_ptx_{hashlib.sha1(str(path).encode()).hexdigest()[:10]}")
        module.__file__ = str(path)
        sys.modules[module.__name__] = module
        try:
            # the student's top-level code runs here (in the GPU's child): a stop at the time limit
            # must blame it, not "reading and checking the file"
            phase("module")
            try:
                exec(compile(tree, str(path), "exec"), module.__dict__)
            except Exception:
                return Verdict(True)
            finally:
                phase("prepare")
            pyfunc = getattr(module, name).py_func
            try:
                if cc is None:
                    cuda.compile_ptx_for_current_device(pyfunc, sig)
                else:
                    with device_cc(cc):
                        cuda.compile_ptx(pyfunc, sig, cc=cc)
            except Exception as exc:
                if _is_unavailable(exc):
                    return Verdict(True, unavailable=_first_line(exc), machine=True)
                return explain(exc, str(path), request)
        finally:
            sys.modules.pop(module.__name__, None)
    return Verdict(True)


def _first_line(exc: BaseException) -> str:
    text = _ANSI.sub("", str(exc)).strip()
    return (text.splitlines() or [type(exc).__name__])[0]


def _is_unavailable(exc: BaseException) -> bool:
    """NVVM (or CUDA's libraries) missing: this machine cannot compile for any kernel."""
    text = f"{type(exc).__name__} {exc}".lower()
    return any(w in text for w in ("nvvm", "libcudadevrt", "cudasupporterror", "nvrtc"))


def explain(exc: BaseException, path: str, request: TraceRequest) -> Verdict:
    """numba's error in a beginner's words, with the student's line (``gpu_compile_words``)."""
    from simtviz.backends.trace.gpu_compile_words import explain_words

    return Verdict(False, *explain_words(exc, path, request))


# --- the checker process (numba real) ---------------------------------------------------------


def checker_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    import simtviz

    src = os.path.dirname(os.path.dirname(os.path.abspath(simtviz.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH", "")) if p)
    return env


class Checker:
    """A checker process started now; ``ask`` sends it one request."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "simtviz.backends.trace.gpu_compile", str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=checker_env(),
        )

    def ask(self, request: TraceRequest, sig: str, tick: Callable[[], None] | None = None) -> Verdict:
        from simtviz.backends.isolated_child import read_message, write_message

        assert self.proc.stdin is not None and self.proc.stdout is not None
        box: list[Any] = []

        def read() -> None:
            with contextlib.suppress(Exception):
                stream: IO[bytes] = self.proc.stdout  # type: ignore[assignment]
                while True:
                    message = read_message(stream)
                    if message[0] != "ready":
                        box.append(message)
                        return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        with contextlib.suppress(OSError):  # a checker that died: answered "did not answer"
            write_message(self.proc.stdin, (request, sig, CHECK_CC), threading.Lock())
        deadline = time.monotonic() + CHECK_TIMEOUT_S
        while reader.is_alive() and time.monotonic() < deadline:
            reader.join(0.5)
            if tick is not None:
                tick()
        self.close()
        if not box:
            return Verdict(True, unavailable="the compile check did not answer")
        message = box[0]
        if message[0] == "unavailable":
            return Verdict(True, unavailable=str(message[1]), machine=bool(message[2]))
        return Verdict(bool(message[1]), int(message[2]), str(message[3]))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.proc.kill()
            self.proc.wait(5)
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(Exception):
                stream.close()  # type: ignore[union-attr]


# Set by the parent in a child's environment (``child_env``) when the child's request is known
# as it starts and needs no checker ahead: its verdict is cached (numba-cuda's import, ~0.9 s
# CPU, is skipped) or it is not one kernel. A missing verdict still starts one (``verify``).
ON_DEMAND = "SIMTVIZ_GPU_CHECKER_ON_DEMAND"


def child_env(kind: str, request: object) -> dict[str, str]:
    """The environment a child of ``kind`` started for ``request`` needs from this module."""
    if kind == "gpu":
        return {}
    if isinstance(request, TraceRequest):
        try:
            if read_cached(cache_key(request, signature(request), CHECK_CC)) is None:
                return {}
        except Exception:  # a request the run refuses, in its own words
            return {}
    return {ON_DEMAND: "1"}


def start_checker(kind: str, ahead: bool = True) -> Checker | None:
    """The checker for a child of backend ``kind``, started now (None: the GPU's child compiles
    itself; numba-cuda is known not to compile here; or, ``ahead``, none is needed yet)."""
    if kind == "gpu" or _unavailable_known() or (ahead and os.environ.get(ON_DEMAND)):
        return None
    try:
        return Checker()
    except OSError:
        return None


def verify(
    request: TraceRequest,
    kind: str,
    checker: Checker | None,
    tick: Callable[[], None] | None = None,
) -> str | None:
    """Refuse (KernelCompileError) a kernel a GPU would not compile; returns a note for the run
    when the check could not be made here, else None. Errors in the request itself (arguments,
    kernel name) are left to the runner, which says them in its own words."""
    try:
        sig = signature(request)
    except Exception:
        if checker is not None:
            checker.close()
        return None
    cc: tuple[int, int] | None = None if kind == "gpu" else CHECK_CC
    if kind == "gpu":
        try:
            from numba import cuda

            cc = tuple(cuda.get_current_device().compute_capability)
        except Exception:  # no device after all: the run itself says so, in its words
            return None
    assert cc is not None
    key = cache_key(request, sig, cc)
    verdict = read_cached(key)
    if verdict is None:
        if kind == "gpu":
            try:
                verdict = compile_here(request, sig, None)
            except Exception as exc:  # simtviz's own trouble: never refuse a kernel for it
                verdict = Verdict(True, unavailable=f"{type(exc).__name__}: {_first_line(exc)}")
        elif checker is not None or (checker := start_checker(kind, ahead=False)) is not None:
            verdict = checker.ask(request, sig, tick)
        elif _unavailable_known():
            return None  # said once already
        else:
            verdict = Verdict(True, unavailable="the compile check could not start")
        write_cached(key, verdict)
    if checker is not None:
        checker.close()
    if verdict.unavailable:
        if verdict.machine:
            _remember_unavailable(verdict.unavailable)
        return unavailable_note(verdict.unavailable)
    if not verdict.ok:
        raise verdict.error()
    return None


_GPU_CALLS = {"cuda", "numba", "range", "len", "min", "max", "abs", "int", "float", "bool"}


def worth_asking(refusal: BaseException, source: str) -> bool:
    """The tracer refused a line that calls something a GPU may refuse for a reason of its own
    (``np.linalg.norm(a)``; not ``cuda.*`` or a builtin numba-cuda compiles): that reason comes
    first. A slice or an attribute the tracer refuses compiles on a GPU: no need to ask."""
    line = getattr(refusal, "line", 0)
    if not line or str(getattr(refusal, "message", "")).startswith("syntax error"):
        return False
    try:
        tree = parse(source)  # the one guarded parse of the student's text
    except TraceUnsupported:  # a syntax error, or a line too deep for Python's parser
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.lineno <= line <= (node.end_lineno or node.lineno):
            root = node.func
            while isinstance(root, ast.Attribute):
                root = root.value
            if not (isinstance(root, ast.Name) and root.id in _GPU_CALLS):
                return True
    return False


def gpu_refusal(request: TraceRequest, refusal: BaseException) -> KernelCompileError | None:
    """For a kernel the tracer refused on one of its lines: numba-cuda's refusal if a GPU would
    not compile it either (the real reason comes first), else None. Compiles in a checker
    process (cached); this process never imports numba."""
    if not worth_asking(refusal, request.source):
        return None
    try:
        sig = signature(request)
    except Exception:
        return None
    key = cache_key(request, sig, CHECK_CC)
    verdict = read_cached(key)
    if verdict is None:
        checker = start_checker("sim")
        if checker is None:
            return None
        verdict = checker.ask(request, sig)
        write_cached(key, verdict)
        if verdict.unavailable:
            return None
    return None if verdict.ok else verdict.error()


def main() -> int:
    """The checker: numba real; says ``ready`` after NVVM's first compile, then answers requests
    ``(TraceRequest, signature, cc)`` with ``("verdict", ok, line, message)`` or
    ``("unavailable", why, for every kernel)``."""
    from simtviz.backends.isolated_child import read_message, write_message

    proto = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    lock = threading.Lock()
    from simtviz.backends.child_limits import end_with_parent

    end_with_parent(int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else None)
    try:
        from numba import config, cuda

        if config.ENABLE_CUDASIM:
            raise RuntimeError("numba is simulated in this process")

        def _warm(a):  # type: ignore[no-untyped-def]
            a[0] = 1.0

        cuda.compile_ptx(_warm, "void(float32[::1])", cc=CHECK_CC)
    except Exception as exc:
        write_message(proto, ("unavailable", f"{type(exc).__name__}: {_first_line(exc)}", True), lock)
        return 0
    write_message(proto, ("ready",), lock)
    stdin = sys.stdin.buffer
    while True:
        try:
            request, sig, cc = read_message(stdin)
        except EOFError:
            return 0
        try:
            verdict = compile_here(request, sig, tuple(cc))
        except Exception as exc:  # simtviz's own trouble: never refuse a kernel for it
            verdict = Verdict(True, unavailable=f"{type(exc).__name__}: {_first_line(exc)}")
        if verdict.unavailable:
            write_message(proto, ("unavailable", verdict.unavailable, verdict.machine), lock)
        else:
            # plain values: run as __main__, this module's classes would not unpickle there
            write_message(proto, ("verdict", verdict.ok, verdict.line, verdict.message), lock)


if __name__ == "__main__":
    sys.exit(main())
