"""Index map end-to-end on the GPU: launch + record, verify on the device, copy the shown field.

    SIMTVIZ_BACKEND=gpu python benchmarks/record_gpu.py

Prints one row per size (medians of 7 runs after a warm-up); results go in docs/BENCHMARKS.md.
"""

from __future__ import annotations

import statistics
import time

from simtviz.backends import create_backend
from simtviz.core.launch import LaunchConfig
from simtviz.core.window import Window


def main() -> None:
    backend = create_backend("gpu")
    print(backend.info().label)
    cases = {
        "2^16 (256 × 256 blocks of 1)": LaunchConfig.of(256, 256),
        "2^20 (64×64 blocks of 16×16)": LaunchConfig.of((64, 64), (16, 16)),
        "2^24 (256×256 blocks of 16×16)": LaunchConfig.of((256, 256), (16, 16)),
        "2^24 1-D (65536 × 256)": LaunchConfig.of(65536, 256),
    }
    backend.record(LaunchConfig.of(1, 32))  # JIT compile
    print(
        f"{'launch':34} {'kernel ms':>10} {'record ms':>10} {'verify ms':>10} {'image ms':>9} {'total ms':>9}"
    )
    for name, config in cases.items():
        rows = []
        for _ in range(8):
            t0 = time.perf_counter()
            recording = backend.record(config, Window.full(config))  # 2^24 is over the default budget
            t1 = time.perf_counter()
            image = recording.image("global linear index")
            t2 = time.perf_counter()
            assert recording.verification.ok
            rows.append(
                (
                    recording.timings_ms["kernel_ms"],
                    recording.timings_ms["wall_ms"],
                    recording.timings_ms["verify_ms"],
                    (t2 - t1) * 1000,
                    (t2 - t0) * 1000,
                )
            )
            del recording, image
        med = [statistics.median(col) for col in zip(*rows[1:], strict=True)]
        print(f"{name:34} {med[0]:10.3f} {med[1]:10.3f} {med[2]:10.3f} {med[3]:9.3f} {med[4]:9.3f}")


if __name__ == "__main__":
    main()
