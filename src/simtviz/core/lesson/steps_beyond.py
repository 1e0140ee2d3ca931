"""The lesson's last steps, beyond the chapter: they open the app's other views."""

from __future__ import annotations

from simtviz.core.lesson.model import Step, TryIt

STEPS = (
    Step(
        "B1",
        "Beyond the chapter: your kernel",
        (
            "Write your own kernel and run it traced.",
            "See every out-of-bounds access, untouched element and collision.",
        ),
        "",
        (TryIt("open_view", "Open Your kernel", {"view": "kernelTab"}),),
        "Traced accesses and out-of-bounds indices.",
        "Kernel times.",
        beyond=True,
    ),
    Step(
        "B2",
        "Beyond the chapter: the schedule",
        (
            "Which SM ran each block, and when.",
            "Blocks run in waves when there are more than fit at once.",
        ),
        "",
        (TryIt("open_view", "Open the schedule view", {"view": "scheduleView"}),),
        "Nothing: only a GPU has SMs and a clock.",
        "The whole schedule: it is measured on a GPU.",
        beyond=True,
    ),
    Step(
        "B3",
        "Beyond the chapter: occupancy",
        (
            "How many blocks fit on one SM at once?",
            "Threads, registers and shared memory each set a limit.",
        ),
        "",
        (TryIt("open_view", "Open the occupancy view", {"view": "occupancyView"}),),
        "The theoretical occupancy for a built-in GPU profile.",
        "The current GPU's own numbers.",
        beyond=True,
    ),
)
