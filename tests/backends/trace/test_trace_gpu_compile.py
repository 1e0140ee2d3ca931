"""Only what a GPU would compile: numba-cuda compiles the student's kernel to PTX (no GPU needed)
before any backend runs it; a kernel it refuses is refused on the simulator too, with the line.

The simulator alone runs ``random.random()`` and ``np.linalg.norm`` as plain Python: a lesson a
GPU would never give."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from repo_paths import DATA
from simtviz.backends.trace import gpu_compile
from simtviz.cli import run
from simtviz.core.trace.model import KernelCompileError, TraceRequest

DATA = DATA / "trace"  # shared with tests/gpu/test_trace_gpu_compile_gpu.py
RANDOM = (DATA / "noisy.py").read_text()  # random.random() is on line 10

NORM = (DATA / "normed.py").read_text()  # np.linalg.norm is on line 9

FINE = (DATA / "twice.py").read_text()


def trace(capsys: pytest.CaptureFixture[str], path: Path, *args: str) -> tuple[int, str, str]:
    code = run(["trace", str(path), "--grid", "1", "--block", "32", *args, "--backend", "sim"])
    out, err = capsys.readouterr()
    return code, out, err


def test_random_random_is_refused_on_the_simulator_naming_its_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    f = tmp_path / "noisy.py"
    f.write_text(RANDOM)
    code, out, err = trace(capsys, f, "--arg", "a=float32[32]")
    assert code == 2  # before the check the simulator traced it and exited 0
    assert "noisy.py, line 10: a GPU would not compile this kernel" in err
    assert "random.random" in err and "numba.cuda.random" in err
    assert "Traceback" not in err and out == ""


def test_np_linalg_norm_is_refused_with_the_gpu_reason_not_the_tracer_s(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    f = tmp_path / "normed.py"
    f.write_text(NORM)
    code, _, err = trace(capsys, f, "--arg", "a=float32[32]", "--arg", "out=float32[32]")
    assert code == 2
    assert "normed.py, line 9: a GPU would not compile this kernel" in err
    assert "linear algebra" in err
    assert "the tracer cannot follow" not in err  # the rewrite's refusal was the only word before


def test_a_kernel_that_compiles_runs_and_its_verdict_is_cached(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    f = tmp_path / "twice.py"
    f.write_text(FINE)
    code, out, _ = trace(capsys, f, "--arg", "a=float32[32]:ones", "--json")
    assert code == 0
    assert json.loads(out.strip().splitlines()[-1])["accesses"] == 64  # 32 loads + 32 stores
    request = TraceRequest(FINE, (1, 1, 1), (32, 1, 1), {"a": "float32[32]:ones"}, filename="twice.py")
    key = gpu_compile.cache_key(request, gpu_compile.signature(request), gpu_compile.CHECK_CC)
    assert gpu_compile.read_cached(key) == gpu_compile.Verdict(True)


def test_a_cached_refusal_is_refused_again_without_compiling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIMTVIZ_CACHE_DIR", str(tmp_path))
    request = TraceRequest(FINE, (1, 1, 1), (32, 1, 1), {"a": "float32[32]"}, filename="twice.py")
    sig = gpu_compile.signature(request)
    assert sig == "void(float32[::1])"
    gpu_compile.write_cached(
        gpu_compile.cache_key(request, sig, (7, 5)), gpu_compile.Verdict(False, 8, "line 8: no")
    )
    with pytest.raises(KernelCompileError) as caught:
        gpu_compile.verify(request, "sim", None)  # no checker: only the cache can answer
    assert caught.value.line == 8 and str(caught.value) == "line 8: no"


def test_where_numba_cuda_cannot_compile_the_check_is_skipped_and_said_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIMTVIZ_CACHE_DIR", str(tmp_path))
    request = TraceRequest(RANDOM, (1, 1, 1), (32, 1, 1), {"a": "float32[32]"}, filename="noisy.py")

    class NoCuda:
        def ask(self, *_: object, **__: object) -> gpu_compile.Verdict:
            return gpu_compile.Verdict(
                True, unavailable="ImportError: no CUDA wheels for this machine", machine=True
            )

        def close(self) -> None:
            pass

    note = gpu_compile.verify(request, "sim", NoCuda())  # type: ignore[arg-type]
    assert note is not None and note.startswith("Not checked that a GPU would compile")
    assert "no CUDA wheels" in note
    assert gpu_compile.start_checker("sim") is None  # known now: no process started
    assert gpu_compile.verify(request, "sim", None) is None  # and not said again


def test_two_dimensional_and_scalar_parameters_make_numba_s_signature() -> None:
    source = FINE.replace("def twice(a):", "def twice(a, n, m):")
    request = TraceRequest(
        source, (1, 1, 1), (32, 1, 1), {"a": "float64[4,8]", "n": "int32:3", "m": "float32:0.5"}
    )
    assert gpu_compile.signature(request) == "void(float64[:, ::1], int32, float32)"


def test_the_cache_keeps_at_most_its_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMTVIZ_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(gpu_compile, "CACHE_KEEP", 10)
    for k in range(11):
        gpu_compile.write_cached(f"key{k:02d}", gpu_compile.Verdict(True))
    # the 11th verdict is over 10: the oldest 11 - 10 // 2 = 6 go, the newest 5 stay
    assert len(list((tmp_path / "gpu-compile").glob("*.json"))) == 5
    assert gpu_compile.read_cached("key10") == gpu_compile.Verdict(True)


def test_only_a_refused_call_is_worth_a_compile() -> None:
    from simtviz.core.trace.source import TraceUnsupported

    call = TraceUnsupported(9, "passes the array a to np.linalg.norm(): ...")
    assert gpu_compile.worth_asking(call, NORM)  # np.linalg.norm(a) on line 9
    sliced = "from numba import cuda\n\n\n@cuda.jit\ndef k(A):\n    A[1:] = 0\n"
    assert not gpu_compile.worth_asking(TraceUnsupported(6, "slices are not traced"), sliced)
    assert not gpu_compile.worth_asking(TraceUnsupported(0, "no @cuda.jit kernel in this file"), NORM)
    assert not gpu_compile.worth_asking(TraceUnsupported(9, "syntax error: invalid syntax"), NORM)


def test_a_checker_without_numba_cuda_says_why_and_the_run_is_not_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A machine without numba-cuda's CUDA wheels, played by a numba that cannot be imported.
    fake = tmp_path / "site"
    (fake / "numba").mkdir(parents=True)
    (fake / "numba" / "__init__.py").write_text("raise ImportError('no CUDA wheels for this platform')\n")
    monkeypatch.setenv("PYTHONPATH", str(fake))
    monkeypatch.setenv("SIMTVIZ_CACHE_DIR", str(tmp_path / "cache"))
    request = TraceRequest(RANDOM, (1, 1, 1), (32, 1, 1), {"a": "float32[32]"}, filename="noisy.py")
    checker = gpu_compile.Checker()
    note = gpu_compile.verify(request, "sim", checker)  # random.random() is not refused here
    assert note is not None and "ImportError: no CUDA wheels for this platform" in note
    assert gpu_compile.start_checker("sim") is None  # remembered: said once, no process next time


# numba's typing error for np.linalg.norm with SciPy installed, as numba 0.68 gave it on the H200:
# the function and its signature, no line of the student's file anywhere in the text.
NO_NORM = (
    "No implementation of function Function(<function norm at 0x7f33035234c0>) found for signature:\n"
    " \n >>> norm(array(float32, 1d, C))\n \nThere are 2 candidate implementations:\n"
    "  - Of which 2 did not match due to:\n  Overload in function 'norm_impl': File: numba/np/linalg.py\n"
)


@pytest.mark.parametrize(
    ("where", "line"),
    [
        ("", 9),  # no location: the kernel's first call of norm (normed.py line 9)
        ("During: typing of call at /tmp/simtviz-ptx-x/normed.py (9)\n", 9),
        ('File "/tmp/simtviz-ptx-x/normed.py", line 9:\n    out[i] = a[i] / np.linalg.norm(a)\n', 9),
    ],
)
def test_a_typing_error_finds_the_students_line_in_every_form_numba_gives(where: str, line: int) -> None:
    from numba.core.errors import TypingError

    request = TraceRequest(
        NORM, (1, 1, 1), (32, 1, 1), {"a": "float32[32]", "out": "float32[32]"}, filename="normed.py"
    )
    verdict = gpu_compile.explain(TypingError(NO_NORM + where), "/tmp/simtviz-ptx-x/normed.py", request)
    assert not verdict.ok and verdict.line == line
    assert verdict.message.startswith(f"line {line}: a GPU would not compile this kernel")


def test_a_built_in_without_a_line_is_found_at_its_first_call_in_the_kernel() -> None:
    from numba.core.errors import TypingError

    # math.sqrt of an array: called on lines 8 and 9, so line 8 (the first)
    source = (
        "import math\nfrom numba import cuda\n\n\n@cuda.jit\ndef k(a, out):\n    i = cuda.grid(1)\n"
        "    x = math.sqrt(a)\n    out[i] = math.sqrt(a)\n"
    )
    text = "No implementation of function Function(<built-in function sqrt>) found for signature:\n"
    request = TraceRequest(
        source, (1, 1, 1), (32, 1, 1), {"a": "float32[32]", "out": "float32[32]"}, filename="k.py"
    )
    assert gpu_compile.explain(TypingError(text), "/tmp/x/k.py", request).line == 8


def test_the_compile_check_names_the_files_top_level_code_while_it_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The GPU's child compiles in its own process: the student's module (its defaults, here a
    # call that records the phase then) runs inside the check, so a stop at the time limit there
    # must say "top-level code", not "reading and checking the file".
    from simtviz.backends.trace import prepare

    seen: list[str] = []
    monkeypatch.setattr(prepare, "PHASE_HOOK", seen.append)
    source = FINE.replace(
        "from numba import cuda", "from numba import cuda\n\n\ndef _d(x=len('ab')):\n    return x"
    )
    request = TraceRequest(source, (1, 1, 1), (32, 1, 1), {"a": "float32[32]:ones"}, filename="twice.py")
    # (numba is simulated in this process, so the compile itself fails: only the phases matter)
    gpu_compile.compile_here(request, gpu_compile.signature(request), gpu_compile.CHECK_CC)
    assert seen == ["module", "prepare"]  # the module's code, then back to checking


def test_a_child_started_for_a_cached_kernel_starts_no_checker_and_a_miss_still_compiles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from simtviz.backends.trace.batch import TraceBatch

    monkeypatch.setenv("SIMTVIZ_CACHE_DIR", str(tmp_path))
    request = TraceRequest(FINE, (1, 1, 1), (32, 1, 1), {"a": "float32[32]"}, filename="twice.py")
    assert gpu_compile.child_env("sim", request) == {}  # not cached: the checker starts with the child
    key = gpu_compile.cache_key(request, "void(float32[::1])", (7, 5))
    gpu_compile.write_cached(key, gpu_compile.Verdict(True))
    on_demand = {"SIMTVIZ_GPU_CHECKER_ON_DEMAND": "1"}
    assert gpu_compile.child_env("sim", request) == on_demand  # cached: none ahead
    assert gpu_compile.child_env("emu", request) == on_demand
    assert gpu_compile.child_env("gpu", request) == {}  # the GPU's child compiles itself
    assert gpu_compile.child_env("sim", TraceBatch((request,))) == on_demand  # an exercise's cases

    asked: list[str] = []

    class Fake:
        def ask(self, _request: object, sig: str, _tick: object = None) -> gpu_compile.Verdict:
            asked.append(sig)
            return gpu_compile.Verdict(False, 8, "line 8: no")

        def close(self) -> None:
            pass

    monkeypatch.setattr(gpu_compile, "Checker", Fake)
    monkeypatch.setenv("SIMTVIZ_GPU_CHECKER_ON_DEMAND", "1")
    assert gpu_compile.start_checker("sim") is None  # nothing started ahead in such a child
    assert gpu_compile.verify(request, "sim", None) is None and asked == []  # the cache answered
    (tmp_path / "gpu-compile" / f"{key}.json").unlink()  # gone meanwhile: compiled after all
    with pytest.raises(KernelCompileError):
        gpu_compile.verify(request, "sim", None)
    assert asked == ["void(float32[::1])"]
