"""Run the chapter's own lines one at a time and record what each does (no student code here).

§2.2.3.1 prints three lines that fail for three different reasons; running them line by line
shows which line fails and with which error, on whatever backend this is.
"""

from __future__ import annotations

from typing import Any

from simtviz.backends.lesson.common import exception_text

# §2.2.3.1 exactly as printed (its comments dropped).
CREATING_ARRAYS = (
    "A_device = cp.zeros((1024, 1024))",
    "B_device = cp.rand.random((2**20), dtype=np.double)",
    "C_device = cp.zeros_like(A)",
)


def run_lines(lines: tuple[str, ...], namespace: dict[str, Any]) -> list[dict[str, Any]]:
    """Each line's outcome: ``{line, ok, error}``; ``dtype`` too when the line made an array."""
    outcomes = []
    for line in lines:
        outcome: dict[str, Any] = {"line": line, "ok": True, "error": None}
        try:
            exec(compile(line, "<chapter>", "exec"), namespace)
            target = line.split("=", 1)[0].strip()
            dtype = getattr(namespace.get(target), "dtype", None)
            if dtype is not None:
                outcome["dtype"] = str(dtype)
        except Exception as exc:  # the point is to show the error, whatever it is
            outcome["ok"] = False
            outcome["error"] = exception_text(exc)
        outcomes.append(outcome)
    return outcomes
