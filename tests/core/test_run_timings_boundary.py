"""Kernel-time wording at the µs/ms switch: below 0.1 ms in µs, from 0.1 ms on in ms."""

from __future__ import annotations

from simtviz.core.run_timings import format_ms, kernel_time_words


def test_the_switch_is_at_exactly_a_tenth_of_a_millisecond() -> None:
    assert format_ms(0.1) == "0.100 ms"  # 0.1 ms itself is shown in ms
    assert format_ms(0.0999) == "99.9 µs"  # just below: 0.0999 × 1000 = 99.9 µs
    assert format_ms(0.0) == "0.0 µs"
    assert kernel_time_words({"kernel_ms": 0.1, "span_ms": 0.0999}) == (
        "kernel 0.100 ms (GPU time: CUDA events, GPU kept busy), "
        "threads started within 99.9 µs (threads' %globaltimer)"
    )
