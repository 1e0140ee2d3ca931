""" "Read parameters from the code" on kernels written for each rule (the expected specs are read
off the rules in core/trace/infer.py's docstring, by hand), and on files past the 64,000
characters where only the kernel's own lines are read."""

from __future__ import annotations

import textwrap

from simtviz.core.trace.infer import infer_specs


def specs(body: str, params: str) -> dict[str, str]:
    src = f"from numba import cuda\nimport math\n\n\n@cuda.jit\ndef k({params}):\n" + textwrap.indent(
        textwrap.dedent(body), "    "
    )
    return infer_specs(src)


def test_three_and_four_index_arrays() -> None:
    # 3 indices: 8 x 8 x 8; 4 indices has no shape of its own: 1000 like 1-D
    assert specs("A[0, 1, 2] = 1.0\nB[0, 1, 2, 3] = 1.0\n", "A, B") == {
        "A": "float32[8,8,8]:zeros",
        "B": "float32[1000]:zeros",
    }


def test_an_atomic_on_a_2d_array_takes_its_dimensions_from_the_index_tuple() -> None:
    # (x, y) has 2 entries: 32 x 32; adding 1.0 (a float) is no count: float32, written: zeros
    assert specs("x, y = cuda.grid(2)\ncuda.atomic.add(C, (x, y), 1.0)\n", "C") == {
        "C": "float32[32,32]:zeros"
    }


def test_atomic_calls_still_being_typed_do_not_stop_the_reading() -> None:
    # one argument: bins is written, nothing is indexed or counted
    assert specs("i = cuda.grid(1)\ncuda.atomic.add(bins)\n", "data, bins") == {
        "data": "float32:1.0",
        "bins": "float32[1000]:zeros",
    }
    # two arguments: data's element is already an index (int32, random); no value, no count
    assert specs("i = cuda.grid(1)\ncuda.atomic.add(bins, data[i])\n", "data, bins") == {
        "data": "int32[1000]:random",
        "bins": "float32[1000]:zeros",
    }
    # two arguments, the index a tuple of 2: 32 x 32
    assert specs("x, y = cuda.grid(2)\ncuda.atomic.add(C, (x, y))\n", "C") == {"C": "float32[32,32]:zeros"}


def test_an_atomic_into_a_slice_and_a_plain_function_call() -> None:
    # bins[0:4] is bins written (the slice is not a tuple: 1-D); min(...) is a call of a name
    assert specs(
        "i = cuda.grid(1)\ncuda.atomic.add(bins[0:4], i % 4, 1)\nB[i] = min(A[i], 1.0)\n", "A, B, bins"
    ) == {
        "A": "float32[1000]:random",
        "B": "float32[1000]:zeros",
        "bins": "float32[1000]:zeros",
    }


def test_what_a_scalar_is_compared_with_makes_it_a_size_or_not() -> None:
    # with an integer constant, with blockDim.x: sizes; with math.pi, with an array's element: floats
    assert specs("if n > 0:\n    A[0] = 1.0\n", "A, n")["n"] == "int32:1000"
    assert specs("if m > cuda.blockDim.x:\n    A[0] = 1.0\n", "A, m")["m"] == "int32:1000"
    assert specs("if s < math.pi:\n    A[0] = 1.0\n", "A, s")["s"] == "float32:1.0"
    assert specs("i = cuda.grid(1)\nif s < X[i]:\n    A[i] = 1.0\n", "A, X, s")["s"] == "float32:1.0"


def test_an_index_computed_by_hand_is_an_integer_a_scaled_one_is_not() -> None:
    body = "i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x\nif i < n:\n    A[i] = 1.0\n"
    assert specs(body, "A, n")["n"] == "int32:1000"
    body = "t = cuda.threadIdx.x * 0.5\nif t < s:\n    A[0] = 1.0\n"
    assert specs(body, "A, s")["s"] == "float32:1.0"


# --- files over 64,000 characters: only the kernel's decorator, signature and body are read ---

PADDING = "".join(f"# padding line {n:05d} " + "x" * 60 + "\n" for n in range(1_000))  # 1,000 x 82 = 82,000

SCALE = """\
@cuda.jit
def scale(A, B,
          n
):
    i = cuda.grid(1)

#a note at the left edge, inside the body
    if i < n:
        B[i] = A[i]
"""
SCALE_SPECS = {"A": "float32[1000]:random", "B": "float32[1000]:zeros", "n": "int32:1000"}

LONG = (
    "from numba import cuda\n"
    + PADDING
    + "def broken(:\n"  # the file is being edited: this line alone is not Python
    + "@cuda.jit\ndef one(C): C[0] = 1.0\n"
    + SCALE
    + "@cuda.jit\ndef last(D):\n    D[0] = 1.0"
)


def test_a_long_file_with_one_kernel_is_read_without_naming_it() -> None:
    src = "from numba import cuda\n" + PADDING + SCALE
    assert len(src) > 64_000
    assert infer_specs(src) == SCALE_SPECS


def test_a_long_file_reads_each_named_kernel_from_its_own_lines() -> None:
    # the broken line above does not matter: only the named kernel's lines are parsed
    assert infer_specs(LONG, "scale") == SCALE_SPECS
    assert infer_specs(LONG, "one") == {"C": "float32[1000]:zeros"}
    assert infer_specs(LONG, "last") == {"D": "float32[1000]:zeros"}


def test_a_long_file_with_no_single_kernel_to_read_gives_nothing() -> None:
    assert infer_specs(LONG.replace("def broken(:\n", "")) == {}  # three kernels, none named
    assert infer_specs(LONG, "missing") == {}
    assert infer_specs("x = 1\n" + PADDING) == {}


def test_a_long_file_starting_with_a_kernel_and_ending_in_a_new_decorator() -> None:
    # the decorator on the file's first line belongs to the kernel; the "@cuda.jit" being typed
    # on the last line belongs to no kernel read here
    src = "@cuda.jit\ndef first(E):\n    E[0] = 1.0\n" + PADDING + "@cuda.jit"
    assert infer_specs(src, "first") == {"E": "float32[1000]:zeros"}


def test_a_scalar_bounding_a_loop_is_an_integer_size() -> None:
    # range(n) and range(0, m, step) need integers: a float32 1.0 there fails numba's typing
    body = (
        "i = cuda.grid(1)\ns = 0.0\nfor j in range(n):\n    s += B[j]\n"
        "for j in range(0, m, step):\n    s += B[j]\nA[i] = s\n"
    )
    assert specs(body, "A, B, n, m, step, a") == {
        "A": "float32[1000]:zeros",
        "B": "float32[1000]:random",
        "n": "int32:1000",
        "m": "int32:1000",
        "step": "int32:1000",
        "a": "float32:1.0",
    }
