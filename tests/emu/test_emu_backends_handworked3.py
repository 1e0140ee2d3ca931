"""A traced kernel that raises on the CPU emulator names its line as the simulator does: in the
words and as the line the editor marks (``KernelFailed.line``; 0 would mark none)."""

from __future__ import annotations

import pytest

from simtviz.backends.trace.emu import run_trace_emu
from simtviz.core.errors import KernelFailed
from simtviz.core.trace.model import TraceRequest

# line 1 the import, 2-3 blank, 4 the decorator, 5 the def, 6 i = cuda.grid(1), 7 the store
SOURCE = "from numba import cuda\n\n\n@cuda.jit\ndef k(A):\n    i = cuda.grid(1)\n    A[i] = 1 // (i - i)\n"


def test_a_division_by_zero_fails_on_line_7_and_marks_line_7() -> None:
    # thread 0 divides 1 by i - i = 0 at line 7 (an access past an array is recorded, not raised)
    with pytest.raises(KernelFailed) as raised:
        run_trace_emu(TraceRequest(SOURCE, (1, 1, 1), (4, 1, 1), {"A": "int32[4]"}))
    assert str(raised.value).startswith("line 7: ZeroDivisionError")
    assert (raised.value.line, raised.value.needs_restart) == (7, False)
