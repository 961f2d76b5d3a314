"""Property-based fuzzing of the diagnosis engine (hypothesis, bounded): arbitrary text and
bytes - invalid UTF-8, NULs, CR and CRLF, deep nesting - end in a finding or an honest
abstention, the same whichever way the bytes are chunked; a known line buried in noise is
still found. A few targeted inputs (one huge line, a million short lines) run once each.
Time per byte is measured in bench/fuzz_long.py, not here."""

from __future__ import annotations

import itertools

import pytest
from fuzz_support import FUZZ, REAL_LINES, SEED_ERROR, TEXT, check_diagnosis, log_bytes
from hypothesis import given
from hypothesis import strategies as st

from rootcause.adapters.loading import load_index
from rootcause.core.diagnosis import Diagnosis, SourceInput, diagnose_sources, diagnose_text
from rootcause.core.matching.index import CompiledIndex

SEED_ID = "pytorch/nccl-timeout-allreduce"


@pytest.fixture(scope="module")
def index() -> CompiledIndex:
    return load_index()


def diagnose_bytes(data: bytes, index: CompiledIndex, cuts: list[int] | None = None) -> Diagnosis:
    points = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts or [])})
    chunks = [data[a:b] for a, b in itertools.pairwise(points)]
    return diagnose_sources([SourceInput("<fuzz>", chunks)], index)


@FUZZ
@given(data=st.binary(max_size=4096))
def test_arbitrary_bytes(index: CompiledIndex, data: bytes) -> None:
    d = diagnose_bytes(data, index)
    check_diagnosis(d)
    assert d.inputs[0].bytes == len(data)


@FUZZ
@given(text=TEXT)
def test_arbitrary_text(index: CompiledIndex, text: str) -> None:
    check_diagnosis(diagnose_text(text, index))


@FUZZ
@given(data=log_bytes(), cuts=st.lists(st.integers(min_value=0), max_size=6))
def test_log_like_bytes_diagnose_the_same_however_chunked(index: CompiledIndex, data: bytes, cuts: list[int]) -> None:
    whole = diagnose_bytes(data, index)
    check_diagnosis(whole)
    chunked = diagnose_bytes(data, index, cuts)
    assert chunked.model_dump(exclude={"inputs"}) == whole.model_dump(exclude={"inputs"})
    assert chunked.inputs[0].lines == whole.inputs[0].lines


@FUZZ
@given(
    before=st.lists(st.one_of(st.sampled_from(REAL_LINES[1:]), TEXT.filter(lambda s: "\n" not in s and "\r" not in s)), max_size=20),
    after=st.lists(TEXT.filter(lambda s: "\n" not in s and "\r" not in s), max_size=20),
    newline=st.sampled_from(["\n", "\r\n"]),
)  # fmt: skip
def test_a_known_line_in_noise_is_found(
    index: CompiledIndex, before: list[str], after: list[str], newline: str
) -> None:
    text = newline.join([*before, SEED_ERROR, *after]) + newline
    d = diagnose_text(text, index)
    check_diagnosis(d)
    assert SEED_ID in [f.id for f in d.findings]


def test_one_huge_line(index: CompiledIndex) -> None:
    data = (b"x" * (16 << 20)) + SEED_ERROR.encode()  # 16 MiB without a newline, the error at its end
    d = diagnose_bytes(data, index, [1 << 20, 5 << 20])
    check_diagnosis(d)
    assert d.inputs[0].bytes == len(data)  # read to its end (a line past 4 MiB is scanned in pieces)


def test_deep_nesting(index: CompiledIndex) -> None:
    depth = 200_000
    text = "[" * depth + "{" * depth + "(" * depth + SEED_ERROR + ")" * depth + "}" * depth + "]" * depth
    check_diagnosis(diagnose_text(text, index))
    nested = ("Traceback (most recent call last):\n" + '  File "x.py", line 1, in f\n' * 50_000) + SEED_ERROR + "\n"
    d = diagnose_text(nested, index)
    assert SEED_ID in [f.id for f in d.findings]


def test_a_million_short_lines(index: CompiledIndex) -> None:
    data = b"ok\n" * 1_000_000 + SEED_ERROR.encode() + b"\n" + b"\x00\r\n" * 1000
    d = diagnose_bytes(data, index, [123_457, 1 << 20, 2_000_001])
    check_diagnosis(d)
    assert d.inputs[0].lines == 1_001_001
    assert [f.id for f in d.findings][:1] == [SEED_ID]
    assert d.findings[0].lines[0].line == 1_000_001


@pytest.mark.timeout(60)  # each input alone took 16 s to minutes on the backtracking patterns these replace
def test_inputs_that_made_the_normalisers_backtrack(index: CompiledIndex) -> None:
    from rootcause.core.normalize import parameterise, strip_framing, tokens

    word = "RuntimeError: " + "a" * 64_000  # the path pattern rescanned the word from each letter
    assert parameterise(word) == word and tokens(word)[:1] == ["runtimeerror"]
    assert strip_framing("[E " + "1" * 64_000).text.startswith("[E 1")  # c10 prefix: digits, then no file
    assert strip_framing("\x1b]" * 32_000 + "x").text == "\x1b]" * 32_000 + "x"  # OSC openings, never closed
    log = "\n".join([word] * 20 + ["[E " + "1" * 60_000] * 4 + ["1." * 30_000 + "a"] * 4 + [SEED_ERROR]) + "\n"
    d = diagnose_bytes(log.encode(), index)
    check_diagnosis(d)
    assert [f.id for f in d.findings][:1] == [SEED_ID]


@pytest.mark.timeout(60)  # on the unbounded patterns each of these lines took seconds to minutes
def test_long_runs_do_not_make_fleet_masks_or_triage_backtrack() -> None:
    from rootcause.core.fleet.masks import mask_line
    from rootcause.core.triage.extract import extract

    for filler in ("a.", "1.", "a-", "1"):
        line = "RuntimeError: " + (filler * 32_000)[:48_000]
        assert mask_line(line)  # fleet templates: Drain3's masks run on Python's re
        extract(line + " vs 2. Received data size doesn't match expected size")
    masked = mask_line("host-12:4567:4590 [3] NCCL WARN x.py failed on node-07 at 45/100 [00:12<00:15]")
    assert "<NCCLHOST>" in masked and "<HOST>" in masked and "<PROGRESS>" in masked, masked
