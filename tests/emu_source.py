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
