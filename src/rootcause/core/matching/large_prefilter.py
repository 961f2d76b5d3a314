"""What a large canon's prefilter holds in place of its patterns: literals, and regexes without bounded repeats.

Hyperscan compiles a literal in microseconds and a regex in milliseconds, more with each bounded repeat it must
count (each newline of a multi-line pattern may be followed by up to 128 characters of framing): at 100,000 entries
the few thousand regexes were most of the index build. Past ``LITERAL_ABOVE`` scanned patterns (core/matching/index.py):

- a one-line pattern is held by its required literal (heads.required_literal), or else by a few literals one of
  which every match holds (``literal_cover``: one per alternative of an alternation, or of a group every match
  passes through), caseless under a leading ``(?i)``;
- a multi-line pattern by a literal of its last line (``last_line_literal``): the raw-text scan needs of it only the
  lines where a match may end (``SourceScanner``), and a literal that every match holds, with nothing after it in the
  pattern that can cross a newline, sits on that very line;
- any other pattern by its prefilter form with each bounded repeat unbounded (``unbounded_repeats``): it matches
  wherever the pattern does, and ends wherever a match of it ends.

Lines that hold a literal, or match a loosened form, without matching the pattern cost an RE2 confirmation each.
"""

from __future__ import annotations

import re

from rootcause.core.matching.heads import atoms, longest_literal_run, top_level_alternatives
from rootcause.core.matching.patterns import rewrite_outside_classes

# An escape that stands for more than its own next character, or a case-folding or dot-all flag: no byte-wise literal
# (the same refusal as heads.required_literal), or a '.' that may cross a newline.
_MULTI_CHAR_ESCAPE = re.compile(r"\\[xQ0-9cuUoNEzCpP]")
_NO_LITERAL = re.compile(_MULTI_CHAR_ESCAPE.pattern + r"|\(\?[a-zA-Z-]*[is]")
_CLASS_ITEM = re.compile(r"\\.|\[:|.", re.DOTALL)  # a class's items: an escape, a POSIX class's opening, a character
_CROSSING_ITEMS = {"\\n", "\\s", "\\D", "\\W", "[:", "\n"}  # a positive class holding one may match a newline
_GROUP_OPENING = re.compile(r"\((?:\?:|\?P<\w+>|\?[a-zA-Z]*:)?")


def _base(atom: str) -> str:
    """The atom without its quantifier."""
    if atom.startswith("\\"):
        return atom[:2]
    if atom.startswith(("[", "(")):
        closing = "]" if atom[0] == "[" else ")"
        return atom[: atom.rindex(closing) + 1]
    return atom[:1]


def _stays_on_its_line(atom: str) -> bool:
    """Whether no text the atom matches holds a newline (conservative: when unsure, it may)."""
    base = _base(atom)
    if base.startswith("\\"):
        return base not in ("\\n", "\\s", "\\D", "\\W")
    if base.startswith("["):
        items = set(_CLASS_ITEM.findall(base[1:-1]))
        if base.startswith("[^"):  # a negated class that names the newline (or all space) excludes it
            return bool(items & {"\\n", "\\s", "\n"})
        return not items & _CROSSING_ITEMS
    if base.startswith("("):
        opening = _GROUP_OPENING.match(base)
        if opening is None or not base.endswith(")"):
            return False
        body = base[opening.end() : -1]
        for alternative in top_level_alternatives(body):
            parts = atoms(alternative)
            if parts is None or not all(_stays_on_its_line(a) for a in parts):
                return False
        return True
    return base != "\n"


def last_line_literal(regex: str) -> str:
    """The longest run of literal characters, outside any group, that every match of a multi-line pattern holds on
    the line where the match ends: after the run, no atom of the pattern can match a newline. '' when there is none
    (a top-level alternation, a case-folding or dot-all flag, an escape of more than one character)."""
    if _NO_LITERAL.search(regex):
        return ""
    parts = atoms(regex)
    if parts is None:
        return ""
    safe_from = len(parts)  # parts[safe_from:] stay on their line
    while safe_from > 0 and _stays_on_its_line(parts[safe_from - 1]):
        safe_from -= 1
    return longest_literal_run(parts[safe_from:])


def hyperscan_literal(text: str) -> str:
    """A literal as a hyperscan expression: each of its UTF-8 bytes escaped, so none is read as regex syntax."""
    return "".join(f"\\x{b:02x}" for b in text.encode())


_LEADING_FLAGS = re.compile(r"\(\?([a-zA-Z]+)\)")
_FLAG_GROUP = re.compile(r"\(\?[a-zA-Z-]*\)")  # flags set from here on (not the leading ones, stripped first)
_PLAIN_GROUP = re.compile(r"\((?:\?:|\?P<\w+>)?")
COVER_MAX = 16  # literals one pattern may be held by, at most
_COVER_DEPTH = 4


def literal_cover(regex: str, minimum: int) -> tuple[tuple[str, ...], bool]:
    r"""Literals of at least ``minimum`` characters, one of which every line a one-line pattern matches holds (none:
    ``()``), and whether they hold without regard to case (a leading ``(?i)``; hyperscan folds ASCII case only, so a
    line that needs RE2's Unicode folding of ``k`` or ``s``, the Kelvin or long-s signs, is not found).

    The pattern's required literal where it has one; otherwise one literal per alternative of a top-level
    alternation, or of a non-optional group (``(?:Worker \w+ pid \d+ died, exit code: -6|worker died \(-6\))``).
    A scoped flag group (``(?i:allreduce)``) is an atom without a literal; an escape of more than one character or
    a flag group after the start gives none."""
    caseless = False
    leading = _LEADING_FLAGS.match(regex)
    if leading is not None:
        if set(leading.group(1)) - set("ism"):
            return (), False
        caseless = "i" in leading.group(1)
        regex = regex[leading.end() :]
    if _MULTI_CHAR_ESCAPE.search(regex) or _FLAG_GROUP.search(regex):
        return (), False
    found = _cover(regex, minimum, 0)
    if not found or len(found) > COVER_MAX:
        return (), False
    return tuple(dict.fromkeys(found)), caseless


def _cover(regex: str, minimum: int, depth: int) -> list[str] | None:
    if depth > _COVER_DEPTH:
        return None
    alternatives = top_level_alternatives(regex)
    if len(alternatives) > 1:
        out: list[str] = []
        for alternative in alternatives:
            sub = _cover(alternative, minimum, depth + 1)
            if not sub:
                return None
            out += sub
        return out
    parts = atoms(regex)
    if parts is None:
        return None
    best = longest_literal_run(parts)
    if len(best) >= minimum:
        return [best]
    choice: list[str] | None = None
    for atom in parts:
        body = _required_group_body(atom)
        sub = None if body is None else _cover(body, minimum, depth + 1)
        if sub and (choice is None or min(map(len, sub)) > min(map(len, choice))):
            choice = sub
    return choice


def _required_group_body(atom: str) -> str | None:
    """The body of a group that every match passes through (no quantifier, or ``+``); None for anything else."""
    if not atom.startswith("("):
        return None
    opening = _PLAIN_GROUP.match(atom)
    if opening is None or (atom.startswith("(?") and opening.end() == 1):
        return None  # a flag group or a look-around
    for closing in (")", ")+"):
        if atom.endswith(closing):
            return atom[opening.end() : len(atom) - len(closing)]
    return None


_BOUNDED_REPEAT = re.compile(r"\{(\d+),(\d+)\}\??")


def unbounded_repeats(regex: str) -> str:
    """The regex with each ``{m,n}`` repeat (outside a class, not escaped) made ``*`` (m = 0) or ``+``: a looser regex,
    matching every text the pattern matches and ending wherever a match of it ends."""

    def unbounded(text: str, i: int) -> tuple[str, int] | None:
        repeat = _BOUNDED_REPEAT.match(text, i) if text[i] == "{" else None
        return None if repeat is None else ("*" if int(repeat.group(1)) == 0 else "+", repeat.end())

    return rewrite_outside_classes(regex, unbounded)
