"""``simtviz trace`` parses the student's file once in its own process (the check before the
child starts); the child plans again from the text (tests/core/trace/test_trace_plan.py counts
that half). Before the plan this process parsed it twice (the file, then the rewrite's own)."""

from __future__ import annotations

import ast
import json

import pytest

from simtviz.cli import run
from simtviz.resources import resource_path

VECADD = resource_path("kernels/index.json").parent / "vecadd_guarded.py"


def test_the_cli_parses_the_file_once_in_its_own_process(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    source = VECADD.read_text(encoding="utf-8")
    seen: list[str] = []
    real = ast.parse

    def counting(text, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting)
    argv = ["--arg", "A=float32[1000]:random", "--arg", "B=float32[1000]:random", "--arg", "C=float32[1000]"]
    code = run(["trace", str(VECADD), "--grid", "4", "--block", "256", *argv, "--backend", "emu", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    # 4 × 256 = 1024 threads, N = 1000: 1000 threads × (load A, load B, store C) = 3000 accesses
    assert json.loads(out.strip().splitlines()[-1])["accesses"] == 3000
    assert seen.count(source) == 1
