"""README says what the student's file can do in the trace child, and the limits it names are
the ones the code sets (issue 24, item 4): no promise of a sandbox, no number that drifted."""

from __future__ import annotations

from repo_paths import ROOT
from simtviz.backends.child_limits import ADDRESS_SPACE_BYTES, EXTRA_TASKS, OPEN_FILES
from simtviz.core.files import KERNEL_FILE_LIMIT
from simtviz.core.trace.args import ARRAY_BUDGET_BYTES


def readme_section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("**What your file can do (it is not a sandbox).**")
    return " ".join(text[start : text.index("\n\n", start)].split())


def test_readme_no_longer_says_top_level_code_never_runs() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "are not run at all" not in text
    section = readme_section()
    for runs in ("decorator", "default value", "re-bound name", "your own user's rights"):
        assert runs in section


def test_the_limits_readme_names_are_the_code_s() -> None:
    section = readme_section()
    assert ADDRESS_SPACE_BYTES == 16 << 30 and "address space 16 GiB" in section
    assert OPEN_FILES == 1024 and "open files 1,024" in section
    assert EXTRA_TASKS == 2048 and "plus 2,048" in section
    assert ARRAY_BUDGET_BYTES == 2 << 30 and "2 GiB together" in section
    assert KERNEL_FILE_LIMIT == 1_000_000 and "the file 1 MB" in section


def test_reliability_doc_describes_the_child() -> None:
    text = (ROOT / "docs" / "RELIABILITY.md").read_text(encoding="utf-8")
    assert "2026-12-03" in text and "not a sandbox" in text
