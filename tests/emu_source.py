"""Running a kernel's source on the CPU emulator in a test (tests/emu/test_*_handworked.py)."""

from __future__ import annotations

import textwrap

from simtviz import emu


def launch_source(
    source: str, grid: object, block: object, *args: object, kernel: str | None = None, **options: object
) -> emu.LaunchStats:
    """Load ``source`` (indented as in the test) as a module and launch its kernel on ``args``."""
    module = emu.load_source(textwrap.dedent(source), "k.py")
    return emu.launch(module, kernel, grid, block, list(args), **options)  # type: ignore[arg-type]


def run_source(source: str, block: int, *args: object, kernel: str | None = None) -> None:
    """``launch_source`` on one block of ``block`` threads."""
    launch_source(source, 1, block, *args, kernel=kernel)


def refused_source(source: str, *args: object, kernel: str | None = None) -> emu.EmulatorUnsupported:
    """What the emulator says when it refuses ``source`` (one block of 4 threads)."""
    try:
        run_source(source, 4, *args, kernel=kernel)
    except emu.EmulatorUnsupported as exc:
        return exc
    raise AssertionError("the emulator ran a kernel it should refuse")
