"""A Python library's own message is claimed for an entry's callers only (core/matching/frames.py): when the paste
shows the traceback that a pickle message ends and none of its frames is in the pattern's `raised_in` modules, the
message came from another program, and neither the pattern nor the lexical stage claims it."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from rootcause.adapters.loading import load_index
from rootcause.core.diagnosis import diagnose_text
from rootcause.core.matching.frames import MAX_CHECKED_HITS, MAX_TRACEBACK_LINES, raised_elsewhere, traceback_frames
from rootcause.core.model import Pattern

REAL = Path(__file__).parent / "fixtures" / "real"
PICKLE_ENTRIES = {
    "pytorch/dataloader-unpicklable-worker-args",
    "pytorch/load-invalid-pickle-data",
    "pytorch/load-ran-out-of-input",
}

# https://github.com/chr1st1ank/narrow-down/issues/12: a library's own pickle.dumps in a notebook
NARROW_DOWN = """Traceback (most recent call last):
  File "...\\core\\interactiveshell.py", line 3457, in run_code
    exec(code_obj, self.user_global_ns, self.user_ns)
  File "<ipython-input-6-adf53c9cedcd>", line 1, in <module>
    pickle.dumps(narrow_down.storage.InMemoryStore())
AttributeError: Can't pickle local object 'InMemoryStore.__init__.<locals>.<lambda>'"""
# https://github.com/apache/fory/issues/909: a serialisation library falling back to pickle
FORY = """  File "python/pyfury/_serialization.pyx", line 953, in pyfury._serialization.Fury.serialize_ref
  File "python/pyfury/_serialization.pyx", line 2260, in pyfury._serialization.PickleSerializer.write
  File "python/pyfury/_serialization.pyx", line 1199, in pyfury._serialization.Fury.handle_unsupported_write
AttributeError: Can't pickle local object 'DataFrameSum.get_reduction_callable.<locals>.sum_'"""


@pytest.fixture(scope="module")
def index():
    return load_index()


def _ids(text: str, index) -> list[str]:
    return [f.id for f in diagnose_text(text, index).findings]


def test_the_frames_of_the_traceback_a_line_ends_innermost_first() -> None:
    lines = (REAL / "dl_spawn_local_fn.log").read_text(encoding="utf-8").splitlines()
    frames = traceback_frames(lines, len(lines))
    assert frames[0].endswith("/multiprocessing/reduction.py")
    assert any(path.endswith("/torch/utils/data/dataloader.py") for path in frames)
    assert frames[-1].endswith("dl_spawn_local_fn.py")  # the outermost frame, under `Traceback (...)`


def test_windows_paths_carets_and_rank_prefixes_are_read_as_frames() -> None:
    lines = [
        "[rank0]: Traceback (most recent call last):",
        '[rank0]:   File "C:\\envs\\ml\\lib\\multiprocessing\\spawn.py", line 115, in _main',
        "[rank0]:     self = reduction.pickle.load(from_parent)",
        "[rank0]:            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "[rank0]: EOFError: Ran out of input",
    ]
    assert traceback_frames(lines, 5) == ["C:/envs/ml/lib/multiprocessing/spawn.py"]
    assert not raised_elsewhere(lines, 5, ["/multiprocessing/"])
    assert raised_elsewhere(lines, 5, ["/torch/serialization.py"])


@pytest.mark.parametrize(
    "lines",
    [
        ["EOFError: Ran out of input"],  # a bare line
        ["Traceback (most recent call last):", "EOFError: Ran out of input"],  # a traceback cut to its header
        ['  File "/srv/app/cache.py", line 3, in load', "", "EOFError: Ran out of input"],  # a blank between
        ["    self = reduction.pickle.load(from_parent)", "EOFError: Ran out of input"],  # code, no frame shown
    ],
)
def test_a_line_with_no_frames_directly_above_it_was_raised_nowhere_known(lines: list[str]) -> None:
    assert traceback_frames(lines, len(lines)) == []
    assert not raised_elsewhere(lines, len(lines), ["/torch/"])


def test_the_frames_read_upwards_are_bounded() -> None:
    lines = ['  File "/srv/app/deep.py", line 1, in f'] * (MAX_TRACEBACK_LINES * 10) + ["EOFError: Ran out of input"]
    assert len(traceback_frames(lines, len(lines))) == MAX_TRACEBACK_LINES


@pytest.mark.parametrize(
    "text",
    [
        NARROW_DOWN,
        FORY,
        (REAL / "sp_save_local_lambda.log").read_text(encoding="utf-8"),  # torch.save, not a DataLoader's workers
        (REAL / "sp_pickle_cache_html.log").read_text(encoding="utf-8"),  # the script's own pickle.load
    ],
    ids=["narrow-down#12", "fory#909", "torch.save", "pickle.load"],
)
def test_a_pickle_message_raised_by_another_program_is_not_claimed(index, text: str) -> None:
    assert not set(_ids(text, index)) & PICKLE_ENTRIES


@pytest.mark.parametrize(
    ("log", "entry"),
    [
        ("dl_spawn_local_fn.log", "pytorch/dataloader-unpicklable-worker-args"),
        ("dl_spawn_lambda.log", "pytorch/dataloader-unpicklable-worker-args"),
        ("sp_load_garbage.log", "pytorch/load-invalid-pickle-data"),
    ],
)
def test_a_pickle_message_raised_by_the_entrys_callers_is_claimed(index, log: str, entry: str) -> None:
    assert _ids((REAL / log).read_text(encoding="utf-8"), index)[:1] == [entry]


@pytest.mark.parametrize(
    ("line", "entry"),
    [
        (
            "AttributeError: Can't pickle local object 'InMemoryStore.__init__.<locals>.<lambda>'",
            "pytorch/dataloader-unpicklable-worker-args",
        ),
        ("_pickle.UnpicklingError: invalid load key, '<'.", "pytorch/load-invalid-pickle-data"),
        ("EOFError: Ran out of input", "pytorch/load-ran-out-of-input"),
    ],
)
def test_the_same_message_alone_is_still_claimed(index, line: str, entry: str) -> None:
    assert _ids(line, index)[:1] == [entry]


def test_raised_in_names_modules_with_forward_slashes() -> None:
    assert Pattern(regex="x", raised_in=["/torch/serialization.py"]).raised_in == ["/torch/serialization.py"]
    with pytest.raises(ValidationError):
        Pattern(regex="x", raised_in=["\\torch\\serialization.py"])


def test_the_checks_per_input_are_bounded(index, monkeypatch: pytest.MonkeyPatch) -> None:
    from rootcause.core.matching import scan_wrap

    calls: list[int] = []

    def counting(lines: list[str], n: int, modules: tuple[str, ...]) -> bool:  # the real check, counted
        calls.append(n)
        return raised_elsewhere(lines, n, modules)

    monkeypatch.setattr(scan_wrap, "raised_elsewhere", counting)
    paste = "\n".join(["  EOFError: Ran out of input"] * 5000)  # every line a hit, each above an indented run
    ids = _ids(paste, index)
    assert 0 < len(calls) <= MAX_CHECKED_HITS
    assert ids[:1] == ["pytorch/load-ran-out-of-input"]  # the unchecked hits are kept as matched
