"""Extreme command-line arguments and malformed record files are said in words (issue 11.7)."""

from __future__ import annotations

import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

from sample_recording import make_recording
from simtviz import cli
from simtviz.core.errors import RecordFileError, describe
from simtviz.core.recording import load_npz


def test_budget_0_is_refused_not_taken_as_the_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.npz"
    code = cli.run(["record", "--grid", "4", "--block", "32", "--budget", "0", "--out", str(out)])
    assert code == 2
    assert "argument --budget: 0 is too small: it must be at least 1" in capsys.readouterr().err
    assert not out.exists()


def test_a_5000_digit_grid_is_said_without_internal_names(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.run(["record", "--grid", "9" * 5000, "--block", "32", "--out", "r.npz"])
    err = capsys.readouterr().err
    assert code == 2
    assert "argument --grid: '999999999999…' (5,000 characters) is far too long" in err
    assert "dim" not in err.replace("--grid", "") and len(err) < 300


def test_vecadd_out_of_memory_says_a_smaller_n_never_budget(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import simtviz.backends.vecadd as vecadd

    def no_memory(*_args: object, **_kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(vecadd, "run_vecadd", no_memory)
    assert cli.run(["vecadd", "--n", "4000000000", "--backend", "sim"]) == 4
    err = capsys.readouterr().err
    assert err.strip() == "simtviz: not enough memory for this run; try a smaller --n"
    assert "budget" not in describe(MemoryError()).todo.lower()


def _bad_files(tmp: Path) -> dict[str, Path]:
    good = make_recording().save_npz(tmp / "good.npz")
    files = {"text": tmp / "notes.npz", "npy": tmp / "one.npy", "truncated": tmp / "cut.npz"}
    files["text"].write_text("grid,block\n4,32\n")
    np.save(files["npy"], np.arange(4))
    files["truncated"].write_bytes(good.read_bytes()[:300])
    with np.load(good) as data:
        arrays = dict(data)
    np.savez(tmp / "nokey.npz", **{k: v for k, v in arrays.items() if k != "warp"})
    files["nokey"] = tmp / "nokey.npz"
    np.savez(tmp / "rows.npz", **{**arrays, "laneid": arrays["laneid"][:10]})
    files["rows"] = tmp / "rows.npz"
    # A pickled object where an array should be: loading it would run code of the file's choosing.
    with zipfile.ZipFile(tmp / "pickled.npz", "w") as z:
        for k, v in arrays.items():
            with z.open(f"{k}.npy", "w") as fh:
                np.lib.format.write_array(
                    fh, np.array([object()]) if k == "backend" else v, allow_pickle=True
                )
    files["pickled"] = tmp / "pickled.npz"
    return files


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("text", "is not a NumPy .npz archive"),
        ("npy", "holds a single array (.npy), not a simtviz record"),
        ("truncated", "is not a NumPy .npz archive"),
        ("nokey", "is not a simtviz record: it has no warp"),
        ("rows", "is damaged: laneid: 10 rows for 64 threads"),
        ("pickled", "backend holds Python objects, which simtviz never loads"),
    ],
)
def test_malformed_record_files_are_said_in_words_and_never_unpickled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, message: str
) -> None:
    files = _bad_files(tmp_path)

    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("unpickled")

    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "load", refuse)
    with pytest.raises(RecordFileError) as info:
        load_npz(files[name])
    assert message in str(info.value)
    assert describe(info.value).title == "Not a simtviz record"
