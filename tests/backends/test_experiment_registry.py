"""Every experiment package under backends/ is built in: ``backend.run(name, …)`` finds it by name
in a fresh process, before anything imported its module."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from simtviz.backends import experiment

BACKENDS = Path(experiment.__file__).parent
# ``LESSON = register(LessonExperiment())``, typed or not (``VECADD: Experiment[…] = …``);
# the name is the class's ``name = "…"``.
REGISTERS = re.compile(r"^\w+(?:: [^=\n]+)? = (?:experiment\.)?register\(", re.MULTILINE)


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
    # The six known today; a new package's experiment must join BUILTIN too.
    assert set(found.values()) >= {"record", "vecadd", "trace", "schedule", "lesson", "exercise"}
    for module, name in found.items():
        assert experiment.BUILTIN.get(name) == module, f"{name!r} ({module}) is missing from BUILTIN"


# In a fresh interpreter, ``Backend.run(name, …)`` must find the experiment by its name alone:
# its ``info()`` (called once the experiment is resolved, before its check) stops the run there.
PROBE = """
import sys
from simtviz.backends import experiment
from simtviz.backends.base import Backend

class Resolved(Exception):
    pass

class Probe(Backend):
    kind = "emu"
    def info(self):
        raise Resolved

name = sys.argv[1]
assert name not in experiment._REGISTRY
try:
    Probe().run(name, None)
except Resolved:
    found = experiment._REGISTRY[name]
    print(found.name, type(found).__module__)
"""


def test_backend_run_resolves_every_builtin_by_name_in_a_fresh_process() -> None:
    procs = {
        name: subprocess.Popen(
            [sys.executable, "-c", PROBE, name], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for name in experiment.BUILTIN
    }
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, f"{name}: {err}"
        assert out.split() == [name, experiment.BUILTIN[name]], name
