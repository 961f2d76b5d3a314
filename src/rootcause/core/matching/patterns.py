"""Linear-time pattern compilation (RE2), and the rules a canon pattern must follow."""

from __future__ import annotations

import re

import re2

from rootcause.errors import PatternError

_OPTIONS = re2.Options()
_OPTIONS.max_mem = 32 << 20
_OPTIONS.log_errors = False

_NAME_RE = re.compile(r"\(\?P<([A-Za-z_][A-Za-z0-9_]*)>")
MAX_PATTERN_LENGTH = 2_000


def compile_re2(regex: str) -> re2._Regexp:
    """Compile in RE2 (no backreferences, no look-arounds) or raise PatternError."""
    if len(regex) > MAX_PATTERN_LENGTH:
        raise PatternError(f"pattern longer than {MAX_PATTERN_LENGTH} characters")
    try:
        return re2.compile(regex, _OPTIONS)
    except re2.error as exc:
        raise PatternError(f"not a linear-time (RE2) pattern: {exc}") from None


def group_names(regex: str) -> list[str]:
    return _NAME_RE.findall(regex)


def prefilter_source(regex: str) -> str:
    """A looser form of a pattern for the raw-text noise skipper.

    It runs over raw log text, where framing still sits at the start of each line,
    so line anchors are dropped and each newline may be followed by framing.
    Over-matching is fine: every hit is confirmed on the cleaned line by RE2.
    """
    src = regex
    if src.startswith("^"):
        src = src[1:]
    if src.endswith("$") and not src.endswith("\\$"):
        src = src[:-1]
    src = src.replace("(?m)", "")
    return src.replace("\\n", "\\n[^\\n]{0,48}?")


_META = re.compile(r"\\[dDwWsSbB]|\\.|\[[^\]]*\]|\(\?P<\w+>|\(\?[:=!iIsSmM-]*:?|[()|*+?{}^$.]|\{\d+(?:,\d*)?\}")


def literal_length(regex: str) -> int:
    """Roughly how many literal characters a pattern demands (more = more specific)."""
    return len(_META.sub("", regex))
