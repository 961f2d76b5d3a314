"""Templates from compiled code: error-like strings of shared objects, and NCCL's WARN/INFO formats in C.

Pure: the adapters hand over the bytes of a library or the text of a C file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from rootcause.core.atlas.extract import Extracted, build_pattern, merge_parts, printf_parts
from rootcause.core.atlas.model import TemplateKind

MIN_STRING = 20  # shorter printable runs are symbols and noise
MAX_STRING = 1000
_PRINTABLE = re.compile(rb"[\x20-\x7e\t]{%d,%d}" % (MIN_STRING, MAX_STRING))
ERROR_WORDS = (
    "error",
    "failed",
    "failure",
    "invalid",
    "expected",
    "not supported",
    "unsupported",
    "cannot",
    "can't",
    "could not",
    "unable to",
    "must be",
    "mismatch",
    "out of memory",
    "illegal",
    "not found",
    "timed out",
    "timeout",
    "exceeded",
    "not implemented",
    "deprecated",
    "unknown",
    "does not",
    "doesn't",
)
_ERROR_WORD = re.compile("|".join(re.escape(w) for w in ERROR_WORDS), re.IGNORECASE)
_NOT_PROSE = re.compile(r"^[\w./:-]+$|[<>{};]{3}|\bstd::|__|\$\{|\\u[0-9a-f]{4}")
# WARN("..." "...", args) and INFO(NCCL_INIT|NCCL_NET, "...", args): one or more adjacent C string literals
_C_STRINGS = r'((?:"(?:[^"\\\n]|\\.)*"\s*)+)'
_NCCL_CALL = re.compile(r"\b(WARN|INFO)\s*\(\s*(?:[A-Z_|\s]+,\s*)?" + _C_STRINGS)
_BUILD_PATH = re.compile(r' at "?(?:/|[A-Za-z]:\\)')
_C_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_C_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'"}


def printable_runs(data: bytes) -> Iterator[str]:
    """Every printable ASCII run of MIN_STRING..MAX_STRING bytes (like `strings`)."""
    for m in _PRINTABLE.finditer(data):
        yield m.group(0).decode("ascii")


def is_error_like(text: str) -> bool:
    """A message a library prints on failure: error words, prose (several words), not a symbol or code."""
    return text.count(" ") >= 2 and bool(_ERROR_WORD.search(text)) and not _NOT_PROSE.search(text)


def native_template(text: str, module: str, exception: str = "") -> Extracted | None:
    """The template of one native string, read as a printf format.

    The build machine's source path that an assertion message embeds (` at "/Users/runner/...":12`)
    is cut: it differs between builds of one release, and the paste's path is another machine's.
    """
    text = _BUILD_PATH.split(text, maxsplit=1)[0]
    parts = merge_parts(printf_parts(text.strip()))
    built = build_pattern(parts) if parts else None
    if built is None:
        return None
    pattern, literal = built
    message = "".join(p.text for p in parts)
    return Extracted(message, pattern, literal, exception, TemplateKind.NATIVE, "", 0, module)


def native_strings(data: bytes, module: str) -> list[Extracted]:
    """The error-like string templates of one shared object's bytes, first occurrence of each kept."""
    seen: set[str] = set()
    found: list[Extracted] = []
    for text in printable_runs(data):
        if text in seen or not is_error_like(text):
            continue
        seen.add(text)
        template = native_template(text, module)
        if template is not None:
            found.append(template)
    return found


def _c_unescape(literals: str) -> str:
    out: list[str] = []
    for m in _C_LITERAL.finditer(literals):
        body = m.group(1)
        out.append(re.sub(r"\\(.)", lambda e: _C_ESCAPES.get(e.group(1), e.group(1)), body))
    return "".join(out)


def nccl_formats(source: str, module: str) -> list[Extracted]:
    """NCCL's WARN/INFO printf formats of one C/C++ source file, with their lines."""
    found: list[Extracted] = []
    for m in _NCCL_CALL.finditer(source):
        line = source.count("\n", 0, m.start()) + 1
        template = native_template(_c_unescape(m.group(2)), module, m.group(1))
        if template is not None:
            found.append(replace(template, line=line))
    return found


def renormalized(found: Extracted) -> Extracted | None:
    """A library string's template made again by today's rules (for extractions cached by older ones)."""
    if found.kind is not TemplateKind.NATIVE or found.line:
        return found  # Python templates and NCCL's C formats are kept as they are
    return native_template(found.message, found.module, found.exception)
