"""A message's stable head matches on its own: a paste cut after its first words is still that message.

Users paste the first line of an error and stop, an issue title holds only its first sentence, and a log line
is cut at a terminal's edge: ``failed (exitcode: 1) local_rank: 0 (pid: 840146)`` is the whole paste, while the
entry's pattern goes on with `` of binary:``. For every single-line pattern, the *truncated* form matches when
the line ends at a word boundary anywhere after the pattern's stable head (the first ``MIN_HEAD`` literal
characters and ``MIN_WORDS`` words, taken whole atom by atom): every parameter capture after the head is in
effect optional. A truncated form that two entries share names neither, and is dropped. Truncated forms are
tried on small inputs (pastes) only, after the scan (``SourceScanner.finish``): logs are not cut.
"""

from __future__ import annotations

import re
from itertools import pairwise

from rootcause.core.model import Entry

MIN_HEAD = 24
MIN_WORDS = 4
_QUANTIFIER_START = set("*+?{")
# Where a cut line may end: after a whole word and its punctuation. Never inside the next word: that word is often
# the parameter that tells entries apart ('triton' in "No module named 'triton'"), and a wildcard would erase it.
_CUT_END = r"[.:,;]?\s*$"
_PUNCT_LITERALS = set(".()[]{}*+?|\\/'\"-:,= _<>!@#%&~`;")


def atoms(regex: str) -> list[str] | None:
    """The regex as a list of top-level atoms (a character, an escape, a class or a group, each with its
    quantifier); None when it has a top-level alternation, which cannot be cut atom by atom."""
    out: list[str] = []
    i, n = 0, len(regex)
    while i < n:
        ch = regex[i]
        if ch == "|":
            return None
        if ch == "\\":
            j = i + 2
        elif ch == "[":
            j = i + 1
            if regex[j : j + 1] == "^":
                j += 1
            if regex[j : j + 1] == "]":
                j += 1
            while j < n and regex[j] != "]":
                j += 2 if regex[j] == "\\" else 1
            j += 1
        elif ch == "(":
            depth, j = 1, i + 1
            while j < n and depth:
                c = regex[j]
                if c == "\\":
                    j += 2
                    continue
                if c == "[":
                    j += 1
                    while j < n and regex[j] != "]":
                        j += 2 if regex[j] == "\\" else 1
                depth += {"(": 1, ")": -1}.get(c, 0)
                j += 1
        else:
            j = i + 1
        if j < n and regex[j] in _QUANTIFIER_START:  # the quantifier belongs to this atom
            j = regex.find("}", j) + 1 if regex[j] == "{" else j + 1
            if j < n and regex[j] == "?":
                j += 1
        out.append(regex[i:j])
        i = j
    return out


def literal_char(atom: str) -> str:
    """The fixed character an atom demands, or '' (a class, a group, anything quantified)."""
    if len(atom) == 1 and atom not in "^$.":
        return atom
    if len(atom) == 2 and atom[0] == "\\" and atom[1] in _PUNCT_LITERALS:
        return atom[1]
    return ""


def _is_space(atom: str) -> bool:
    return atom.startswith((" ", "\\s"))


def truncated(regex: str) -> str | None:
    """The pattern with everything after its stable head optional, cut at word boundaries, matching only when the
    line ends there; None when the pattern has no head long enough to name the error alone."""
    parts = atoms(regex.removesuffix("$") if not regex.endswith("\\$") else regex)
    if not parts:
        return None
    head_end, literal = None, ""
    cuts: list[int] = []
    for k, atom in enumerate(parts):
        literal += literal_char(atom) or "\0"
        if k + 1 < len(parts) and _is_space(parts[k + 1]):
            words = len(literal.replace("\0", " ").split())
            if head_end is None and literal.count("\0") <= 2 and len(literal) - literal.count("\0") >= MIN_HEAD:
                head_end = k + 1 if words >= MIN_WORDS else None
            elif head_end is not None:
                cuts.append(k + 1)
    if head_end is None:
        return None
    bounds = [head_end, *cuts]
    segments = ["".join(parts[a:b]) for a, b in pairwise(bounds)]
    tail = "".join(f"(?:{s}" for s in segments) + ")?" * len(segments)
    return "".join(parts[:head_end]) + tail + _CUT_END


# An escape that stands for more than its own next character (\\x41, \\Q...\\E, \\123, \\pL) or a case-folding flag: the
# pattern gives no required literal that a byte-wise scan could use.
_NO_LITERAL = re.compile(r"\\[xQ0-9cuUoNEzCpP]|\(\?[a-zA-Z-]*i")


def required_literal(regex: str) -> str:
    """The longest run of literal characters outside any group that every match of a pattern holds ('' when the
    pattern gives none: a top-level alternation, a case-folding flag, an escape of more than one character).

    Every line a one-line pattern matches holds it, so a large canon's prefilter may look for it instead of the
    pattern (core/matching/index.py): a literal costs hyperscan's compiler little, a pattern a millisecond."""
    if _NO_LITERAL.search(regex):
        return ""
    parts = atoms(regex)
    if parts is None:
        return ""
    best, run = "", ""
    for atom in parts:
        lit = literal_char(atom)
        if lit:
            run += lit
            continue
        if len(run) > len(best):
            best = run
        run = ""
    return run if len(run) > len(best) else best


def derive_heads(entries: list[Entry]) -> list[tuple[str, str, bool]]:
    """(entry id, truncated pattern, whether it is a consequence pattern) for every single-line pattern that has
    one, unless another entry derives the same."""
    owners: dict[str, set[tuple[str, bool]]] = {}
    for entry in entries:
        if entry.catch_all:
            continue
        for p in entry.patterns:
            cut = truncated(p.regex) if p.window == 1 else None
            if cut is not None:
                owners.setdefault(cut, set()).add((entry.id, p.consequence))
    unique = [(cut, next(iter(found))) for cut, found in sorted(owners.items()) if len({e for e, _ in found}) == 1]
    return [(entry_id, cut, consequence) for cut, (entry_id, consequence) in unique]
