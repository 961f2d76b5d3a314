"""CPython's own fixed messages are never claimed by the lexical stage (core/matching/runtime_messages.py)."""

from __future__ import annotations

import pytest
from testkit import load_script

from rootcause.adapters.loading import load_index
from rootcause.core.diagnosis import diagnose_text
from rootcause.core.matching.cpython_messages_data import FORMATS
from rootcause.core.matching.runtime_messages import fixed_messages, is_cpython_fixed_message

FIXED = fixed_messages()


@pytest.fixture(scope="module")
def index():
    return load_index()


def test_only_formats_without_a_placeholder_are_fixed_messages() -> None:
    assert "'%.200s' object is not subscriptable" in FORMATS
    assert "'%.200s' object is not subscriptable" not in FIXED
    assert all(m.replace("%", "%%") in FORMATS or m in FORMATS for m in FIXED)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("IndexError: list index out of range", True),
        ("IndexError: tuple index out of range", True),
        ("  builtins.IndexError:  string index out of range  ", True),
        ("ValueError: day of month out of range", True),
        ("list index out of range", True),
        ("IndexError: index out of range in self", False),  # torch's embedding message
        ("IndexError: list index out of range in the collator", False),  # more than the message
        ("TypeError: 'NoneType' object is not subscriptable", False),  # a format with a value: names what it is about
        ("RuntimeError: CUDA out of memory", False),
        ("", False),
    ],
)
def test_cpython_fixed_messages_are_told_apart(line: str, expected: bool) -> None:
    assert is_cpython_fixed_message(line) is expected


def test_the_data_holds_fixed_messages_of_the_interpreter() -> None:
    assert len(FIXED) > 100
    assert {"list index out of range", "tuple index out of range", "string index out of range"} <= set(FIXED)


def test_a_list_index_error_is_not_torchs_embedding_error(index) -> None:
    # before: the lexical stage claimed pytorch/tensor-embedding-index-out-of-range (similarity 0.81)
    for line in ("IndexError: list index out of range", "IndexError: tuple index out of range"):
        diagnosis = diagnose_text(line, index)
        assert not diagnosis.matched, [f.id for f in diagnosis.findings]
        assert not diagnosis.nearest
    assert diagnose_text("IndexError: index out of range in self", index).findings[0].id == (
        "pytorch/tensor-embedding-index-out-of-range"
    )


def test_no_fixed_message_of_the_interpreter_is_claimed_by_wording(index) -> None:
    claimed = []
    for fmt in FIXED:
        for kind in ("IndexError", "ValueError", "TypeError", "RuntimeError"):
            diagnosis = diagnose_text(f"{kind}: {fmt}", index)
            claimed += [(fmt, f.id) for f in diagnosis.findings if f.matched_by == "lexical"]
    assert not claimed


def test_the_generator_keeps_message_strings_only() -> None:
    module = load_script("scripts/cpython_messages.py", "cpython_messages")
    blob = b"\x00list index out of range\x00PyList_Append\x00short\x00Traceback header text\x00_private must not\x00"
    assert module.messages(blob) == ["list index out of range"]
