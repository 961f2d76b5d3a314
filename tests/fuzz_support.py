"""Strategies and checks shared by the fuzz tests (tests/test_fuzz_*.py, bounded) and the long
run (bench/fuzz_long.py, many more examples and the time-per-byte figures).

Every fuzzed input must end in one of three ways: a finding, an honest abstention, or one
clear ``RootcauseError`` (one line, naming where) - never another exception."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from rootcause.core.diagnosis import Diagnosis
from rootcause.errors import RootcauseError

# bounded in the suite; bench/fuzz_long.py raises it through the environment
FUZZ = settings(
    max_examples=int(os.environ.get("ROOTCAUSE_FUZZ_EXAMPLES", "150")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
CANON = Path(__file__).resolve().parents[1] / "src" / "rootcause" / "canon"
SEED_ERROR = (
    "RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2. "
    "Original reason for failure was: AllReduce timed out after 600000 ms"
)
REAL_LINES = [
    SEED_ERROR,
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB",
    "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
    "[rank3]:[E1206 18:44:16.994932383 ProcessGroupNCCL.cpp:1709] Watchdog caught collective operation timeout",
    'Traceback (most recent call last):\n  File "train.py", line 12, in <module>\n    loss.backward()',
    "2026-12-01 10:00:00 INFO step 100 loss 2.31 lr 3e-4",
    "{'loss': 1.234, 'grad_norm': 0.5, 'learning_rate': 5e-05, 'epoch': 0.1}",
    "NCCL INFO Channel 00/02 :    0   1   2   3",
]
SEPARATORS = ["\n", "\r\n", "\r", "\x00", "\n\n", "\t", " "]

# arbitrary text, with the awkward characters drawn often
NASTY_CHARS = st.sampled_from(
    ["\x00", "\r", "\n", "\ufeff", "\u202e", "\ud7ff", "\uffff", "<", ">", "&", '"', "\\", "é", "中"]
)
TEXT = st.text(st.one_of(st.characters(), NASTY_CHARS), max_size=400)
# lines of a log: real error lines, noise, and bytes that are not UTF-8
LOG_PIECE = st.one_of(
    st.sampled_from(REAL_LINES),
    TEXT,
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
)


@st.composite
def log_bytes(draw: st.DrawFn) -> bytes:
    """A log-like byte string: real lines, noise, invalid UTF-8, NULs, CR/CRLF, nesting."""
    pieces = draw(st.lists(LOG_PIECE, max_size=30))
    out = bytearray()
    for piece in pieces:
        encoding = draw(st.sampled_from(["utf-8", "latin-1", "utf-16"]))
        out += piece.encode(encoding, "replace" if encoding != "utf-8" else "surrogatepass")
        out += draw(st.sampled_from(SEPARATORS)).encode()
    if draw(st.booleans()):
        depth = draw(st.integers(0, 2000))
        out += b"[" * depth + b"{" * depth + b"(" * depth
    if draw(st.booleans()):
        out += draw(st.binary(max_size=500))
    return bytes(out)


def check_diagnosis(d: Diagnosis) -> None:
    """A finding, or an honest abstention: never both, never neither."""
    assert isinstance(d, Diagnosis)
    if d.matched:
        assert d.findings and d.abstain_reason is None
        for f in d.findings:
            assert f.id and f.signature
    else:
        assert not d.findings and d.abstain_reason
    json.loads(d.model_dump_json())  # it serialises (no lone surrogates, no NaN)


def check_clear_error(exc: RootcauseError, where: str) -> None:
    """One error, on one line, naming where."""
    message = str(exc)
    assert message, exc
    assert "\n" not in message and "\r" not in message, message
    assert where in message, (where, message)
    assert "Traceback" not in message


# -- canon entry files ---------------------------------------------------------------------------
def entry_files(limit: int = 12) -> list[tuple[str, str]]:
    """(id, text) of real entry files: the mutation bases."""
    files = sorted(CANON.rglob("*.yaml"))[::20][:limit]
    return [(f.relative_to(CANON).with_suffix("").as_posix(), f.read_text(encoding="utf-8")) for f in files]


YAML_JUNK = st.sampled_from(
    [":", "- ", "? ", "&a ", "*a", "!!python/object:os.system ", "{", "}", "[", "]", "'", '"', "|", ">", "#",
     "\t", "  ", "\n", "\x00", "\ufeff", "~", "null", "1e999", "0x1", ".nan", "2026-13-45", "[[[[[[[[", "{{", "}}"]
)  # fmt: skip


@st.composite
def mutated_entry(draw: st.DrawFn, bases: list[tuple[str, str]]) -> tuple[str, str]:
    """A real entry file with a few edits: lines dropped, duplicated, swapped or cut; YAML
    punctuation and arbitrary text spliced in; values replaced."""
    entry_id, text = draw(st.sampled_from(bases))
    lines = text.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["drop", "dup", "swap", "cut", "splice", "value", "indent"]))
        if op == "drop":
            del lines[i]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "cut":
            lines = lines[:i]
        elif op == "splice":
            at = draw(st.integers(0, len(lines[i])))
            junk = draw(st.one_of(YAML_JUNK, TEXT))
            lines[i] = lines[i][:at] + junk + lines[i][at:]
        elif op == "value" and ":" in lines[i]:
            key = lines[i].split(":", 1)[0]
            lines[i] = f"{key}: {draw(st.one_of(YAML_JUNK, TEXT, st.integers().map(str)))}\n"
        elif op == "indent":
            lines[i] = draw(st.sampled_from(["", " ", "    ", "\t"])) + lines[i].lstrip()
    return entry_id, "".join(lines)


# -- peer JSON (importers) -----------------------------------------------------------------------
JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*here, i))
    return out


@st.composite
def mutated_json(draw: st.DrawFn, base: Any) -> Any:
    """A peer JSON object with subtrees replaced by arbitrary JSON, keys dropped or added."""
    value = json.loads(json.dumps(base))
    for _ in range(draw(st.integers(1, 4))):
        paths = _paths(value)
        path = draw(st.sampled_from(paths))
        new = draw(JSON_VALUE)
        if not path:
            value = new
            continue
        parent = value
        for part in path[:-1]:
            parent = parent[part]
        if isinstance(parent, dict) and draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = new
    return value


DEADENDS_SAMPLE: dict[str, Any] = {
    "schema_version": "1.0.0",
    "id": "python/modulenotfounderror/py311-linux",
    "url": "https://deadends.dev/python/modulenotfounderror/py311-linux",
    "error": {
        "signature": "ModuleNotFoundError: No module named 'torch'",
        "regex": "ModuleNotFoundError: No module named '(.+?)'",
        "domain": "python",
        "category": "import_error",
        "first_seen": "2023-01-01",
        "last_confirmed": "2026-01-01",
    },
    "environment": {"runtime": {"name": "python", "version_range": ">=3.11,<3.12"}, "os": "linux", "python": ">=3.11"},
    "verdict": {"resolvable": "true", "fix_success_rate": 0.9, "confidence": 0.8, "summary": "The package is missing."},
    "dead_ends": [{"action": "pip install torch again", "why_fails": "wrong interpreter", "fail_rate": 0.7}],
    "workarounds": [{"action": "python -m pip install torch", "success_rate": 0.9, "how": "use the same python"}],
    "transition_graph": {"leads_to": [{"error_id": "python/importerror/x"}], "preceded_by": ["python/a/b"]},
    "metadata": {"review_status": "ai_generated", "evidence_count": 3, "generated_by": "x"},
}
