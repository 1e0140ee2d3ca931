"""What a step shows and prints, read off the lesson by hand (planted bugs E9 and E12 of plant-c:
each survived every other test).

E9: a step's probes include its erratum cards' evidence probes, also where the step has no Try it
of that probe. E12: the handout's "Answer on a GPU" is the GPU's answer, never the simulator's.
"""

from __future__ import annotations

from datetime import date

from simtviz.core import lesson
from simtviz.core.lesson.handout import render_handout


def test_a_card_s_probe_counts_among_its_step_s_probes_without_a_try_it() -> None:
    # §2.2.3.2 (copying): its one Try it and its claim run copy_bandwidth; its card cp-rand is
    # proved by array_dtypes' has_cp_rand, a probe that only §2.2.3.1's Try it runs. Order:
    # Try-its first, then cards, then claims, each name once.
    s = lesson.step("2.2.3.2")
    assert [e.id for e in s.errata] == ["cp-rand"]
    assert lesson.probes_of(s) == ("copy_bandwidth", "array_dtypes")
    # §2.2.3.1: Try it array_dtypes; cards zeros-float32, cp-rand, undefined-A all array_dtypes.
    assert lesson.probes_of(lesson.step("2.2.3.1")) == ("array_dtypes",)


def _section(html: str, heading: str) -> str:
    start = html.index(f"<h2>{heading}")
    end = html.find("<h2>", start + 1)
    return html[start : end if end != -1 else len(html)]


def test_the_handout_gives_the_gpu_s_answer_beside_a_simulator_run_that_differs() -> None:
    # §2.2.4: the simulator runs the kernel inside the launch, so it measures "after the kernel";
    # a GPU's launch returns "right away". §2.2.6: the simulator checks no limit ("nowhere"); a
    # GPU fails at "the launch line".
    sync = {
        "probe": "async_timeline",
        "backend": "sim",
        "unavailable": {},
        "launch_returned": "after the kernel",
    }
    big = {"probe": "launch_2048", "backend": "sim", "unavailable": {}, "failed_at": "nowhere"}
    html = render_handout(
        {"async_timeline": sync, "launch_2048": big},
        answers={"2.2.4": "right away", "2.2.6": "nowhere"},
        runs={"2.2.4": sync, "2.2.6": big},
        when=date(2026, 12, 6),
    )
    s224 = _section(html, "2.2.4 ")
    assert "<th>Your answer</th><td>right away</td>" in s224
    assert "<th>Measured (sim)</th><td>after the kernel</td>" in s224
    assert "<th>Answer on a GPU</th><td>right away: The launch only queues the kernel" in s224
    s226 = _section(html, "2.2.6 ")
    assert "<th>Your answer</th><td>nowhere</td>" in s226
    assert "<th>Measured (sim)</th><td>nowhere</td>" in s226
    assert "<th>Answer on a GPU</th><td>the launch line: The driver checks the configuration" in s226
