"""Run a script in a private mount namespace with a small tmpfs of its own (never the real /dev).

``unshare -m`` gives the child its own mounts: a tmpfs mounted there, and device nodes made on
it with ``mknod``, vanish with the child. Tests that need it skip, saying why, where
``unshare`` or ``mount`` is not allowed (not root, or a container without CAP_SYS_ADMIN).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"


@functools.cache
def why_not() -> str | None:
    """None when a private tmpfs can be mounted here; else the reason, for pytest.skip."""
    if not sys.platform.startswith("linux"):
        return "unshare -m needs Linux"
    if shutil.which("unshare") is None:
        return "the unshare command is not installed"
    probe = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", "mount -t tmpfs -o size=16k tmpfs /mnt"],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        return f"unshare -m with a tmpfs is not allowed here: {probe.stderr.strip()}"
    return None


def run_private(
    script: str, mount: Path, size: str = "64k", env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Run ``script`` (Python) with a ``size`` tmpfs mounted on ``mount`` in a private namespace.

    The script sees ``MOUNT`` (a Path) and ``report(dict)``; the dict is returned.
    """
    reason = why_not()
    if reason:
        pytest.skip(reason)
    mount.mkdir(parents=True, exist_ok=True)
    out = mount.parent / f"{mount.name}-report.json"
    body = (
        "import json, os, sys\nfrom pathlib import Path\n"
        f"MOUNT = Path({str(mount)!r})\n"
        f"def report(d):\n    Path({str(out)!r}).write_text(json.dumps(d))\n" + textwrap.dedent(script)
    )
    full_env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])),
        "QT_QPA_PLATFORM": "offscreen",
        **(env or {}),
    }
    done = subprocess.run(
        [
            "unshare",
            "-m",
            "--propagation",
            "private",
            "sh",
            "-c",
            f'mount -t tmpfs -o size={size} tmpfs "$1" && exec "$2" -c "$3"',
            "sh",
            str(mount),
            sys.executable,
            body,
        ],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
    )
    assert done.returncode == 0, f"the private script failed:\n{done.stdout}\n{done.stderr}"
    return json.loads(out.read_text())
