"""Reading the student's module (future imports, constants reassigned, shapes of size 0) and the
block/thread coordinates the trace shows, on non-square shapes where x and y can be swapped."""

from __future__ import annotations

import ast
from types import SimpleNamespace

import numpy as np
import pytest

from simtviz.core.trace.analysis import LOG_FIELDS
from simtviz.core.trace.model import BlockWindow, block_index, window_words
from simtviz.core.trace.rewrite import rewrite_kernel
from simtviz.core.trace.source import TraceUnsupported

FUTURE = '''"""A student's kernel file with a docstring and a future import."""
from __future__ import annotations

from numba import cuda


@cuda.jit
def k(A):
    A[cuda.threadIdx.x] = 1
'''


def test_a_future_import_stays_first_in_the_traced_and_the_plain_module() -> None:
    rw = rewrite_kernel(FUTURE)
    for tree in (rw.tree, rw.plain_tree):
        compile(tree, "kernel.py", "exec")  # a future import after any other import: SyntaxError
        assert isinstance(tree.body[0], ast.Expr)  # the docstring
        first = tree.body[1]
        assert isinstance(first, ast.ImportFrom) and first.module == "__future__"
        assert isinstance(tree.body[2], ast.ImportFrom) and tree.body[2].module == "numba"  # the tracer's


def test_without_a_docstring_the_future_import_is_still_first() -> None:
    rw = rewrite_kernel(FUTURE.split("\n", 1)[1])
    compile(rw.tree, "kernel.py", "exec")
    first = rw.tree.body[0]
    assert isinstance(first, ast.ImportFrom) and first.module == "__future__"


def shared_kernel(top: str, shape: str) -> str:
    return (
        "from numba import cuda, float32\n"
        + top
        + f"\n@cuda.jit\ndef k(A):\n    s = cuda.shared.array({shape}, float32)\n    A[0] = 1\n"
    )


@pytest.mark.parametrize(
    ("top", "shape", "expected"),
    [
        ("TILE = 8\nTILE = 16\n", "TILE", (16,)),  # read at import: the last assignment wins
        ("TILE = 8\nTILE: int = 24\n", "(TILE, 2)", (24, 2)),  # an annotated reassignment too
        ("W = 3\nH = 5\nW = 7\n", "(H, W)", (5, 7)),  # a non-square shape, rows then columns
    ],
)
def test_a_constant_assigned_twice_is_read_from_its_last_assignment(
    top: str, shape: str, expected: tuple[int, ...]
) -> None:
    (s,) = rewrite_kernel(shared_kernel(top, shape)).shared
    assert s.shape == expected


@pytest.mark.parametrize(
    ("shape", "words"),
    [
        ("(4, 0)", "shape (4, 0): every size must be at least 1"),
        ("(0, 4)", "shape (0, 4): every size must be at least 1"),
        ("(2, 3, 0)", "shape (2, 3, 0): every size must be at least 1"),
        ("-1", "shape (-1,): every size must be at least 1"),
        ("0", "size 0 (numba's dynamic shared memory)"),
        ("(0,)", "size 0 (numba's dynamic shared memory)"),
    ],
)
def test_a_shared_array_with_no_elements_is_refused_with_its_line(shape: str, words: str) -> None:
    with pytest.raises(TraceUnsupported) as info:
        rewrite_kernel(shared_kernel("", shape))
    assert info.value.line == 5 and words in str(info.value)  # line 5: the cuda.shared.array line


def test_a_shared_array_of_size_1_is_accepted() -> None:
    (s,) = rewrite_kernel(shared_kernel("", "(1, 1)")).shared
    assert s.shape == (1, 1)


# --- coordinates on a non-square grid and block ------------------------------------------------

GRID = (3, 5, 1)
BLOCK = (48, 2, 1)  # 96 threads: 3 warps per block


def test_the_blockidx_of_a_linear_block_on_a_3_by_5_grid() -> None:
    # x fastest: linear 7 = 1 + 2·3 → (1, 2, 0); 14 = 2 + 4·3 → (2, 4, 0), the last block.
    assert block_index(7, GRID) == (1, 2, 0)
    assert block_index(14, GRID) == (2, 4, 0)
    assert block_index(3, GRID) == (0, 1, 0)
    # grid (3, 5, 2): 17 = 2 + 0·3 + 1·15 → (2, 0, 1)
    assert block_index(17, (3, 5, 2)) == (2, 0, 1)


def test_a_windows_words_name_both_ends_blockidx_on_a_non_square_grid() -> None:
    # blocks 7..10 of 15, 4 × 96 = 384 threads; 10 = 1 + 3·3 → (1, 3, 0).
    assert window_words(BlockWindow(7, 4), GRID, BLOCK) == (
        "blocks 7–10 of 15 (384 threads), blockIdx (1, 2, 0) to (1, 3, 0)"
    )


def test_the_kernel_tabs_thread_words_on_block_48_by_2_grid_3_by_5() -> None:
    from simtviz.qt.tabs.kernel.views import TraceData

    result = SimpleNamespace(
        log=np.zeros((LOG_FIELDS, 0), dtype=np.int64), sites=(), arrays=(), block=BLOCK, grid=GRID
    )
    data = TraceData(result)  # type: ignore[arg-type]
    # thread 722 = block 7 × 96 + inner 50. Block 7 → blockIdx (1, 2, 0). Inner 50 = 2 + 1·48 →
    # threadIdx (2, 1, 0); warp 50 // 32 = 1, lane 50 % 32 = 18.
    assert data.thread_words(722) == "thread 722 (blockIdx (1, 2, 0), threadIdx (2, 1, 0), warp 1, lane 18)"
    # thread 1439 = block 14 × 96 + 95: blockIdx (2, 4, 0), threadIdx (47, 1, 0), warp 2, lane 31.
    assert data.thread_words(1439) == (
        "thread 1,439 (blockIdx (2, 4, 0), threadIdx (47, 1, 0), warp 2, lane 31)"
    )


def test_the_kernel_tabs_thread_words_in_3d() -> None:
    from simtviz.qt.tabs.kernel.views import TraceData

    # block (5, 4, 3) = 60 threads, grid (2, 3, 4). Thread 60·23 + 59: block 23 = 1 + 2·2 + 3·6
    # → (1, 2, 3); inner 59 = 4 + 3·5 + 2·20 → (4, 3, 2); warp 1, lane 27.
    result = SimpleNamespace(
        log=np.zeros((LOG_FIELDS, 0), dtype=np.int64), sites=(), arrays=(), block=(5, 4, 3), grid=(2, 3, 4)
    )
    assert TraceData(result).thread_words(60 * 23 + 59) == (  # type: ignore[arg-type]
        "thread 1,439 (blockIdx (1, 2, 3), threadIdx (4, 3, 2), warp 1, lane 27)"
    )


@pytest.mark.parametrize(
    ("top", "shape", "expected"),
    [
        ("T = 2 ** 5\n", "T", (32,)),
        ("T = 16\nPAD = T + 1\n", "(T, PAD)", (16, 17)),
        ("T = 16\nH = T // 3 - 1\nM = T % 5\n", "(H, M)", (4, 1)),  # 16 // 3 − 1 = 4; 16 % 5 = 1
        ("T = 3\nN = T * 4 << 1\n", "N", (24,)),  # 3 × 4 = 12, << 1 = 24
        ("T = -(-7)\n", "T", (7,)),
        ("T = +5\n", "(T, 2, 3)", (5, 2, 3)),
        ("B = 0b1100 | 1\nC = B & 6 ^ 1\n", "(B, C)", (13, 5)),  # 13; 13 & 6 = 4, ^ 1 = 5
    ],
)
def test_module_constants_are_computed_as_python_would(
    top: str, shape: str, expected: tuple[int, ...]
) -> None:
    (s,) = rewrite_kernel(shared_kernel(top, shape)).shared
    assert s.shape == expected


@pytest.mark.parametrize(
    "top",
    [
        "T = 2 ** 65\n",  # a power past 64 is not computed
        "T = 4 // 0\n",
        "T = 1.5\n",
        "T = True\n",
        "T = U\nU = T\n",  # circular: given up after 20 steps
        "T = len('abcd')\n",
    ],
)
def test_shapes_that_cannot_be_known_are_refused(top: str) -> None:
    with pytest.raises(TraceUnsupported, match="must be known before the kernel runs"):
        rewrite_kernel(shared_kernel(top, "T"))


@pytest.mark.parametrize(
    ("head", "dtype", "expected"),
    [
        ("import numpy as np\n", "np.float64", "float64"),
        ("from numba import int16 as short\n", "short", "int16"),
        ("", "'f8'", "float64"),
        ("", "float32", "float32"),
        ("import numba\nT = numba.uint8\n", "T", "uint8"),
        ("", "numba.types.boolean", "bool"),
    ],
)
def test_the_element_type_by_any_of_its_spellings(head: str, dtype: str, expected: str) -> None:
    src = (
        "from numba import cuda, float32\n"
        + head
        + f"\n@cuda.jit\ndef k(A):\n    s = cuda.shared.array(4, {dtype})\n    A[0] = 1\n"
    )
    (s,) = rewrite_kernel(src).shared
    assert s.dtype == expected


def test_shared_arrays_come_in_source_order_with_their_lines() -> None:
    src = (
        "from numba import cuda, float32, int32\n\n@cuda.jit\ndef k(A):\n"
        "    a = cuda.shared.array(shape=(2, 3), dtype=float32)\n"  # line 5
        "    if A[0] > 0:\n"
        "        b = cuda.shared.array(8, int32)\n"  # line 7
        "    A[0] = 1\n"
    )
    got = [(s.name, s.shape, s.dtype, s.line) for s in rewrite_kernel(src).shared]
    assert got == [("a", (2, 3), "float32", 5), ("b", (8,), "int32", 7)]


@pytest.mark.parametrize(
    "call",
    ["cuda.shared.array(4)", "cuda.shared.array(4, float32, 1)", "cuda.shared.array(4, dtype=float32, x=1)",
     "cuda.shared.array(shape=4)", "cuda.shared.array(4, size=float32)"],
)  # fmt: skip
def test_a_shared_array_call_takes_a_shape_and_a_dtype(call: str) -> None:
    src = f"from numba import cuda, float32\n\n@cuda.jit\ndef k(A):\n    s = {call}\n    A[0] = 1\n"
    with pytest.raises(TraceUnsupported, match=r"line 5: cuda\.shared\.array for s takes \(shape, dtype\)"):
        rewrite_kernel(src)


@pytest.mark.parametrize(
    ("top", "shape", "expected"),
    [
        ("T = 5 ** 0\n", "T", (1,)),  # a power of 0 is 1
        ("T = 2 ** 64\n", "T", (2**64,)),  # the largest power computed
    ],
)
def test_powers_are_computed_from_0_to_64(top: str, shape: str, expected: tuple[int, ...]) -> None:
    (s,) = rewrite_kernel(shared_kernel(top, shape)).shared
    assert s.shape == expected


@pytest.mark.parametrize(
    "top",
    [
        "T = U + 1\n",  # U unknown
        "T = 1 + U\n",
        "T = U + 1\nU = T + 1\n",  # circular through arithmetic, on the left
        "T = 1 + U\nU = 1 + T\n",  # and on the right
        "T = -U\nU = -T\n",  # circular through a sign
    ],
)
def test_unknowable_expressions_are_refused_in_words(top: str) -> None:
    with pytest.raises(TraceUnsupported, match="must be known before the kernel runs"):
        rewrite_kernel(shared_kernel(top, "T"))


def test_a_circular_element_type_is_refused_in_words() -> None:
    src = "from numba import cuda\nT = U\nU = T\n\n@cuda.jit\ndef k(A):\n    s = cuda.shared.array(4, T)\n"
    with pytest.raises(TraceUnsupported, match="the element type of the shared array s, T, is not one"):
        rewrite_kernel(src)


def test_shared_array_spellings_and_argument_forms() -> None:
    src = (
        "from numba import cuda, float32\nfrom numba.cuda import shared, local\n\n@cuda.jit\ndef k(A):\n"
        "    s = shared.array(8, float32)\n"  # line 6: shared, imported by name
        "    t = local.array(4, float32)\n"  # a local array is not shared
        "    u = cuda.shared.array(2, dtype=float32)\n"  # line 8: shape by position, dtype by name
        "    A[0] = t[0]\n"
    )
    got = [(s.name, s.shape, s.line) for s in rewrite_kernel(src).shared]
    assert got == [("s", (8,), 6), ("u", (2,), 8)]
    bad = "from numba import cuda\n\n@cuda.jit\ndef k(A):\n    s = cuda.shared.array(4, shape=8)\n"
    with pytest.raises(TraceUnsupported, match=r"line 5: cuda\.shared\.array for s takes \(shape, dtype\)"):
        rewrite_kernel(bad)
