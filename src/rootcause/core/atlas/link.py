"""Which atlas templates print a canon generation's wording: `rootcause atlas link`'s matching (pure).

A template of the generation's package prints its wording when the template's literal (every line its pattern
matches contains it) is in the wording and its RE2 pattern then matches the whole wording (from its start, after an
exception class, to its end, but placeholders and punctuation) and holds the template's whole text: a shorter
message that the wording goes on from, a longer one that goes on after it, a fragment and a tail are other
messages. A wording that names its exception class (`ValueError: ...`) is not printed by a template that raises the
same text as another class (torch raises `trying to initialize the default process group twice!` as a RuntimeError
before 2.2 and as a ValueError since). A wording that ends with '...' was cut short: a template may go on after it.
Every such template is linked: one wording can be printed by several sites (a module moved, a Python copy of a
native message), and the releases that print the wording are those that hold any of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import re2

from rootcause.core.atlas.bounds import template_key
from rootcause.core.atlas.generic import PLACEHOLDER
from rootcause.core.atlas.locate import named_exception, own_length, raises_another_class

MIN_HELD = 16  # literal characters a match must hold
MIN_SHARE = 0.7  # ... and this share of the wording's own characters
WHOLE_SLACK = 3  # a match holding all but this many characters of a template's own text holds all of it
MAX_TEXT = 2000  # characters of a text searched
_TRAILING = " \t'\"`.,;:!?)]}>\n"
_EXCEPTION_HEAD = re.compile(
    r"^(?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception|Warning|Exit|Interrupt|Missing)\s*:\s*"
)


@dataclass(frozen=True)
class Candidate:
    """One template of a package, as the matcher needs it."""

    key: str
    literal: str
    pattern: str
    message: str
    releases: tuple[tuple[str, str], ...]
    where: str = ""  # the line at the newest release's tag (URL), else `package==release:module`
    kind: str = ""  # raise, warning, log, native
    exception: str = ""  # the class a raise names (`ValueError`, `torch.distributed.DistBackendError`), else ""


@dataclass(frozen=True)
class Link:
    key: str
    held: int  # literal characters of the text that the match holds
    template: Candidate


def candidate(row: Sequence, releases: Sequence[tuple[str, str]]) -> Candidate:
    """From (package, kind, exception, pattern, literal, message, module, source_url) and the intervals."""
    package, kind, exception, pattern, literal, message, module, url = row
    where = url or (f"{package}=={releases[-1][1]}:{module}" if releases else module)
    key = template_key(package, kind, exception, pattern)
    return Candidate(key, literal, pattern, message, tuple(releases), where, kind, exception or "")


class PackageTemplates:
    """The templates of one package, searched by their literals first."""

    def __init__(self, candidates: Iterable[Candidate]):
        self._by_literal: dict[str, list[Candidate]] = {}
        for c in candidates:
            if c.literal:
                self._by_literal.setdefault(c.literal, []).append(c)
        self._compiled: dict[str, Any] = {}
        self._options = re2.Options()
        self._options.max_mem = 64 << 20

    def _regex(self, pattern: str) -> Any:
        rx = self._compiled.get(pattern)
        if rx is None:
            try:
                rx = re2.compile(pattern, self._options)
            except re2.error:
                rx = False
            self._compiled[pattern] = rx
        return rx

    def matches(self, text: str) -> list[Link]:
        """The templates that print `text` (a wording): each match spans the text from its start (after an exception
        class) to its end, but placeholders and punctuation, holds the template's whole text (unless the wording
        ends with '...', cut short) and at least `MIN_SHARE` of the wording's own characters."""
        text = text[:MAX_TEXT]
        cut = text.rstrip().endswith(("...", "…"))
        text = text.rstrip().removesuffix("...").removesuffix("…")
        head = _EXCEPTION_HEAD.match(text)
        start = head.end() if head else 0
        named, _ = named_exception(text)
        own = own_length(text[start:])
        out: list[Link] = []
        for literal, group in self._by_literal.items():
            if literal not in text:
                continue
            for c in group:
                if raises_another_class(c.kind, c.exception, named):
                    continue  # the same text raised as another class: another generation's message
                rx = self._regex(c.pattern)
                m = rx.search(text) if rx else None
                if m is None:
                    continue
                held = (m.end() - m.start()) - sum(len(v) for v in m.groupdict().values() if v)
                spans = not _bare(text[start : m.start()]) and not _bare(text[m.end() :])
                whole = cut or held >= own_length(c.message) - WHOLE_SLACK
                if spans and whole and held >= max(MIN_HELD, MIN_SHARE * own):
                    out.append(Link(c.key, held, c))
        return out


def _bare(text: str) -> str:
    """What is left of a text beside a match once placeholders and punctuation are gone: "" when nothing."""
    return PLACEHOLDER.sub("", text).strip(_TRAILING)


def link_generation(templates: PackageTemplates, wording: str) -> list[Link]:
    """Every template that prints a generation's wording (in key order); [] when none does, or when the wording
    goes on over further lines: the atlas keeps a message's first line only, so it cannot bound a wording that
    its later lines tell apart.

    All of them, not the best one: one wording is often printed by several sites (a Python copy in a meta
    kernel, a string in a shared object), and the releases that print the wording are those that hold any of them."""
    lines = [line.strip() for line in wording.splitlines() if line.strip()]
    if len(lines) != 1 or len(lines[0]) < MIN_HELD:
        return []
    return sorted(templates.matches(lines[0]), key=lambda link: link.key)
