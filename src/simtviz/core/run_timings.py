"""How long a recording run took, in words that say what each number measures.

``Recording.timings_ms`` keys (milliseconds; None where this backend cannot know):

- ``kernel_ms``: GPU time of the recording kernel from CUDA events, with the GPU kept busy by a
  hold kernel while the launch was queued, so the host's launch cost (≈100 µs for eleven CuPy
  arguments) is not inside it. None on the simulator, or when the GPU went idle before the
  launch was queued (then the events would have timed the host too).
- ``span_ms``: the threads' own clock: max - min of the recorded ``%globaltimer`` start times
  (computed on the device). How far apart the recorded threads started; ≤ the kernel's time.
- ``run_span_ms``: the threads' own clock from the first recorded start to the end of the last
  block with a recorded thread: how long they ran. Shown first where known: the events' interval
  exceeds it by a constant ≈3.2 µs on the H200 at every size from 2^16 to 2^24 threads (the GPU
  launching and retiring the kernel and recording the events), which is not the threads' work.
- ``launch_host_ms``: host time of the launch call (argument handling): not kernel time.
- ``wall_ms``: the whole run on the host clock; ``verify_ms``, ``copy_ms`` as named.
"""

from __future__ import annotations

from collections.abc import Mapping

KERNEL_HOW = "GPU time: CUDA events, GPU kept busy"
KERNEL_HOW_SHORT = "GPU time, GPU kept busy"
SPAN_HOW = "threads' %globaltimer"


def format_ms(ms: float) -> str:
    """``4.1 µs`` below 0.1 ms (the 33-thread case), else ``0.456 ms``."""
    return f"{ms * 1000:.1f} µs" if ms < 0.1 else f"{ms:.3f} ms"


def kernel_time_words(timings: Mapping[str, float | None], backend: str = "sim") -> str:
    """E.g. ``kernel ran 26.8 µs (threads' %globaltimer, first start → last end); CUDA events
    30.0 µs (GPU time, GPU kept busy)``; without the threads' end time the events come first;
    on the simulator or the emulator (``backend``, as a record saves it), that it has no GPU clock."""
    kernel, span, ran = timings.get("kernel_ms"), timings.get("span_ms"), timings.get("run_span_ms")
    if ran is not None:
        words = f"kernel ran {format_ms(ran)} ({SPAN_HOW}, first start → last end)"
        if kernel is not None:
            words += f"; CUDA events {format_ms(kernel)} ({KERNEL_HOW_SHORT})"
        return words
    parts = []
    if kernel is not None:
        parts.append(f"kernel {format_ms(kernel)} ({KERNEL_HOW})")
    if span is not None:
        parts.append(f"threads started within {format_ms(span)} ({SPAN_HOW})")
    if not parts:
        if "launch_host_ms" in timings:  # a GPU run whose events could not be trusted
            return "kernel time not measured (the GPU went idle before the launch was queued)"
        cpu = "the CPU emulator" if backend == "emu" else "the simulator"
        return f"kernel time unknown ({cpu} has no GPU clock)"
    return ", ".join(parts)
