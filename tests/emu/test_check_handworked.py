"""What the emulator refuses before running, and the words and line it names (emu/check.py).

Each kernel is a few lines; the construct and line are read off the source by hand. A refusal
from ``check_kernel`` comes before any array changed, so the backend can run numba's simulator
instead on the same arrays."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from simtviz import emu
from simtviz.core.errors import EmulatorUnsupported

HEAD = "from numba import cuda\n"


def refused(source: str, *args: object, kernel: str | None = None) -> EmulatorUnsupported:
    module = emu.load_source(textwrap.dedent(source), "k.py")
    with pytest.raises(EmulatorUnsupported) as info:
        emu.launch(module, kernel, 1, 4, list(args))
    return info.value


def test_an_undefined_global_is_named_with_its_line() -> None:
    # line 1 the import, 2 the decorator, 3 def, 4 the load of a name defined nowhere.
    out = np.zeros(4, np.int64)
    err = refused(HEAD + "@cuda.jit\ndef k(out):\n    out[0] = nothere\n", out)
    assert (err.construct, err.line) == ("the name nothere", 4)
    # called rather than read: the same words (not "calling nothere()")
    err = refused(HEAD + "@cuda.jit\ndef k(out):\n    out[0] = 1\n    nothere(1)\n", out)
    assert (err.construct, err.line) == ("the name nothere", 5)
    assert out.tolist() == [0, 0, 0, 0]  # refused before line 4's store ran


def test_an_attribute_of_a_number_is_refused_before_any_store() -> None:
    # SIZE is a module constant (an int64); SIZE.real is line 6, after the store on line 5.
    # Refused by the check, before running: out keeps its zeros.
    out = np.zeros(4, np.int64)
    err = refused(HEAD + "SIZE = 16\n@cuda.jit\ndef k(out):\n    out[0] = 5\n    out[1] = SIZE.real\n", out)
    assert (err.construct, err.line) == ("SIZE.real", 6)
    assert out.tolist() == [0, 0, 0, 0]
    # called: named as the attribute, not as "calling SIZE.bit_length()"
    err = refused(HEAD + "SIZE = 16\n@cuda.jit\ndef k(out):\n    out[0] = SIZE.bit_length()\n", out)
    assert (err.construct, err.line) == ("SIZE.bit_length", 5)


def test_calling_a_thread_index_names_the_call() -> None:
    # cuda.threadIdx.x is a number, not a function: "cuda.threadIdx.x()" on line 4.
    err = refused(HEAD + "@cuda.jit\ndef k(out):\n    x = cuda.threadIdx.x()\n", np.zeros(4))
    assert (err.construct, err.line) == ("cuda.threadIdx.x()", 4)


def test_calling_a_kernel_or_a_plain_function_from_a_kernel() -> None:
    # k2 is a kernel (line 7 calls it); h a plain def without @cuda.jit (line 6 calls it).
    out = np.zeros(4, np.int64)
    err = refused(
        HEAD + "@cuda.jit\ndef k2(out):\n    pass\n@cuda.jit\ndef k(out):\n    k2(out)\n", out, kernel="k"
    )
    assert (err.construct, err.line) == ("k2() (a kernel)", 7)
    err = refused(HEAD + "def h(x):\n    return x\n@cuda.jit\ndef k(out):\n    out[0] = h(1)\n", out)
    assert (err.construct, err.line) == ("h() (not a @cuda.jit(device=True) function)", 6)


def test_a_device_function_is_checked_too_with_its_own_line() -> None:
    # The device function f (lines 3-5) uses a slice on line 5; the kernel calls it on line 9.
    source = HEAD + (
        "@cuda.jit(device=True)\n"
        "def f(a):\n"
        "    x = 1\n"
        "    return a[0:2]\n"
        "@cuda.jit\n"
        "def k(a):\n"
        "    i = cuda.threadIdx.x\n"
        "    a[i] = f(a)\n"
    )
    err = refused(source, np.zeros(4))
    assert (err.construct, err.line) == ("a slice", 5)
