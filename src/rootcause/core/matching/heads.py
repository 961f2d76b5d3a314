"""A message's stable head matches on its own: a paste cut after the first sentence is still that message.

Users paste the first line of an error and stop, or an issue title holds only its first sentence:
``Some NCCL operations have failed or timed out.`` is the whole paste, while the entry's pattern goes on
with ``Due to the asynchronous nature of CUDA kernels``. For every pattern that begins with plain text, each
sentence of that text long enough to name the error on its own (at least ``MIN_HEAD`` characters and
``MIN_WORDS`` words) becomes a *head* pattern that matches when the line ends right after it. A head that two
entries share names neither, and is dropped.
"""

from __future__ import annotations

import re

from rootcause.core.model import Entry

MIN_HEAD = 24
MIN_WORDS = 4
_META = set(".^$*+?()[]{}|\\")
_QUANTIFIERS = set("*+?{")
_ESCAPED_LITERALS = set(".()[]{}*+?|\\/'\"-:,= ")


def literal_prefix(regex: str) -> str:
    """The plain text a regex demands before its first class, group, alternation or quantifier."""
    out: list[str] = []
    i = 0
    while i < len(regex):
        ch = regex[i]
        if ch == "\\" and i + 1 < len(regex) and regex[i + 1] in _ESCAPED_LITERALS:
            char, step = regex[i + 1], 2
        elif ch in _META:
            break
        else:
            char, step = ch, 1
        if regex[i + step : i + step + 1] in _QUANTIFIERS and regex[i + step : i + step + 1]:
            break  # the character is optional or repeated: not part of a fixed head
        out.append(char)
        i += step
    return "".join(out)


def _escape(text: str) -> str:
    return "".join("\\" + c if c in _META else c for c in text)


def sentence_heads(regex: str) -> list[str]:
    """The sentences at the start of a pattern's plain text that are long enough to stand alone."""
    if regex.startswith("^"):
        return []
    prefix = literal_prefix(regex)
    heads = []
    for m in re.finditer(r"\. ", prefix):
        head = prefix[: m.start()]
        if len(head) >= MIN_HEAD and len(head.split()) >= MIN_WORDS:
            heads.append(head)
    return heads


def derive_heads(entries: list[Entry]) -> list[tuple[str, str, int]]:
    """(entry id, head regex, literal length) for every head that only one entry has."""
    owners: dict[str, set[str]] = {}
    for entry in entries:
        if entry.catch_all:
            continue
        for p in entry.patterns:
            if p.window == 1:
                for head in sentence_heads(p.regex):
                    owners.setdefault(head, set()).add(entry.id)
    return [
        (next(iter(ids)), _escape(head) + r"\.?\s*$", len(head))
        for head, ids in sorted(owners.items())
        if len(ids) == 1
    ]
