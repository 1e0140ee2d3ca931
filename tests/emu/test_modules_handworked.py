"""Reading a kernel's module as text (emu/modules.py): imports, module constants, what a kernel
cannot use from them, and the words the emulator gives for it. Values worked out by hand."""

from __future__ import annotations

import numpy as np

from emu_source import refused_source as refused
from emu_source import run_source as run


def test_numpy_and_numba_cuda_imported_under_any_name() -> None:
    # np.float32(7) / 2 = 3.5; np.sqrt(16.0) = 4.0; numba.cuda imported as nc gives the kernel's
    # decorator and thread index: out[i] = i * 10 + 3.5 + 4.0 for i = 0, 1, 2.
    out = np.zeros(3, np.float64)
    run(
        """
        import numba.cuda as nc
        import numpy as np

        @nc.jit
        def k(out):
            i = nc.threadIdx.x
            out[i] = i * 10 + np.float32(7) / 2 + np.sqrt(16.0)
        """,
        3, out,
    )  # fmt: skip
    assert out.tolist() == [7.5, 17.5, 27.5]


def test_module_constants_unpacked_from_a_tuple() -> None:
    # ROWS, COLS = 4, 8 at the top: out[0] = 4 * 10 + 8 = 48. The line X, Y = foo() above it has
    # no value (foo is defined nowhere) and does not stop the module from being read.
    out = np.zeros(1, np.int64)
    run(
        """
        from numba import cuda

        X, Y = foo()
        ROWS, COLS = 4, 8

        @cuda.jit
        def k(out):
            out[0] = ROWS * 10 + COLS
        """,
        1, out,
    )  # fmt: skip
    assert out[0] == 48


def test_a_package_the_emulator_does_not_read_is_named() -> None:
    # line 5 uses scipy (import scipy) or erf (from scipy.special import erf) in each kernel.
    out = np.zeros(4)
    err = refused("from numba import cuda\nimport scipy\n@cuda.jit\ndef k(out):\n    out[0] = scipy.x\n", out)
    assert (err.construct, err.line) == ("scipy.x", 5)
    err = refused(
        "from numba import cuda\nfrom scipy.special import erf\n"
        "@cuda.jit\ndef k(out):\n    out[0] = erf(1.0)\n",
        out,
    )
    assert (err.construct, err.line) == ("the module scipy.special", 5)


def test_a_name_missing_from_a_simtviz_module_is_named() -> None:
    # simtviz.core.errors has no NOT_THERE: line 5 names it.
    err = refused(
        "from numba import cuda\nfrom simtviz.core.errors import NOT_THERE\n"
        "@cuda.jit\ndef k(out):\n    out[0] = NOT_THERE\n",
        np.zeros(4),
    )
    assert (err.construct, err.line) == ("NOT_THERE", 5)


def test_a_relative_import_leaves_its_names_undefined() -> None:
    # from .helpers import scale: the emulator reads one file, so scale is unknown (line 5).
    err = refused(
        "from numba import cuda\nfrom .helpers import scale\n@cuda.jit\ndef k(out):\n    out[0] = scale(1)\n",
        np.zeros(4),
    )
    assert (err.construct, err.line) == ("the name scale", 5)


def test_a_module_constant_without_a_value_says_why() -> None:
    # X = foo() at the top: foo is defined nowhere, so X has no value; the kernel's line 5 says so.
    err = refused("from numba import cuda\nX = foo()\n@cuda.jit\ndef k(out):\n    out[0] = X\n", np.zeros(4))
    assert (err.construct, err.line) == ("foo() (name 'foo' is not defined)", 5)
    # an if at the top whose test has no value runs neither branch: X is defined by neither
    err = refused(
        "from numba import cuda\nif foo():\n    X = 1\nelse:\n    X = 2\n"
        "@cuda.jit\ndef k(out):\n    out[0] = X\n",
        np.zeros(4),
    )
    assert (err.construct, err.line) == ("the name X", 8)


def test_the_trace_helpers_load_gives_zero_of_the_arrays_type_out_of_bounds() -> None:
    # The traced kernels' tv_load1 (simtviz.kernels.trace_helpers) on a of 3 int32 [5, 6, 7] at
    # i + 1 for i = 0..3: lanes 0, 1 read a[1], a[2] = 6, 7; lanes 2, 3 read a[3], a[4], outside:
    # 0 of a's type. Every lane then reads a[i + 9], outside for all: 0.
    a = np.array([5, 6, 7], np.int32)
    out = np.full((2, 4), -1, np.int64)
    log = np.zeros((8, 16), np.int64)
    count = np.zeros(2, np.int64)
    run(
        """
        from numba import cuda
        from simtviz.kernels.trace_helpers import tv_load1, tv_thread_id

        @cuda.jit
        def k(a, out, log, count):
            i = cuda.threadIdx.x
            tid = tv_thread_id(0, 1)
            out[0, i] = tv_load1(a, i + 1, log, count, tid, 0, 0, 0)
            out[1, i] = tv_load1(a, i + 9, log, count, tid, 0, 1, 0)
        """,
        4, a, out, log, count,
    )  # fmt: skip
    assert out.tolist() == [[6, 7, 0, 0], [0, 0, 0, 0]]
    assert count.tolist() == [0, 8]  # 8 loads logged, none by a thread outside the window
