"""A new experiment with its own tab and CLI command, added as docs/ARCHITECTURE.md says ("To add
…"), touches only new files plus one line in each registry.

The test does it: it copies the package, writes the toy's files (the experiment in
``backends/toy/``, the tab in ``qt/tabs/toy/``, the command in ``cli/toy.py``), adds one line to
``experiment.BUILTIN``, ``qt.tabs.TABS`` and ``cli.COMMANDS``, and runs the copy in fresh
processes: the command prints its answer, ``backend.run("toy", …)`` answers on the simulator and
the emulator, and the window starts with the toy's tab, whose Run shows the answer.
"""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import simtviz

PACKAGE = Path(simtviz.__file__).parent

# The toy computes 0² + 1² + … + (n−1)²; for n = 4: 0 + 1 + 4 + 9 = 14, for n = 5: 14 + 16 = 30.
EXPERIMENT = '''"""The toy experiment: the sum of the squares below n, on any backend."""

from __future__ import annotations

from dataclasses import dataclass

from simtviz.backends.base import Backend, BackendInfo, Progress
from simtviz.backends.experiment import Experiment, register


@dataclass(frozen=True)
class ToyRequest:
    n: int


def squares(n: int) -> int:
    return sum(i * i for i in range(n))


class ToyExperiment:
    name = "toy"

    def check(self, request: ToyRequest, info: BackendInfo) -> None:
        if request.n < 0:
            raise ValueError("n must be 0 or more")

    def estimate_s(self, request: ToyRequest, info: BackendInfo) -> float | None:
        return None

    def run_gpu(self, backend: Backend, request: ToyRequest, progress: Progress | None) -> int:
        return squares(request.n)

    def run_sim(self, request: ToyRequest, info: BackendInfo, progress: Progress | None) -> int:
        return squares(request.n)

    def run_emu(self, request: ToyRequest, info: BackendInfo, progress: Progress | None) -> int:
        return squares(request.n)


TOY: Experiment[ToyRequest, int] = register(ToyExperiment())
'''

TAB = '''"""The toy's tab: Run, and the answer."""

from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from simtviz.backends.toy import ToyRequest


class ToyTab(QWidget):
    def __init__(self, session):
        super().__init__()
        self.setObjectName("toyTab")
        self.session = session
        self.answer = QLabel("not run yet", objectName="toyAnswer")
        button = QPushButton("Run", objectName="toyRun")
        button.clicked.connect(self.run)
        layout = QVBoxLayout(self)
        layout.addWidget(button)
        layout.addWidget(self.answer)
        session.resultArrived.connect(self._on_result)

    def run(self):
        self.session.run("toy", ToyRequest(5))

    def _on_result(self, experiment, result):
        if experiment == "toy":
            self.answer.setText(f"sum of squares below 5: {result}")
'''

COMMAND = '''"""``simtviz toy``: the toy experiment on the chosen backend."""

from simtviz.core.errors import EXIT_OK

NAME = "toy"
HELP = "the sum of the squares below --n"


def add_arguments(parser):
    parser.add_argument("--n", type=int, default=4)


def run(args):
    from simtviz.backends import create_backend
    from simtviz.backends.toy import ToyRequest

    backend = create_backend(args.backend)
    print(f"sum of squares below {args.n}: {backend.run('toy', ToyRequest(args.n))}")
    return EXIT_OK
'''

# The one line each registry gets, and the start of the line it goes after.
REGISTRY_LINES = {
    "backends/experiment.py": ('    "exercise": ', '    "toy": "simtviz.backends.toy",'),
    "qt/tabs/__init__.py": (
        '    TabSpec("Exercises", ',
        '    TabSpec("Toy", "toyTab", Lazy("toy.tab:ToyTab"), run=lambda t: t.run()),',
    ),
    "cli/__init__.py": ('    "record", "vecadd", ', '    "toy",'),
}

WINDOW = """
import sys
from PySide6.QtWidgets import QApplication, QLabel, QPushButton
app = QApplication([])
from simtviz.backends import create_backend
from simtviz.backends.toy import ToyRequest
from simtviz.gui import create_main_window
from PySide6.QtCore import QSettings, QDeadlineTimer, QThread

print("emu", create_backend("emu").run("toy", ToyRequest(4)))
settings = QSettings(sys.argv[1], QSettings.Format.IniFormat)
window = create_main_window(backend="emu", settings=settings)
window.show()
print("tabs", [window.tabs.tabText(i) for i in range(window.tabs.count())])
window.session.show(window.toyTab)  # the show intent: the window brings its page forward
answer = window.findChild(QLabel, "toyAnswer")
deadline = QDeadlineTimer(60_000)
while window.session.backend is None and not deadline.hasExpired():
    app.processEvents()
    QThread.msleep(10)
window.menuActions["runAction"].trigger()  # Ctrl+R on the shown tab: the toy's run
while answer.text() == "not run yet" and not deadline.hasExpired():
    app.processEvents()
    QThread.msleep(10)
print("answer", answer.text())
window.close()
"""


@pytest.fixture(scope="module")
def toy_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the package with the toy added: new files, and one line in each registry."""
    root = tmp_path_factory.mktemp("toy")
    copy = root / "src" / "simtviz"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    # A source checkout keeps the presets and templates beside src/ (simtviz.resources finds them).
    resources = PACKAGE.parent.parent / "resources"
    if resources.is_dir():
        (root / "resources").symlink_to(resources)
    (copy / "backends" / "toy").mkdir()
    (copy / "backends" / "toy" / "__init__.py").write_text(EXPERIMENT)
    (copy / "qt" / "tabs" / "toy").mkdir()
    (copy / "qt" / "tabs" / "toy" / "__init__.py").write_text("")
    (copy / "qt" / "tabs" / "toy" / "tab.py").write_text(TAB)
    (copy / "cli" / "toy.py").write_text(COMMAND)
    for name, (after, line) in REGISTRY_LINES.items():
        path = copy / name
        lines = path.read_text().splitlines(keepends=True)
        at = [i for i, text in enumerate(lines) if text.startswith(after)]
        assert len(at) == 1, f"{name} no longer has one line starting {after!r}"
        lines.insert(at[0] + 1, line + "\n")
        path.write_text("".join(lines))
    return root


def _changed_lines(root: Path) -> dict[str, list[str]]:
    """Each file of the original package that the copy changed, with the lines it added or removed."""
    changed: dict[str, list[str]] = {}
    for original in PACKAGE.rglob("*.py"):
        if "__pycache__" in original.parts:
            continue
        name = original.relative_to(PACKAGE).as_posix()
        a, b = original.read_text().splitlines(), (root / "src" / "simtviz" / name).read_text().splitlines()
        diff = [d for d in difflib.ndiff(a, b) if d[:1] in "+-"]
        if diff:
            changed[name] = diff
    return changed


def _run(root: Path, *args: str, timeout: int = 240) -> subprocess.CompletedProcess[str]:
    # The toy's copy first; then what the caller had (where a machine installs Qt or numpy aside).
    path = os.pathsep.join(p for p in (str(root / "src"), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path, "QT_QPA_PLATFORM": "offscreen"}
    env.pop("SIMTVIZ_BACKEND", None)
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, timeout=timeout, cwd=root
    )


def test_the_toy_touches_only_new_files_and_one_line_per_registry(toy_package: Path) -> None:
    changed = _changed_lines(toy_package)
    assert set(changed) == set(REGISTRY_LINES)
    for name, lines in changed.items():
        assert lines == ["+ " + REGISTRY_LINES[name][1]], name


def test_the_toy_command_runs_on_the_simulator(toy_package: Path) -> None:
    done = _run(toy_package, "-m", "simtviz", "toy", "--n", "4", "--backend", "sim")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "sum of squares below 4: 14"
    listed = _run(toy_package, "-m", "simtviz", "--help")
    assert "toy" in listed.stdout and "the sum of the squares below --n" in listed.stdout


def test_the_window_starts_with_the_toy_tab_and_runs_it_on_the_emulator(
    toy_package: Path, tmp_path: Path
) -> None:
    script = tmp_path / "window.py"
    script.write_text(WINDOW)
    done = _run(toy_package, str(script), str(tmp_path / "simtviz.ini"))
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
    assert lines["emu"] == "14"  # backend.run("toy", ToyRequest(4)) on the emulator, in process
    tabs = lines["tabs"]
    assert tabs.startswith("['Index map'") and tabs.endswith("'Exercises', 'Toy']")
    assert lines["answer"] == "sum of squares below 5: 30"  # through the session and the worker
