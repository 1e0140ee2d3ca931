"""On a real GPU: how many launches the vector add times (the report's "Timed launches" line).

Run as its own process: ``SIMTVIZ_BACKEND=gpu python -m pytest -m gpu``.
"""

from __future__ import annotations

import pytest

from simtviz.cli import run

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize(
    ("repeat", "timed"),
    [
        # a median of fewer than 20 launches is too noisy: 1 asked → 20 timed
        (["--repeat", "1"], 20),
        # 30 asked → 30; none asked → the GPU's default, 50
        (["--repeat", "30"], 30),
        ([], 50),
    ],
)
def test_timed_launches(capsys: pytest.CaptureFixture[str], repeat: list[str], timed: int) -> None:
    code = run(["vecadd", "--backend", "gpu", "--n", "100003", *repeat])
    out = capsys.readouterr().out.splitlines()
    assert code == 0 and out[-1] == "Test succeeded"
    assert f"Timed launches: {timed} (medians)." in out
