"""Student errors in words that fit them: a syntax error's advice, a simulated thread's error in
blockIdx/threadIdx on its line, a float index explained as a type problem, the CLI naming the
file, and "Read parameters from the code" guessing integer types where the kernel needs them."""

from __future__ import annotations

from pathlib import Path

import pytest

from simtviz.cli import run
from simtviz.core.errors import KernelFailed, describe
from simtviz.core.trace.infer import infer_specs
from simtviz.core.trace.model import TraceRequest
from simtviz.core.trace.source import TraceUnsupported, parse
from simtviz.core.trace.templates import template

HISTOGRAM = template("histogram_racing").source  # b = data[i] % bins.size: line 14; bins[b] += 1: 15
DIVIDE = HISTOGRAM.replace("b = data[i] % bins.size", "b = 10 // (i - 21)")  # thread 21 divides by 0
SAXPY = """from numba import cuda


@cuda.jit
def saxpy(a, X, Y, n):
    i = cuda.grid(1)
    if i < n:
        Y[i] = a * X[i] + Y[i]
"""


@pytest.fixture(scope="module", autouse=True)
def needs_sim(backend_kind: str) -> None:
    if backend_kind != "sim":
        pytest.skip("simulator tests")


def test_a_syntax_error_gets_advice_about_syntax() -> None:
    with pytest.raises(TraceUnsupported) as caught:
        parse("from numba import cuda\n\n@cuda.jit\ndef k(a)\n    a[0] = 1\n")
    report = describe(caught.value)
    assert caught.value.line == 4 and report.title == "Syntax error"
    assert "missing colon" in report.todo and "plain element accesses" not in report.todo
    assert describe(TraceUnsupported(6, "slices are not traced")).todo.startswith("Rewrite that line")


def test_a_simulated_thread_s_error_names_it_as_cuda_does_on_its_line() -> None:
    from simtviz.backends.trace.sim import run_trace_sim

    request = TraceRequest(DIVIDE, (1, 1, 1), (64, 1, 1), {"data": "int32[64]", "bins": "int32[8]"})
    with pytest.raises(KernelFailed) as caught:
        run_trace_sim(request)
    assert caught.value.line == 14
    assert str(caught.value) == (
        "line 14: ZeroDivisionError: blockIdx=(0, 0, 0), threadIdx=(21, 0, 0): "
        "integer division or modulo by zero"
    )


def test_a_float_index_is_explained_as_a_type_problem() -> None:
    from simtviz.backends.trace.sim import run_trace_sim  # the simulator alone: no GPU compile check

    args = {"data": "float32[64]:arange", "bins": "float32[8]"}
    with pytest.raises(KernelFailed) as caught:
        run_trace_sim(TraceRequest(HISTOGRAM, (1, 1, 1), (64, 1, 1), args))
    text = str(caught.value)
    assert caught.value.line == 15
    assert text.startswith(
        "line 15: an array index must be an integer, and this one is a float (data, bins are float)"
    )
    assert "int32" in text and "tid=" not in text


def test_the_cli_s_runtime_error_names_the_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = tmp_path / "divide.py"
    f.write_text(DIVIDE)
    code = run(["trace", str(f), "--grid", "1", "--block", "64", "--arg", "data=int32[64]", "--arg",
                "bins=int32[8]", "--backend", "sim"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 1
    assert f"simtviz: {f}, line 14: ZeroDivisionError: blockIdx=(0, 0, 0), threadIdx=(21, 0, 0)" in err


def test_read_parameters_guesses_integer_indices_bins_and_sizes() -> None:
    # data's elements become an index (through b), bins is counted into: both int32.
    assert infer_specs(HISTOGRAM) == {"data": "int32[1000]:random", "bins": "int32[1000]:zeros"}
    assert infer_specs(template("histogram_atomic").source) == {
        "data": "int32[1000]:random",
        "bins": "int32[1000]:zeros",
    }
    # n is compared with the thread index: a size. a only scales: a float. X is only read.
    assert infer_specs(SAXPY) == {
        "a": "float32:1.0",
        "X": "float32[1000]:random",
        "Y": "float32[1000]:zeros",
        "n": "int32:1000",
    }
    assert infer_specs(template("transpose_naive").source) == {
        "A": "float32[32,32]:random",
        "B": "float32[32,32]:zeros",
    }
