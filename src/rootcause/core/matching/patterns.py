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
    return _allow_framing_after_newlines(src)


def _allow_framing_after_newlines(src: str) -> str:
    """Rewrite each `\\n` outside a character class so framing may follow it."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(src):
        ch = src[i]
        if ch == "\\" and i + 1 < len(src):
            pair = src[i : i + 2]
            out.append("\\n[^\\n]{0,48}?" if pair == "\\n" and not in_class else pair)
            i += 2
            continue
        if ch == "[" and not in_class:
            in_class = True
            if src[i + 1 : i + 2] == "]" or src[i + 1 : i + 3] == "^]":  # a leading ] is a literal
                close = i + (2 if src[i + 1] == "]" else 3)
                out.append(src[i:close])
                i = close
                continue
        elif ch == "]" and in_class:
            in_class = False
        out.append(ch)
        i += 1
    return "".join(out)


_META = re.compile(r"\\[dDwWsSbB]|\\.|\[[^\]]*\]|\(\?P<\w+>|\(\?[:=!iIsSmM-]*:?|[()|*+?{}^$.]|\{\d+(?:,\d*)?\}")


def literal_length(regex: str) -> int:
    """Roughly how many literal characters a pattern demands (more = more specific)."""
    return len(_META.sub("", regex))
