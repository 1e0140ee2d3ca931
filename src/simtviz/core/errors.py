"""Errors raised by the core and backends, with the data a message needs, and one table of words.

Exceptions carry facts (threads, estimate, limit, bytes); ``describe(exc)`` turns any of them
into an ``ErrorReport`` (exit code, title, what happened, what to do). The CLI and the desktop
app word their messages from it and add only their own verb ("use --force" / "Run it anyway?").
"""

from __future__ import annotations

from dataclasses import dataclass

from simtviz.core.estimates import format_duration
from simtviz.core.files import ExportError, FileReadError
from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import LimitViolation, explain
from simtviz.core.trace.args import ArgSpecError
from simtviz.core.trace.model import KernelCompileError, TopLevelError
from simtviz.core.trace.source import TraceUnsupported

# Exit statuses of the command line (docs/CONTRACT.md).
EXIT_OK, EXIT_CHECK_FAILED, EXIT_USAGE, EXIT_REJECTED, EXIT_TOO_LARGE = 0, 1, 2, 3, 4
EXIT_NOT_AVAILABLE = 5  # not available on this backend (a schedule on the simulator)
EXIT_INTERRUPTED = 130
EXIT_TIME_LIMIT = 6  # a traced kernel stopped at its time limit (docs/CONTRACT.md, additions)

SYNTAX_ADVICE = (
    "Python cannot read that line: look for a missing colon, bracket or quote, or wrong indentation "
    "(on the line itself or the one before it)."
)
RESTART_ADVICE = "CUDA cannot recover from this in the same process: restart simtviz."


class SimtvizError(Exception):
    """Base of every error simtviz reports to a user in words, without a traceback."""


class BackendChoiceError(SimtvizError, ValueError):
    """An unknown backend name, or a switch after numba was already imported the other way."""


class LaunchRejected(SimtvizError):
    """The launch was refused: by the driver (GPU) or, with the driver's text, by the sim backend.

    ``driver_text`` is the exception text verbatim; ``violations`` say which limit was broken.
    """

    def __init__(
        self,
        driver_text: str,
        config: LaunchConfig,
        violations: list[LimitViolation],
        exception_type: str,
        launch_line: str = "",
        traceback_text: str = "",
        source: str = "",
    ) -> None:
        super().__init__(driver_text)
        self.driver_text = driver_text
        self.config = config
        self.violations = violations
        self.exception_type = exception_type
        self.launch_line = launch_line or config.launch_line()
        self.traceback_text = traceback_text
        # Who refused it, in words: the CUDA driver, numba, or the sim backend speaking for them.
        self.source = source or ("numba" if exception_type == "ValueError" else "the CUDA driver")

    @property
    def explanation(self) -> str:
        return explain(self.violations) or "The driver did not say which limit; see the details."

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        # Crosses a process boundary (the traced kernel's child process) with all its fields.
        return (
            LaunchRejected,
            (self.driver_text, self.config, self.violations, self.exception_type,
             self.launch_line, self.traceback_text, self.source),
        )  # fmt: skip


class LaunchTooLarge(SimtvizError):
    """A valid launch that would take too long here to run without confirmation.

    ``str()`` states the facts only; the CLI adds "use --force", the app asks "Run it anyway?".
    ``subject`` names a program that runs several launches (``vecadd``); ``smaller`` is how to
    ask for less on the command line (``a smaller --n``); ``detail``, what those threads are and
    how to ask for fewer in the app, in the experiment's own words (the app's "Run it anyway?"
    shows it under the facts).
    """

    def __init__(
        self,
        threads: int,
        estimate_s: float | None,
        limit: int,
        where: str,
        subject: str = "",
        smaller: str = "",
        detail: str = "",
    ) -> None:
        super().__init__(threads, estimate_s, limit, where, subject, smaller, detail)
        self.threads = threads
        self.estimate_s = estimate_s
        self.limit = limit
        self.where = where
        self.subject = subject
        self.smaller = smaller
        self.detail = detail

    def __str__(self) -> str:
        eta = format_duration(self.estimate_s) if self.estimate_s is not None else "a long time"
        if self.subject:
            head = f"{self.subject} would run {self.threads:,} simulated threads, about {eta} on {self.where}"
        else:
            head = f"{self.threads:,} threads would take about {eta} on {self.where}"
        return f"{head} (it runs up to {self.limit:,} without asking)"


class OutOfDeviceMemory(SimtvizError):
    """The GPU has too little free memory for the run; ``forcible`` when only a safety margin says so."""

    def __init__(
        self,
        bytes_needed: int,
        bytes_free: int | None,
        what: str,
        detail: str = "",
        forcible: bool = False,
        smaller: str = "",
    ) -> None:
        super().__init__(bytes_needed, bytes_free, what, detail, forcible, smaller)
        self.bytes_needed = bytes_needed
        self.bytes_free = bytes_free
        self.what = what
        self.detail = detail
        self.forcible = forcible
        self.smaller = smaller

    def __str__(self) -> str:
        if self.bytes_free is not None:
            text = (
                f"{self.what} needs {self.bytes_needed / 1e9:.1f} GB of GPU memory and "
                f"{self.bytes_free / 1e9:.1f} GB are free"
            )
        else:
            text = f"the GPU has too little free memory to {self.what} ({self.bytes_needed / 2**30:.1f} GiB)"
        return f"{text} — CuPy said: {self.detail}" if self.detail else text


class BackendUnavailable(SimtvizError):
    """The requested backend cannot run on this machine (no GPU, no driver, no CuPy)."""


class EmulatorUnsupported(SimtvizError):
    """The CPU emulator met a construct it cannot run; the backend then runs numba's simulator.

    ``construct`` names it in words (``"cuda.shfl_sync"``), ``line`` is the source line, if known.
    """

    def __init__(self, construct: str, line: int | None = None) -> None:
        where = f"line {line}: " if line else ""
        super().__init__(f"{where}the CPU emulator cannot run {construct}")
        self.construct = construct
        self.line = line

    def __reduce__(self) -> tuple[type[EmulatorUnsupported], tuple[str, int | None]]:
        # Carried back from the traced kernel's child process whole (construct and line).
        return (type(self), (self.construct, self.line))


class NotAvailableHere(SimtvizError):
    """What was asked for needs something this backend lacks (a GPU's SMs and clock, say)."""


class NothingToMeasure(NotAvailableHere):
    """The schedule needs SM ids and a GPU clock; the CUDA simulator has neither."""


class Cancelled(SimtvizError):
    """The user cancelled a run."""


class BeyondDeviceLimits(SimtvizError):
    """An occupancy question no block of this device can be asked (more threads, registers or
    shared memory than it allows); the message names the limit."""


class RecordFileError(SimtvizError):
    """A file that is not a simtviz record (not an .npz, a key missing, damaged, or pickled objects)."""


class KernelFailed(SimtvizError):
    """The kernel itself raised (the simulator's IndexError) or the GPU reported an error after launch.

    ``needs_restart``: the error was a sticky CUDA error; the context is unusable from now on.
    ``line``: the student's line where it was raised (0: unknown), highlighted by the app.
    """

    def __init__(self, message: str, needs_restart: bool = False, line: int = 0) -> None:
        super().__init__(message, needs_restart, line)
        self.message = message
        self.needs_restart = needs_restart
        self.line = line

    def __str__(self) -> str:
        return self.message


class TimeLimitReached(SimtvizError):
    """A run in a child process (the student's traced kernel) was still going at its time limit
    and was killed: an endless loop, or a launch too long for the limit.

    ``phase``: what the run was doing then, so that the words blame the right thing: "prepare"
    (reading the file), "arrays" (building the arguments), "module" (the file's top-level code),
    "kernel" or "" (compiling and running the kernel), "analysis" (simtviz's own analysis).
    """

    def __init__(self, seconds: float, what: str = "the kernel", phase: str = "") -> None:
        super().__init__(seconds, what, phase)
        self.seconds = seconds
        self.what = what
        self.phase = phase

    def __str__(self) -> str:
        doing = {
            "prepare": "reading and checking the file",
            "arrays": "building the arrays (the kernel had not started)",
            "module": "the file's top-level code (imports, defaults, decorators: the kernel had not started)",
            "analysis": "the analysis of the log (the kernel had finished)",
        }.get(self.phase)
        if doing:
            return (
                f"{doing} was still going after {self.seconds:g} s and the process was ended; "
                "the app keeps running"
            )
        return (
            f"{self.what} was still running after {self.seconds:g} s and its process was ended; "
            "the app keeps running"
        )


@dataclass(frozen=True, slots=True)
class ErrorReport:
    """What to tell a user about an error: the CLI's exit code and a dialog's title and texts."""

    exit_code: int
    title: str
    what: str
    todo: str


# Exception type → (exit code, title, what to do). Looked up along the type's MRO, so a
# subclass without its own row reads its parent's.
ERROR_TABLE: dict[type[BaseException], tuple[int, str, str]] = {
    LaunchRejected: (
        EXIT_REJECTED,
        "Launch rejected",
        "Change the grid or block to fit the device's limits.",
    ),
    LaunchTooLarge: (EXIT_TOO_LARGE, "A long run", "Run it anyway, or launch fewer threads."),
    OutOfDeviceMemory: (
        EXIT_TOO_LARGE,
        "Not enough GPU memory",
        "Ask for less: fewer threads, or a smaller recording.",
    ),
    BackendUnavailable: (
        EXIT_REJECTED,
        "No GPU",
        "Run with --backend sim to use the CUDA simulator on the CPU.",
    ),
    NothingToMeasure: (
        EXIT_NOT_AVAILABLE,
        "Nothing to measure here",
        "Run it on a GPU, or open a schedule saved on one (.npz).",
    ),
    NotAvailableHere: (EXIT_NOT_AVAILABLE, "Not available on this backend", ""),
    EmulatorUnsupported: (
        EXIT_NOT_AVAILABLE,
        "Not supported by the CPU emulator",
        "Run it with --backend sim (numba's CUDA simulator) or on a GPU.",
    ),
    KernelFailed: (EXIT_CHECK_FAILED, "The kernel failed", ""),
    Cancelled: (EXIT_CHECK_FAILED, "Cancelled", ""),
    TimeLimitReached: (
        EXIT_TIME_LIMIT,
        "Stopped at the time limit",
        "Look for a loop that never ends (a while whose condition never changes), "
        "or raise the time limit (--timeout, or Settings in the Your kernel tab).",
    ),
    BackendChoiceError: (EXIT_USAGE, "Backend", ""),
    # The student's kernel file and its arguments (simtviz trace, the Your kernel tab).
    TraceUnsupported: (EXIT_USAGE, "Not traced", "Rewrite that line with plain element accesses."),
    TopLevelError: (
        EXIT_USAGE,
        "The file's top-level code failed",
        "Imports, default values and decorators run before the kernel: fix that line and run again.",
    ),
    KernelCompileError: (EXIT_USAGE, "The kernel does not compile", "Fix that line and run again."),
    ArgSpecError: (EXIT_USAGE, "Bad argument", ""),
    ExportError: (EXIT_USAGE, "Could not save", "Choose another file or folder."),
    FileReadError: (EXIT_USAGE, "Could not open", "Choose a regular file (one you saved)."),
    BeyondDeviceLimits: (EXIT_USAGE, "Beyond the device's limits", ""),
    RecordFileError: (
        EXIT_USAGE,
        "Not a simtviz record",
        "Open an .npz written by 'simtviz record' or File → Export records.",
    ),
    MemoryError: (
        EXIT_TOO_LARGE,
        "Not enough memory",
        "Ask for less: fewer threads, or a smaller recording.",
    ),
    SimtvizError: (EXIT_USAGE, "simtviz", ""),
}


def describe(exc: BaseException) -> ErrorReport:
    """The report for ``exc``; raises KeyError for an error simtviz does not expect (a bug)."""
    for cls in type(exc).__mro__:
        if cls in ERROR_TABLE:
            code, title, todo = ERROR_TABLE[cls]
            break
    else:
        raise KeyError(f"no report for {type(exc).__name__}")
    what = str(exc)
    if isinstance(exc, LaunchRejected):
        what = f"{exc.driver_text}\n{exc.explanation}"
    elif isinstance(exc, KernelFailed) and exc.needs_restart:
        todo = RESTART_ADVICE
    elif isinstance(exc, OutOfDeviceMemory) and exc.smaller:
        todo = f"Try {exc.smaller}."
    elif isinstance(exc, MemoryError):
        what = "not enough memory for this run"
    elif isinstance(exc, TimeLimitReached) and exc.phase == "arrays":
        todo = (
            "Make the arrays smaller (their shapes in --arg or the arguments table), or raise the time limit."
        )
    elif isinstance(exc, TimeLimitReached) and exc.phase in ("module", "prepare"):
        todo = "Look at the file's top-level code (outside the kernel), or raise the time limit."
    elif isinstance(exc, TraceUnsupported) and exc.message.startswith("syntax error"):
        title, todo = "Syntax error", SYNTAX_ADVICE  # Python cannot read the file: no construct to rewrite
    elif isinstance(exc, TraceUnsupported) and not exc.line:
        todo = ""  # about the file as a whole (no kernel, several kernels): its message says what to do
    return ErrorReport(code, title, what, todo)
