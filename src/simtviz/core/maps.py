"""What the index map draws, as host arrays: one image per z-plane of a recording and its levels.

Host (NumPy) recordings give every plane at once (the simulator's records are small and already
on the host). Device (CuPy) recordings stay on the GPU: ``device_images`` runs in a worker job and
brings only the planes asked for across, each as one int32 image; the levels come back as two
numbers. ``map_images`` picks between the two, so callers never ask where the records live. No Qt
here, and no CuPy import: the recording carries its array module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from simtviz.core.recording import Recording


@dataclass(frozen=True)
class MapImages:
    """Images of ``field`` for some z-planes of ``recording`` (plane index within the window)."""

    recording: Recording
    field: str
    planes: dict[int, np.ndarray]
    levels: tuple[float, float]  # of the known values (>= 0) of the whole window
    any_known: bool  # False when every value is -1 (a GPU-only field in the simulator)


def is_device(recording: Recording | None) -> bool:
    return recording is not None and recording.xp is not np


def _levels(values: Any) -> tuple[tuple[float, float], bool]:
    known = values[values >= 0]
    if not known.size:
        return (0.0, 1.0), False
    lo, hi = float(known.min()), float(known.max())
    return (lo, max(hi, lo + 1)), True


def host_images(recording: Recording, field: str) -> MapImages:
    """Every plane of a NumPy recording."""
    values = np.asarray(recording.color_values(field)).reshape(recording.plane_shape())
    levels, known = _levels(values)
    return MapImages(recording, field, {z: values[z] for z in range(values.shape[0])}, levels, known)


def device_images(recording: Recording, field: str, planes: tuple[int, ...]) -> MapImages:
    """The ``planes`` asked for of a device recording; for a worker thread, never the GUI's."""
    values = recording.color_values(field).reshape(recording.plane_shape())
    levels, known = _levels(values)
    images = {z: np.asarray(recording.plane_to_host(values[z])) for z in planes}
    return MapImages(recording, field, images, levels, known)


def map_images(recording: Recording, field: str, planes: tuple[int, ...]) -> MapImages:
    """Images of ``field`` for at least ``planes``: every plane of a host recording, the planes asked
    for of a device one (call it off the GUI thread when the recording is on a device)."""
    if is_device(recording):
        return device_images(recording, field, planes)
    return host_images(recording, field)
