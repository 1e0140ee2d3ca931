"""No input a student can type produces a traceback: the CLI and the launch model, fuzzed."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import simtviz.backends.record.sim as sim_module
from simtviz.cli import run
from simtviz.core.launch import Dim3, DimParseError, LaunchConfig
from simtviz.core.limits import validate
from simtviz.core.window import choose_window

dimension_text = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.lists(st.integers(0, 2**66), min_size=1, max_size=4).map(lambda v: ",".join(map(str, v))),
    st.text(alphabet="0123456789,-+x() .e_abc", max_size=24),
    st.sampled_from(
        ["", " ", ",", "1,", "nan", "inf", "0x10", "١٢", "1e9", "2147483648", "18446744073709551616"]
    ),
)


@pytest.fixture
def quick_simulator(monkeypatch: pytest.MonkeyPatch) -> None:
    """Launches over 64 threads skip the (slow) simulator; records then fail verification, exit 1."""
    real = sim_module.run_kernel_in_simulator

    def maybe_run(config, window, fields):  # type: ignore[no-untyped-def]
        return real(config, window, fields) if config.total_threads <= 64 else 0.0

    monkeypatch.setattr(sim_module, "run_kernel_in_simulator", maybe_run)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    grid=dimension_text,
    block=dimension_text,
    extra=st.lists(st.sampled_from(["--force", "--budget", "7", "-x", "--debugx"]), max_size=2),
)
def test_record_cli_never_shows_a_traceback(
    quick_simulator: None,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    grid: str,
    block: str,
    extra: list[str],
) -> None:
    out = tmp_path_factory.getbasetemp() / "fuzz.npz"
    code = run(["record", "--grid", grid, "--block", block, "--out", str(out), "--backend", "sim", *extra])
    captured = capsys.readouterr()
    assert code in (0, 1, 2, 3, 4)
    assert "Traceback" not in captured.err and "Traceback" not in captured.out
    if code in (2, 3, 4):
        assert captured.err.strip(), "a refusal always says why"


@settings(max_examples=3000, deadline=None)
@given(
    grid=st.tuples(*[st.integers(0, 2**64)] * 3),
    block=st.tuples(*[st.integers(0, 2**64)] * 3),
    budget=st.integers(1, 1 << 26),
)
def test_launch_model_handles_any_size(
    grid: tuple[int, int, int], block: tuple[int, int, int], budget: int
) -> None:
    config = LaunchConfig(Dim3(*grid), Dim3(*block))
    problems = validate(config)
    assert all(p.message for p in problems)
    assert config.total_threads == config.blocks * config.threads_per_block  # Python ints: no overflow
    if not problems:
        window = choose_window(config, budget)
        assert 1 <= window.threads <= max(budget, config.block.x if config.rank == 1 else 1)
        assert all(
            o >= 0 and o + s <= e for o, s, e in zip(window.origin, window.size, config.extent, strict=True)
        )


@settings(max_examples=2000, deadline=None)
@given(st.text(max_size=30))
def test_dimension_parsing_fails_only_in_words(text: str) -> None:
    try:
        Dim3.parse(text)
    except DimParseError as exc:
        assert str(exc)
