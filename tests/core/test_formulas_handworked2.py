"""Where a recording ran, in the words of the map's title and ``simtviz record``, for GPU runs."""

from __future__ import annotations

from simtviz.core.formulas import backend_words


def test_a_gpu_recording_names_its_device_and_one_without_a_name_says_the_gpu() -> None:
    # "gpu:" + the device's name: the name after the colon, as the driver gave it.
    assert backend_words("gpu:NVIDIA H200") == "ran on the GPU: NVIDIA H200"
    # A backend of just "gpu": no device name to give.
    assert backend_words("gpu") == "ran on the GPU"
