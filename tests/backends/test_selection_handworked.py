"""Choosing the backend (``backends.selection``) with the CUDA driver, numba and NVIDIA's
bindings stood in for: every answer the driver probe gives, what ``auto`` resolves to, and what
``activate`` sets up or refuses, in the words a user reads."""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib.util
import sys
import types
from typing import Any

import pytest

from simtviz.backends import selection
from simtviz.backends.selection import (
    BackendChoiceError,
    activate,
    cuda_bindings_installed,
    numba_is_simulated,
    requested_backend,
    resolve_backend,
)

probe = selection.gpu_probe.__wrapped__  # the probe itself, not the process's cached answer


class Driver:
    """libcuda: cuInit returns ``init``; cuDeviceGetCount returns ``rc`` and writes ``count``."""

    def __init__(self, init: int = 0, rc: int = 0, count: int = 1) -> None:
        self.init, self.rc, self.count = init, rc, count
        self.flags: list[int] = []

    def cuInit(self, flags: int) -> int:
        self.flags.append(flags)
        return self.init

    def cuDeviceGetCount(self, ref: Any) -> int:
        ref._obj.value = self.count
        return self.rc


def _driver(monkeypatch: pytest.MonkeyPatch, lib: object | None, found: str | None = None) -> list[str]:
    """Stand in for the library search; returns the names tried, in order."""
    tried: list[str] = []

    def cdll(name: str) -> object:
        tried.append(name)
        if lib is None:
            raise OSError(f"{name}: cannot open shared object file")
        return lib

    monkeypatch.setattr(ctypes.util, "find_library", lambda name: found)
    monkeypatch.setattr(ctypes, "CDLL", cdll)
    return tried


def test_without_libcuda_every_name_is_tried_and_none_found(monkeypatch: pytest.MonkeyPatch) -> None:
    tried = _driver(monkeypatch, None)
    assert probe() == (False, "no NVIDIA driver (libcuda) found")
    assert tried == ["libcuda.so.1", "libcuda.so", "nvcuda.dll"]


def test_the_library_the_system_names_is_tried_first(monkeypatch: pytest.MonkeyPatch) -> None:
    lib = Driver(count=2)
    tried = _driver(monkeypatch, lib, found="libcuda.so.535")
    assert probe() == (True, "2 NVIDIA GPU(s) found")
    assert tried == ["libcuda.so.535"] and lib.flags == [0]  # cuInit's flags must be 0


@pytest.mark.parametrize(
    ("lib", "answer"),
    [
        (Driver(count=1), (True, "1 NVIDIA GPU(s) found")),  # one GPU is enough
        (Driver(count=0), (False, "the NVIDIA driver reports no GPU")),
        (Driver(rc=100, count=1), (False, "the NVIDIA driver reports no GPU")),  # the call failed
        (Driver(init=100), (False, "the NVIDIA driver found no usable GPU (cuInit failed)")),
    ],
)
def test_each_answer_of_the_driver(
    monkeypatch: pytest.MonkeyPatch, lib: Driver, answer: tuple[bool, str]
) -> None:
    _driver(monkeypatch, lib)
    assert probe() == answer


def test_a_driver_without_its_functions_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    _driver(monkeypatch, object())
    found, why = probe()
    assert not found and why.startswith("the NVIDIA driver could not be queried (")


def test_the_flag_then_the_environment_then_auto(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SIMTVIZ_BACKEND", raising=False)
    assert requested_backend() == "auto"
    assert requested_backend(" SIM ") == "sim"
    monkeypatch.setenv("SIMTVIZ_BACKEND", "Emu")
    assert requested_backend() == "emu" and requested_backend("gpu") == "gpu"
    with pytest.raises(BackendChoiceError, match="unknown backend 'cuda': choose one of auto, gpu, emu, sim"):
        requested_backend("cuda")


def test_auto_is_the_gpu_when_the_driver_sees_one_else_the_emulator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(selection, "gpu_probe", lambda: (False, "no NVIDIA driver (libcuda) found"))
    assert resolve_backend("auto") == "emu" and resolve_backend("sim") == "sim"
    monkeypatch.setattr(selection, "gpu_probe", lambda: (True, "1 NVIDIA GPU(s) found"))
    assert resolve_backend("auto") == "gpu" and resolve_backend("emu") == "emu"


def test_numba_simulated_or_not_or_not_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "numba", raising=False)
    assert numba_is_simulated() is None
    fake = types.ModuleType("numba")
    fake.config = types.SimpleNamespace(ENABLE_CUDASIM=1)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "numba", fake)
    assert numba_is_simulated() is True
    fake.config.ENABLE_CUDASIM = 0  # type: ignore[attr-defined]
    assert numba_is_simulated() is False


@pytest.mark.parametrize(
    ("find_spec", "installed"),
    [(lambda name: object(), True), (lambda name: None, False)],
)
def test_cuda_bindings_found_or_not(monkeypatch: pytest.MonkeyPatch, find_spec: Any, installed: bool) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    assert cuda_bindings_installed() is installed


@pytest.mark.parametrize("error", [ImportError, ValueError])
def test_no_cuda_package_at_all_is_no_bindings(
    monkeypatch: pytest.MonkeyPatch, error: type[Exception]
) -> None:
    def find_spec(name: str) -> None:
        raise error(name)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    assert cuda_bindings_installed() is False


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """numba's two variables unset (and put back afterwards, whatever activate() writes)."""
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    monkeypatch.delenv("NUMBA_CUDA_USE_NVIDIA_BINDING", raising=False)
    return monkeypatch


def _numba(monkeypatch: pytest.MonkeyPatch, simulated: bool | None, bindings: bool = True) -> None:
    monkeypatch.setattr(selection, "numba_is_simulated", lambda: simulated)
    monkeypatch.setattr(selection, "cuda_bindings_installed", lambda: bindings)


def test_before_numba_sim_sets_the_simulator_and_gpu_clears_it(env: pytest.MonkeyPatch) -> None:
    import os

    _numba(env, None, bindings=True)
    activate("sim")
    assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1" and "NUMBA_CUDA_USE_NVIDIA_BINDING" not in os.environ
    activate("gpu")
    assert "NUMBA_ENABLE_CUDASIM" not in os.environ
    _numba(env, None, bindings=False)  # no NVIDIA bindings: numba-cuda is told to use its ctypes ones
    activate("sim")
    assert (
        os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
        and os.environ.get("NUMBA_CUDA_USE_NVIDIA_BINDING") == "0"
    )


def test_the_emulator_needs_nothing_whatever_numba_is(env: pytest.MonkeyPatch) -> None:
    import os

    for simulated in (None, True, False):
        _numba(env, simulated)
        activate("emu")
        assert "NUMBA_ENABLE_CUDASIM" not in os.environ


def test_after_numba_only_the_same_kind_is_accepted(env: pytest.MonkeyPatch) -> None:
    _numba(env, True)
    activate("sim")
    with pytest.raises(BackendChoiceError) as refused:
        activate("gpu")
    assert str(refused.value) == (
        "this process already imported numba with the CUDA simulator, so it cannot switch to the gpu "
        "backend; start a new process with --backend gpu"
    )
    _numba(env, False)
    activate("gpu")
    with pytest.raises(
        BackendChoiceError, match="numba without the CUDA simulator, so it cannot switch to the sim"
    ):
        activate("sim")


def test_activate_takes_a_resolved_kind_only() -> None:
    with pytest.raises(BackendChoiceError, match="activate\\(\\) takes 'gpu', 'emu' or 'sim', not 'auto'"):
        activate("auto")
