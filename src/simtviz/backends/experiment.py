"""Experiments: what a backend can run, and the registry the simulator's child process reads.

An experiment is a small object with a ``name`` and four methods: ``check(request, info)``
raises before anything runs (a launch the device would reject, one that needs confirmation);
``estimate_s(request, info)`` says how long it will take, if it knows (None otherwise);
``run_gpu(backend, request, progress)`` and ``run_sim(request, info, progress)`` run it.
It is typed by what it takes and gives, ``Experiment[RequestT, ResultT]`` (a Protocol: an
experiment need not inherit from it), so ``backend.run(VECADD, request)`` is checked by mypy: a
request of the wrong type is an error and the result has the experiment's type. By name
(``backend.run("vecadd", ...)``) the result is ``Any``. ``BUILTIN`` lists the built-in ones; a
new one is a module that defines one and calls ``register`` at import. The simulator child
process is told the experiment's name and module path, imports the module, and runs
``get(name).run_sim`` there: requests and results must pickle.

An experiment may also define ``run_emu(request, info, progress)``: the same run on simtviz's
lockstep CPU emulator (``simtviz.emu``, NumPy only, numba not imported). It raises
``core.errors.EmulatorUnsupported`` for a construct the emulator cannot run; the emulator backend
then runs ``run_sim`` instead and says why.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, TypeVar, runtime_checkable

if TYPE_CHECKING:
    from simtviz.backends.base import Backend, BackendInfo, Progress

# Built-in experiments, imported on first use so that nothing here imports numba early.
BUILTIN: dict[str, str] = {
    "record": "simtviz.backends.record",
    "vecadd": "simtviz.backends.vecadd",
    "trace": "simtviz.backends.trace",
    "schedule": "simtviz.backends.schedule",
    "lesson": "simtviz.backends.lesson.experiment",
    "exercise": "simtviz.backends.exercise",
}

# Experiments whose ``warm_up_gpu(backend)`` hook the GPU backend calls before it reports ready,
# in this order (named, not imported: the backend imports no experiment). A hook does what the
# first Run needs and returns the rest as ``WarmUpStep``s, run after ready at low priority.
WARM_UP_GPU: tuple[str, ...] = ("record", "schedule")

# What an experiment takes (only ever passed in) and gives (only ever returned): an experiment
# that accepts any request stands in for one that takes a narrower one.
RequestT = TypeVar("RequestT", contravariant=True)
ResultT = TypeVar("ResultT", covariant=True)


@runtime_checkable
class Experiment(Protocol[RequestT, ResultT]):
    @property
    def name(self) -> str:
        """The name it is run by (``backend.run(name, ...)``, the CLI, the child process)."""

    def check(self, request: RequestT, info: BackendInfo) -> None:
        """Raise LaunchRejected / LaunchTooLarge / … before anything runs."""

    def estimate_s(self, request: RequestT, info: BackendInfo) -> float | None:
        """Seconds a run takes on ``info``'s device, when known before it reports progress itself."""

    def run_gpu(self, backend: Backend, request: RequestT, progress: Progress | None) -> ResultT:
        """Run on the GPU backend's device (numba-cuda and CuPy are importable)."""

    def run_sim(self, request: RequestT, info: BackendInfo, progress: Progress | None) -> ResultT:
        """Run on the CUDA simulator, in whichever process calls it (numba simulated there)."""


# Any experiment, as the registry and the backends hold them (their requests pass through).
AnyExperiment: TypeAlias = Experiment[Any, Any]
E = TypeVar("E", bound=AnyExperiment)

_REGISTRY: dict[str, AnyExperiment] = {}


def is_isolated(experiment: AnyExperiment) -> bool:
    """True when ``experiment`` runs in a fresh child process per run, with a time limit
    (``isolated = True``; ``backends.isolated``). Such an experiment may define
    ``child_session(kind)``, what it does in that child (``isolated_child.ChildSession``); without
    one the child runs its ``run_gpu`` / ``run_sim`` / ``run_emu`` half there."""
    return bool(getattr(experiment, "isolated", False))


def register(experiment: E) -> E:
    """Make ``experiment`` runnable by name; registering the same name again replaces it."""
    _REGISTRY[experiment.name] = experiment
    return experiment


def get(name: str) -> AnyExperiment:
    if name not in _REGISTRY and name in BUILTIN:
        importlib.import_module(BUILTIN[name])
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"no experiment {name!r}; registered: {', '.join(names())}") from None


def names() -> list[str]:
    return sorted(set(BUILTIN) | set(_REGISTRY))


def resolve(experiment: AnyExperiment | str) -> AnyExperiment:
    return get(experiment) if isinstance(experiment, str) else experiment


def module_of(experiment: AnyExperiment) -> str:
    """The module the simulator child imports to find ``experiment`` registered."""
    return type(experiment).__module__


def load(module: str, name: str) -> AnyExperiment:
    """In the child process: import ``module`` (it registers its experiments), then ``get(name)``."""
    importlib.import_module(module)
    return get(name)
