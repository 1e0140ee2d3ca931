"""The Qt-free, GPU-free core of simtviz: launch model, limits, oracle, recordings."""

from simtviz.core.launch import WARP_SIZE, Dim3, DimParseError, LaunchConfig
from simtviz.core.limits import (
    DRIVER_INVALID_VALUE,
    DeviceLimits,
    LimitViolation,
    explain,
    validate,
)
from simtviz.core.oracle import RECORD_FIELDS, Verification, expected_field, verify
from simtviz.core.recording import COLOR_FIELDS, Recording, load_npz
from simtviz.core.window import Window, choose_window

__all__ = [
    "COLOR_FIELDS",
    "DRIVER_INVALID_VALUE",
    "RECORD_FIELDS",
    "WARP_SIZE",
    "DeviceLimits",
    "Dim3",
    "DimParseError",
    "LaunchConfig",
    "LimitViolation",
    "Recording",
    "Verification",
    "Window",
    "choose_window",
    "expected_field",
    "explain",
    "load_npz",
    "validate",
    "verify",
]
