"""Errors raised by the core and backends; the CLI and the dialogs turn them into messages."""

from __future__ import annotations

from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import LimitViolation, explain


class SimtvizError(Exception):
    """Base of every error simtviz reports to a user in words, without a traceback."""


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


class LaunchTooLarge(SimtvizError):
    """A valid launch that would take too long or too much memory here without confirmation."""

    def __init__(self, message: str, estimate_s: float | None = None) -> None:
        super().__init__(message)
        self.estimate_s = estimate_s


class BackendUnavailable(SimtvizError):
    """The requested backend cannot run on this machine (no GPU, no driver, no CuPy)."""


class Cancelled(SimtvizError):
    """The user cancelled a run."""


class KernelFailed(SimtvizError):
    """The kernel itself raised (the simulator's IndexError) or the GPU reported an error after launch."""
