"""The index map's times say what they measure; host launch cost is never called kernel time."""

from __future__ import annotations

from simtviz.cli.record import describe_timings
from simtviz.core.run_timings import kernel_time_words


def test_gpu_times_are_labelled_by_how_they_were_measured() -> None:
    # The H200's 33-thread run: ≈4 µs of GPU time, threads started 0.1 µs apart, 95 µs of host.
    timings = {"kernel_ms": 0.0041, "span_ms": 0.0001, "launch_host_ms": 0.095, "wall_ms": 2.0}
    words = kernel_time_words(timings)
    assert words == (
        "kernel 4.1 µs (GPU time: CUDA events, GPU kept busy), "
        "threads started within 0.1 µs (threads' %globaltimer)"
    )
    line = describe_timings(timings)
    assert "host launch call (not kernel time) 0.1 ms" in line


def test_large_runs_show_milliseconds() -> None:
    words = kernel_time_words({"kernel_ms": 0.466, "span_ms": 0.456})
    assert words.startswith("kernel 0.466 ms (GPU time") and "within 0.456 ms" in words


def test_untrusted_events_are_not_shown_as_kernel_time() -> None:
    words = kernel_time_words({"kernel_ms": None, "span_ms": 0.02, "launch_host_ms": 3.0})
    assert "kernel" not in words.split("(")[0] and "within 20.0 µs" in words
    assert kernel_time_words({"kernel_ms": None, "launch_host_ms": 3.0}).startswith(
        "kernel time not measured"
    )


def test_the_simulator_says_it_has_no_gpu_clock() -> None:
    assert kernel_time_words({"kernel_ms": None, "wall_ms": 5.0}) == (
        "kernel time unknown (the simulator has no GPU clock)"
    )


def test_with_the_blocks_end_time_the_threads_own_clock_comes_first() -> None:
    # H200, 2^20 threads: threads' first start → last block's end 26.8 µs; events 30.0 µs, of
    # which a constant 3.2 µs at every size is the GPU launching and retiring the kernel.
    words = kernel_time_words({"kernel_ms": 0.0300, "span_ms": 0.0221, "run_span_ms": 0.0268})
    assert words == (
        "kernel ran 26.8 µs (threads' %globaltimer, first start → last end); "
        "CUDA events 30.0 µs (GPU time, GPU kept busy)"
    )
    # The events alone untrusted (the GPU idled while the launch was queued): the run stands alone.
    assert kernel_time_words({"kernel_ms": None, "run_span_ms": 0.0268}) == (
        "kernel ran 26.8 µs (threads' %globaltimer, first start → last end)"
    )
