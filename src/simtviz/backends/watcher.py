"""A progress watcher beside a simulator launch that blocks the calling thread.

numba's simulator runs a launch on the calling thread; a second thread looks at what the launch
has written so far and reports it. The watcher is started inside the ``try`` and is a daemon:
a Ctrl+C that lands while ``Thread.start`` waits for the new thread (a loaded machine) must
still stop it, or the CLI's exit waits forever on a watcher reporting 0 %.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def watching(
    tick: Callable[[], None] | None, every_s: float, name: str = "simtviz-progress"
) -> Iterator[None]:
    """Call ``tick`` every ``every_s`` seconds on another thread while the block runs (never
    after it ends); ``None`` watches nothing."""
    if tick is None:
        yield
        return
    done = threading.Event()

    def watch() -> None:
        while not done.wait(every_s):
            tick()

    watcher = threading.Thread(target=watch, name=name, daemon=True)
    try:
        watcher.start()
        yield
    finally:
        done.set()
        if watcher.ident is not None:  # started, even if start() itself was interrupted
            watcher.join()
