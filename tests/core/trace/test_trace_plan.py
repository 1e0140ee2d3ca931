"""The trace planned once (core/trace/plan.py): the student's text is parsed once per request in
each process that reads it, the parsed tree is never changed by the rewrite, and the plan never
crosses to the child process (it plans again from the text).

Before the plan, one Run parsed the text 2 times in the caller's check (``precheck``: the file,
then ``rewrite_kernel`` again) and 3 times in the child (``gpu_compile.signature``, ``prepare``,
``rewrite_kernel``); the window checked twice (before Run and in ``Backend.run``): 4 + 3."""

from __future__ import annotations

import ast
import pickle
from collections.abc import Iterator

import pytest

from sim_templates import template_request
from simtviz.backends.emu_backend import emu_info
from simtviz.backends.trace import TRACE
from simtviz.core.trace.args import ArgSpecError
from simtviz.core.trace.model import TraceRequest
from simtviz.core.trace.source import TraceUnsupported


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The texts ``ast.parse`` read in this process, kernel files only (not the checks' expressions)."""
    seen: list[str] = []
    real = ast.parse

    def counting(source, *args, **kwargs):  # type: ignore[no-untyped-def]
        if isinstance(source, str) and "cuda.jit" in source:
            seen.append(source)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting)
    yield seen


def test_the_callers_two_checks_parse_the_text_once(parses: list[str]) -> None:
    request = template_request("vecadd_guarded")
    # the window checks before Run (refused_now) and Backend.run checks again: one parse for both
    TRACE.check(request, emu_info(), ask_gpu=False)
    TRACE.check(request, emu_info(), ask_gpu=False)
    assert parses == [request.source]


def test_the_childs_compile_check_and_run_parse_the_text_once(parses: list[str]) -> None:
    from simtviz.backends.trace.emu import run_trace_emu
    from simtviz.backends.trace.gpu_compile import signature

    request = template_request("vecadd_guarded")
    # what the child does (trace.child.TraceSession.run): the compile check's signature, the run
    assert signature(request) == "void(float32[::1], float32[::1], float32[::1])"
    result = run_trace_emu(request)
    assert parses.count(request.source) == 1  # (the emulator also reads its helpers' module as text)
    # 4 blocks × 256 threads, N = 1000: 1000 threads load A and B and store C
    assert (result.analysis.accesses, result.check is not None and result.check.passed) == (3000, True)


def test_a_refused_file_is_parsed_once_however_often_it_is_checked(parses: list[str]) -> None:
    source = "from numba import cuda\n@cuda.jit\ndef k(A):\n    A[0] = = 1\n"
    request = TraceRequest(source, (1, 1, 1), (1, 1, 1), {})
    for _ in range(3):
        with pytest.raises(TraceUnsupported, match="line 4: syntax error"):
            TRACE.check(request, emu_info(), ask_gpu=False)
    assert len(parses) == 1


def test_a_bad_spec_is_said_before_the_files_syntax_error() -> None:
    source = "@cuda.jit\ndef k(A):\n    A[0] = = 1\n"
    request = TraceRequest(source, (1, 1, 1), (1, 1, 1), {"A": "float99[4]"})
    with pytest.raises(ArgSpecError):
        _ = request.plan().rewrite
    with pytest.raises(TraceUnsupported):  # the text's own problem, asked for on its own
        _ = request.plan().tree


def test_the_plan_stays_in_this_process_and_equal_requests_stay_equal() -> None:
    request = template_request("vecadd_guarded")
    plan = request.plan()
    assert request.plan() is plan
    copy = pickle.loads(pickle.dumps(request))
    assert copy == request and "_plan" not in copy.__dict__
    assert copy.plan() is not plan  # the child's own, from the text


def test_the_rewrite_leaves_the_parsed_file_as_it_was() -> None:
    request = template_request("histogram_racing")
    plan = request.plan()
    before = ast.dump(plan.tree, include_attributes=True)
    rewrite = plan.rewrite
    assert ast.dump(plan.tree, include_attributes=True) == before
    # so the plain module (a GPU's compile check) built after the rewrite is the file's kernel
    plain, name = plan.plain_module()
    assert name == rewrite.kernel == "histogram"
    assert "_tv_" not in ast.unparse(plain).replace("_tv_cuda", "")
    assert ast.dump(plain) == ast.dump(rewrite.plain_tree)
