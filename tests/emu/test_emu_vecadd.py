"""The chapter's vecadd on the CPU emulator, worked out by hand: no numba needed."""

from __future__ import annotations

from simtviz.backends.vecadd import VECADD
from simtviz.core.vecadd import VecaddRequest, report_text


def test_guarded_vecadd_succeeds_and_makes_no_out_of_bounds_write() -> None:
    r = VECADD.run_emu(VecaddRequest(1000, 256), None, None)  # type: ignore[arg-type]
    assert (r.backend, r.grid, r.verified, r.max_abs_err, r.oob_writes) == ("emu", 4, True, 0.0, 0)
    assert r.kernel_ms is None and r.bandwidth_GBps is None  # no GPU clock here
    assert report_text(r).endswith("Test succeeded")


def test_unguarded_vecadd_counts_every_write_past_c_instead_of_stopping_at_the_first() -> None:
    # N = 1000, block 256 → 4 blocks = 1024 threads: 24 surplus threads, each loading A[i] and
    # B[i] and storing C[i] past the end: 24 writes (what a GPU's canary counts), 48 loads.
    r = VECADD.run_emu(VecaddRequest(1000, 256, guarded=False), None, None)  # type: ignore[arg-type]
    assert r.kernel_error is None and r.verified and r.oob_writes == 24
    text = report_text(r)
    assert "the 24 writes past the end of C (and 48 loads past A and B) were counted and skipped" in text
    assert text.endswith("Test succeeded")


def test_the_sweep_times_the_guarded_kernel_for_each_block_size() -> None:
    r = VECADD.run_emu(VecaddRequest(5000, 256, sweep=True, sweep_blocks=(32, 1024)), None, None)  # type: ignore[arg-type]
    assert [(row.block, row.grid) for row in r.sweep] == [(32, 157), (1024, 5)]  # ceil(5000 / b)
    assert all(row.sim_wall_ms is not None and row.sim_wall_ms > 0 for row in r.sweep)


def test_the_sweep_table_says_the_times_are_the_emulators() -> None:
    from simtviz.core.vecadd import sweep_table

    r = VECADD.run_emu(VecaddRequest(600, 256, sweep=True, sweep_blocks=(64,)), None, None)  # type: ignore[arg-type]
    assert "(emu)" in sweep_table(r) and "(sim)" not in sweep_table(r)
