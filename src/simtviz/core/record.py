"""The ``record`` experiment's request, shared by the backends and the experiment's halves."""

from __future__ import annotations

from dataclasses import dataclass

from simtviz.core.launch import LaunchConfig
from simtviz.core.window import Window, choose_window


@dataclass(frozen=True, slots=True)
class RecordRequest:
    config: LaunchConfig
    window: Window | None = None  # None: choose_window's default
    force: bool = False

    @property
    def chosen_window(self) -> Window:
        return self.window or choose_window(self.config)
