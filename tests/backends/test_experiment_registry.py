"""Every experiment package under backends/ is built in: ``backend.run(name, …)`` finds it by name
in a fresh process, before anything imported its module."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from simtviz.backends import experiment

BACKENDS = Path(experiment.__file__).parent
# ``LESSON = register(LessonExperiment())`` and the like; the name is the class's ``name = "…"``.
REGISTERS = re.compile(r"^\w+ = (?:experiment\.)?register\(", re.MULTILINE)


def registering_modules() -> dict[str, str]:
    """module path → the experiment name it registers, for every module of a backends/ package."""
    found = {}
    for path in sorted(BACKENDS.glob("*/*.py")):
        text = path.read_text(encoding="utf-8")
        if REGISTERS.search(text):
            name = re.search(r'^\s+name = "([^"]+)"', text, re.MULTILINE)
            assert name, f'{path} registers an experiment without a name = "…" line'
            parts = path.relative_to(BACKENDS.parent.parent).with_suffix("").parts
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[module] = name.group(1)
    return found


def test_every_experiment_package_is_in_builtin() -> None:
    found = registering_modules()
    # The five known today; a new package's experiment must join BUILTIN too.
    assert set(found.values()) >= {"record", "vecadd", "trace", "schedule", "lesson"}
    for module, name in found.items():
        assert experiment.BUILTIN.get(name) == module, f"{name!r} ({module}) is missing from BUILTIN"


def test_lesson_runs_by_name_in_a_fresh_process() -> None:
    # No test imported the lesson module there: only BUILTIN can lead get("lesson") to it.
    code = (
        "from simtviz.backends import experiment; "
        "e = experiment.get('lesson'); print(e.name, type(e).__module__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["lesson", "simtviz.backends.lesson.experiment"]
