"""Linear-time pattern compilation (RE2), and the rules a canon pattern must follow."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping

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


def dead_anchor(regex: str) -> str | None:
    """A ``^`` or ``$`` that no text can satisfy, or None. RE2 compiles the canon's patterns without multi-line mode,
    so ``^`` is the text's start and ``$`` its end: a ``$`` with more to match after it (``done$\\n``), or a ``^``
    after something that consumed (``\\n^Error``), never matches, and the pattern is dead however real its wording.
    A pattern that sets ``(?m)`` is not read."""
    if "(?m" in regex:
        return None
    for i, ch in _outside_classes(regex):
        if ch == "$" and _MORE_AFTER_END.match(regex, i + 1):
            return f"'$' at {i} has more to match after the text's end"
        if ch == "^" and not _START_ALLOWED.search(regex[:i]):
            return f"'^' at {i} comes after text that was already matched"
    return None


def _outside_classes(regex: str) -> Iterator[tuple[int, str]]:
    """Each unescaped character outside a character class, with its index (a class's own ``[^`` and a leading ``]``
    member are the class's)."""
    i = 0
    while i < len(regex):
        ch = regex[i]
        if ch == "\\":
            i += 2
        elif ch == "[":
            i += 2 if regex[i + 1 : i + 2] in ("^", "]") else 1
            if regex[i - 1] == "^" and regex[i : i + 1] == "]":
                i += 1
            while i < len(regex) and regex[i] != "]":
                i += 2 if regex[i] == "\\" else 1
            i += 1
        else:
            yield i, ch
            i += 1


_MORE_AFTER_END = re.compile(r"[^)|?*{]")  # a token that must consume: not a group's end, an alternative or a repeat
_START_ALLOWED = re.compile(r"(?:\A|[(|]|\(\?[A-Za-z]*:|\(\?P<\w+>|\^|\$)\Z")  # the start, a group's or branch's


def non_ascii_in_class(regex: str) -> str | None:
    """The first non-ASCII character inside a character class (``['‘’]``), or None.

    The prefilter scans raw bytes (hyperscan without UTF-8 mode: a log may hold invalid UTF-8), where such a class
    stands for one byte, not one character; so a curly quote after a literal is never found. An alternation of the
    characters (``(?:'|‘|’)``) is a byte sequence each and is found."""
    in_class, i = False, 0
    while i < len(regex):
        ch = regex[i]
        if ch == "\\":
            i += 2
            continue
        if not in_class and ch == "[":
            in_class = True
            if regex[i + 1 : i + 2] == "^":
                i += 1
            if regex[i + 1 : i + 2] == "]":  # a leading ']' is a member
                i += 1
        elif in_class and ch == "]":
            in_class = False
        elif in_class and ord(ch) > 127:
            return ch
        i += 1
    return None


def group_names(regex: str) -> list[str]:
    return _NAME_RE.findall(regex)


def prefilter_source(regex: str) -> str:
    """A looser form of a pattern for the raw-text noise skipper.

    It runs over raw log text, where framing still sits at the start of each line and the markup users close
    a paste with at its end (a backtick, a fence, emphasis), so line anchors are dropped, a line end inside
    the pattern (``(?:$|\\s)``) may also be that closing markup, and each newline may be followed by framing.
    Over-matching is fine: every hit is confirmed on the cleaned line by RE2.
    """
    src = regex
    if src.startswith("^"):
        src = src[1:]
    if src.endswith("$") and not src.endswith("\\$"):
        src = src[:-1]
    src = src.replace("(?m)", "")
    return _allow_framing_after_newlines(src)


_LINE_END_OR_MARKUP = "(?:[ \t]*$|[`*_])"  # blanks a copy left at the line end, or closing markup
# How much framing may start a raw line inside a multi-line window: vLLM's worker lines carry about 75 characters
# ("(VllmWorker TP0 pid=437) ERROR 08-28 07:32:18 [multiproc_executor.py:559] "), more when processes nest
MAX_FRAMING = 128


def _allow_framing_after_newlines(src: str) -> str:
    """Rewrite each `\\n` outside a character class so framing may follow it, each `$` so markup may."""

    def framing_or_markup(text: str, i: int) -> tuple[str, int] | None:
        if text.startswith("\\n", i):
            return f"\\n[^\\n]{{0,{MAX_FRAMING}}}?", i + 2
        if text[i] == "$":  # the cleaned line ends here; the raw one may go on with closing markup
            return _LINE_END_OR_MARKUP, i + 1
        return None

    return rewrite_outside_classes(src, framing_or_markup)


def rewrite_outside_classes(src: str, rewrite: Callable[[str, int], tuple[str, int] | None]) -> str:
    """The pattern with what ``rewrite(src, i)`` gives (a replacement, and where to go on) at each position outside a
    character class where it gives something; escapes are read whole, and a class's leading ``]`` as a literal."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(src):
        if not in_class:
            done = rewrite(src, i)
            if done is not None:
                out.append(done[0])
                i = done[1]
                continue
        ch = src[i]
        if ch == "\\" and i + 1 < len(src):
            out.append(src[i : i + 2])
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


# -- the project's own patterns on user input (lint RC108) ----------------------------------------
def compiled_patterns(namespace: Mapping[str, object]) -> list[tuple[str, object]]:
    """Every compiled pattern a module holds at its top level, in lists, tuples and dicts too."""
    found: list[tuple[str, object]] = []

    def walk(value: object, name: str, depth: int) -> None:
        if isinstance(value, re.Pattern | re2._Regexp):
            found.append((name, value))
        elif depth < 3 and isinstance(value, list | tuple):
            for n, item in enumerate(value):
                walk(item, f"{name}[{n}]", depth + 1)
        elif depth < 3 and isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{name}[{key!r}]", depth + 1)

    for name, value in namespace.items():
        if not name.startswith("__"):
            walk(value, name, 0)
    return found


def _nested_repeat(items: object, inside: bool = False) -> bool:
    """A repeat inside a repeat (star height 2, as in ``(a+)+``): exponential backtracking."""
    from re import _constants as c  # type: ignore[attr-defined]

    for op, arg in items:  # type: ignore[attr-defined]
        if op in (c.MAX_REPEAT, c.MIN_REPEAT):
            unbounded = arg[1] == c.MAXREPEAT or arg[1] > 64
            children = [arg[2]]
            if unbounded and inside:
                return True
            inside_next = inside or unbounded
        elif op == c.SUBPATTERN:
            children, inside_next = [arg[3]], inside
        elif op == c.BRANCH:
            children, inside_next = list(arg[1]), inside
        else:  # a possessive repeat or an atomic group never backtracks into itself; the rest hold no repeat
            continue
        if any(_nested_repeat(child, inside_next) for child in children):
            return True
    return False


_BOUNDED_REPEAT = 64  # a repeat with at most this many steps costs a constant per attempt


def _token_scanner(items: object) -> bool:
    """A pattern tried at every position that still runs in linear time: a top-level alternation of
    branches, each a sequence of single characters and bounded repeats of one character, where only the
    last element of a branch may be an unbounded repeat of one character (``[A-Za-z_][A-Za-z0-9_]*``).

    A failing attempt then costs at most a constant (the bounded prefix), and a succeeding one costs what
    it consumes, so findall, split and sub are linear in the input."""
    from re import _constants as c  # type: ignore[attr-defined]

    single = (c.LITERAL, c.NOT_LITERAL, c.IN, c.ANY)
    seq = list(items)  # type: ignore[call-overload]
    branches = list(seq[0][1][1]) if len(seq) == 1 and seq[0][0] == c.BRANCH else [seq]
    for branch in branches:
        steps = list(branch)
        for index, (op, arg) in enumerate(steps):
            if op in single or op == c.AT:
                continue
            if op not in (c.MAX_REPEAT, c.POSSESSIVE_REPEAT) or len(arg[2]) != 1 or arg[2][0][0] not in single:
                return False
            last = index == len(steps) - 1
            if not last and (arg[1] == c.MAXREPEAT or arg[1] > _BOUNDED_REPEAT):
                return False
    return True


def backtracking_risk(pattern: object) -> str | None:
    """Why a pattern may take more than linear time on hostile input, or None.

    RE2 never backtracks. A pattern on Python's backtracking ``re`` passes only when it is anchored
    at the start (it is tried at one position, not at every one) and holds no repeat inside a
    repeat, or when it is a token scanner (``_token_scanner``); anything else belongs on RE2."""
    if isinstance(pattern, re2._Regexp):
        return None
    assert isinstance(pattern, re.Pattern)
    source = pattern.pattern if isinstance(pattern.pattern, str) else pattern.pattern.decode("latin-1")
    from re import _parser  # type: ignore[attr-defined]

    if not source.startswith(("^", "\\A")):
        if _token_scanner(_parser.parse(source, pattern.flags)):
            return None
        return "runs on Python's backtracking re and is tried at every position: use RE2"

    if _nested_repeat(_parser.parse(source, pattern.flags)):
        return "a repeat inside a repeat backtracks exponentially: use RE2 or a possessive repeat"
    return None
