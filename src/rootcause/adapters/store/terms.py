"""Search terms: how entries are indexed in the store and how queries are read.

English text becomes the lexical stage's word tokens (lower case, parameterised, no
stopwords); Chinese text, which has no spaces, becomes overlapping character pairs
(and single characters), the usual way to search CJK without a dictionary. Pure.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

from rootcause.core.model import Entry
from rootcause.core.normalize import tokens

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
MAX_QUERY_TERMS = 48
PREFIX_MIN = 4  # English query terms this long also match longer words (time → timed)


def _cjk_terms(text: str, *, unigrams: bool) -> list[str]:
    out: list[str] = []
    for run in _CJK.findall(text):
        if len(run) == 1 or unigrams:
            out.extend(run)
        out.extend(run[i : i + 2] for i in range(len(run) - 1))
    return out


def text_terms(text: str, *, unigrams: bool = False) -> list[str]:
    words = [t for t in tokens(text) if not t.startswith("<")]
    return words + _cjk_terms(text, unigrams=unigrams)


def entry_text(entry: Entry) -> list[str]:
    """Every text of an entry that search should see, in both languages."""
    parts = [
        entry.id.replace("/", " ").replace("-", " "),
        entry.signature,
        entry.signature_zh or "",
        entry.root_cause,
        entry.root_cause_zh or "",
        entry.error_code or "",
        entry.category.replace("_", " "),
        entry.subcategory or "",
    ]
    parts += [ex.text for ex in entry.examples]
    for w in entry.workarounds:
        parts += [w.action, w.action_zh or ""]
    return [p for p in parts if p]


def index_terms(entry: Entry) -> str:
    """The terms column: distinct terms, space separated and space padded."""
    found: set[str] = set()
    for part in entry_text(entry):
        found.update(text_terms(part, unigrams=True))
    return " " + " ".join(sorted(found)) + " "


def query_terms(text: str) -> list[str]:
    seen: dict[str, None] = {}
    for term in text_terms(text):
        seen.setdefault(term, None)
        if len(seen) >= MAX_QUERY_TERMS:
            break
    return list(seen)


def is_prefix_term(term: str) -> bool:
    return len(term) >= PREFIX_MIN and term.isascii()


def rank(
    hits: Iterable[tuple[str, Sequence[bool]] | tuple[str, Sequence[bool], int]], terms: Sequence[str], n_docs: int
) -> list[tuple[str, float]]:
    """Score rows (entry id, which query terms it holds[, how many of them its signature holds]) by the idf mass
    they cover.

    The score is the covered share of the query's total idf, so it reads as a
    similarity in [0, 1]: 1.0 when an entry holds every query term. Among equal scores, the entries whose
    signature (English or Chinese) holds more of the terms come first: a word that names the error itself says
    more than one in its advice (a one-word query such as 超时 is held by dozens of entries).
    """
    rows = [(row[0], row[1], row[2] if len(row) > 2 else 0) for row in hits]  # type: ignore[misc]
    df = [sum(1 for _, flags, _ in rows if flags[i]) for i in range(len(terms))]
    idf = [math.log(1 + (n_docs - d + 0.5) / (d + 0.5)) for d in df]
    total = sum(idf) or 1.0
    scored = [
        (entry_id, sum(w for w, f in zip(idf, flags, strict=True) if f) / total, in_signature)
        for entry_id, flags, in_signature in rows
    ]
    ordered = sorted((s for s in scored if s[1] > 0), key=lambda s: (-s[1], -s[2], s[0]))
    return [(entry_id, score) for entry_id, score, _ in ordered]
