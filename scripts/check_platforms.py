"""Can simtviz be installed where there is no CUDA? Resolve its dependencies for other platforms.

    python scripts/check_platforms.py [--target macos-arm64 ...] [--extra test] [--json]

For each target (default: macOS arm64 and Windows x86-64, Python 3.11), pip's dry run resolves
this project's dependencies (``pyproject.toml``) from PyPI, binary wheels only, as that
platform's pip would, and this prints what would be installed, or the requirement nothing
satisfies there. Exit 0 when every target resolves, 1 otherwise.

pip does not apply ``--platform`` to environment markers (it reads them on the machine it runs
on), so the markers of simtviz's own dependencies are evaluated here for the target and pip gets
only the requirements that apply there. Markers of *their* dependencies are still read against
this machine: the check is exact for simtviz's own list (CuPy, numba-cuda and its CUDA extra),
which is where a platform without CUDA breaks.

pip runs ``--isolated`` (this machine's pip configuration, constraints and local wheel folders do
not decide what a laptop elsewhere would get), on PyPI, with the certificate bundle of
``$PIP_CERT`` / ``$SSL_CERT_FILE`` when one is set.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.markers import default_environment
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
PYTHON_VERSION = "3.11"
# Shown first in the report: the packages whose wheels decide whether a platform works.
KEY_PACKAGES = ("numba-cuda", "numba", "llvmlite", "numpy", "cupy-cuda12x", "pyside6-essentials", "pyqtgraph")


@dataclass(frozen=True)
class Target:
    platforms: tuple[str, ...]  # pip's --platform tags (each given: pip does not widen them all)
    env: dict[str, str]  # environment markers there

    @property
    def platform(self) -> str:
        return self.platforms[0]


def manylinux(machine: str, newest_glibc: int = 39) -> tuple[str, ...]:
    """A current Linux's wheel tags: glibc 2.<newest> down to 2.17 (= manylinux2014)."""
    tags = tuple(f"manylinux_2_{minor}_{machine}" for minor in range(newest_glibc, 16, -1))
    return (*tags, f"manylinux2014_{machine}")


def macos(machine: str, newest: int = 14) -> tuple[str, ...]:
    """macOS <newest> down to 11 (the first on Apple silicon)."""
    return tuple(f"macosx_{major}_0_{machine}" for major in range(newest, 10, -1))


TARGETS: dict[str, Target] = {
    "macos-arm64": Target(
        macos("arm64"),
        {
            "sys_platform": "darwin",
            "platform_system": "Darwin",
            "platform_machine": "arm64",
            "os_name": "posix",
        },
    ),
    "windows-x86_64": Target(
        ("win_amd64",),
        {"sys_platform": "win32", "platform_system": "Windows", "platform_machine": "AMD64", "os_name": "nt"},
    ),
    "linux-x86_64": Target(
        manylinux("x86_64"),
        {
            "sys_platform": "linux",
            "platform_system": "Linux",
            "platform_machine": "x86_64",
            "os_name": "posix",
        },
    ),
    "linux-aarch64": Target(
        manylinux("aarch64"),
        {
            "sys_platform": "linux",
            "platform_system": "Linux",
            "platform_machine": "aarch64",
            "os_name": "posix",
        },
    ),
}
DEFAULT_TARGETS = ("macos-arm64", "windows-x86_64")


def marker_environment(target: Target, extra: str = "") -> dict[str, str]:
    env = dict(default_environment())
    env.update(target.env)
    env.update(python_version=PYTHON_VERSION, python_full_version=f"{PYTHON_VERSION}.0", extra=extra)
    env.update(implementation_name="cpython", platform_python_implementation="CPython")
    return env


def requirements_for(target: Target, extras: tuple[str, ...] = ()) -> list[str]:
    """simtviz's requirements that apply on ``target``, markers evaluated there and removed."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = list(project["dependencies"])
    for extra in extras:
        lines += project.get("optional-dependencies", {}).get(extra, [])
    chosen = []
    for line in lines:
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate(marker_environment(target)):
            req.marker = None
            chosen.append(str(req))
    return chosen


def pip_command(target: Target, requirements: list[str]) -> list[str]:
    args = [sys.executable, "-m", "pip", "install", "--isolated", "--dry-run", "--ignore-installed"]
    args += ["--only-binary=:all:", "--python-version", PYTHON_VERSION]
    for tag in target.platforms:
        args += ["--platform", tag]
    args += ["--implementation", "cp", "--index-url", "https://pypi.org/simple", "--quiet", "--report", "-"]
    cert = os.environ.get("PIP_CERT") or os.environ.get("SSL_CERT_FILE")
    if cert:
        args += ["--cert", cert]
    return args + requirements


def resolve(name: str, extras: tuple[str, ...] = (), timeout: float = 600) -> dict[str, Any]:
    """``{target, platform, requirements, ok, install: {name: version}, error}`` for target ``name``."""
    target = TARGETS[name]
    requirements = requirements_for(target, extras)
    out = subprocess.run(pip_command(target, requirements), capture_output=True, text=True, timeout=timeout)
    result: dict[str, Any] = {
        "target": name,
        "platform": target.platform,
        "python": PYTHON_VERSION,
        "requirements": requirements,
        "ok": out.returncode == 0,
        "install": {},
        "error": "",
    }
    if out.returncode == 0:
        report = json.loads(out.stdout)
        result["install"] = {
            _normal(item["metadata"]["name"]): item["metadata"]["version"] for item in report["install"]
        }
    else:
        errors = [line for line in out.stderr.splitlines() if line.startswith("ERROR")]
        result["error"] = "\n".join(errors[-3:]) or out.stderr.strip()[-1000:]
    return result


def _normal(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def describe(result: dict[str, Any]) -> str:
    head = f"{result['target']} ({result['platform']}, Python {result['python']}): "
    if not result["ok"]:
        return head + "FAILS\n    " + result["error"].replace("\n", "\n    ")
    install = result["install"]
    keys = [f"{name} {install[name]}" for name in KEY_PACKAGES if name in install]
    absent = [name for name in ("cupy-cuda12x",) if name not in install]
    text = head + f"resolves, {len(install)} packages\n    " + ", ".join(keys)
    if absent:
        text += f"\n    without {', '.join(absent)} (no CUDA there: the app runs on emu and sim)"
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--target", action="append", choices=sorted(TARGETS), help="default: macOS arm64, Windows x86-64"
    )
    parser.add_argument(
        "--extra", action="append", default=[], help="also an optional-dependencies group (test)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON list on stdout")
    args = parser.parse_args(argv)
    results = [resolve(name, tuple(args.extra)) for name in (args.target or DEFAULT_TARGETS)]
    if args.json:
        print(json.dumps(results))
    else:
        print("\n".join(describe(r) for r in results))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
