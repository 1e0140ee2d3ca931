"""Where things are in the repository, for tests in any folder (tests/ is on pytest's path)."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
SRC = ROOT / "src"
DATA = TESTS / "data"
