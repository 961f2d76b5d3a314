"""The lexical stage: BM25 over parameterised signatures and examples.

It catches wording that no pattern covers (a message reworded between library
versions, a paraphrase in a bug report). Scores are normalised by each
document's score against itself, so they read as a similarity in [0, 1] and a
single calibrated threshold decides between a finding and an abstention.
"""

from __future__ import annotations

import builtins
import heapq
import math
import re
from array import array
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from rootcause.core.normalize import tokens

K1 = 1.2
B = 0.75
WEIGHTS_KEPT = 50_000  # terms whose weighted postings a held index keeps (then it starts again)

# Lines that any traceback or crash prints, whatever failed: never a lexical query.
_BOILERPLATE_LINE = re.compile(
    r"^\s*(?:File \"[^\"]*\", line \d+|Traceback \(most recent call last\)|terminate called after throwing an instance"
    r"|During handling of the above exception|The above exception was the direct cause|\^+\s*$|~+\^*~*\s*$)"
)
# Words that every traceback shares, and Python's own exception types: a claim needs a word beyond them.
BOILERPLATE_WORDS = frozenset(
    {"file", "line", "module", "traceback", "most", "recent", "call", "last", "terminate", "called", "after",
     "throwing", "instance", "what", "error", "errors", "exception", "raise", "raised", "failed", "fatal",
     "<path>", "<num>", "<hex>"}
    | {name.lower() for name in dir(builtins) if name.endswith(("Error", "Exception", "Warning"))}
)  # fmt: skip


def is_boilerplate(line: str) -> bool:
    """A frame line, a traceback header or a caret line: it names no cause."""
    return _BOILERPLATE_LINE.match(line) is not None or not (set(tokens(line)) - BOILERPLATE_WORDS)


@dataclass
class LexicalIndex:
    doc_entry: list[str] = field(default_factory=list)
    doc_len: list[int] = field(default_factory=list)
    postings: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    self_score: list[float] = field(default_factory=list)
    avg_len: float = 1.0

    @classmethod
    def build(cls, docs: list[tuple[str, str]]) -> LexicalIndex:
        """docs: (entry id, text) pairs; an entry may have several documents."""
        index = cls()
        # every document's (term, tf) pairs, in its own order, as two flat arrays of numbers (term ids, tfs): a
        # Counter per document would hold as much memory again as the index (100k entries: 0.7 GiB)
        term_ids: dict[str, int] = {}
        bag_terms, bag_tfs, bag_ends = array("l"), array("l"), array("l")
        for entry_id, text in docs:
            bag = Counter(tokens(text))
            if not bag:
                continue
            doc = len(index.doc_entry)
            index.doc_entry.append(entry_id)
            index.doc_len.append(sum(bag.values()))
            for term, tf in bag.items():
                index.postings.setdefault(term, []).append((doc, tf))
                bag_terms.append(term_ids.setdefault(term, len(term_ids)))
                bag_tfs.append(tf)
            bag_ends.append(len(bag_terms))
        index.avg_len = (sum(index.doc_len) / len(index.doc_len)) if index.doc_len else 1.0
        idf = [index._idf(term) for term in term_ids]
        start = 0
        for doc, end in enumerate(bag_ends):
            pairs = zip(bag_terms[start:end], bag_tfs[start:end], strict=True)
            index.self_score.append(index._self_score(doc, pairs, idf))
            start = end
        return index

    def _self_score(self, doc: int, bag: Iterable[tuple[int, int]], idf: list[float]) -> float:
        """The document's score against a query equal to itself (bag: its term ids and their counts)."""
        total = 0.0
        for term, tf in bag:
            norm = tf * (K1 + 1) / (tf + K1 * (1 - B + B * self.doc_len[doc] / self.avg_len))
            total += idf[term] * norm
        return total

    def _idf(self, term: str) -> float:
        n = len(self.doc_entry)
        df = len(self.postings.get(term, ()))
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def _score_bag(self, bag: Counter[str]) -> dict[int, float]:
        scores: dict[int, float] = {}
        get = scores.get
        for term in bag:
            for doc, weight in self._weighted(term):
                scores[doc] = get(doc, 0.0) + weight
        return scores

    def _weighted(self, term: str) -> list[tuple[int, float]]:
        """The term's posting with each document's BM25 weight (idf times the normalised tf), computed when the term
        is first asked for and kept (the same arithmetic as before, so scores are unchanged to the last bit)."""
        cache: dict[str, list[tuple[int, float]]] | None = self.__dict__.get("_weights")
        if cache is None or len(cache) > WEIGHTS_KEPT:
            cache = self.__dict__["_weights"] = {}
        weighted = cache.get(term)
        if weighted is None:
            posting = self.postings.get(term) or []
            idf = self._idf(term) if posting else 0.0
            doc_len, avg_len = self.doc_len, self.avg_len
            weighted = [
                (doc, idf * (tf * (K1 + 1) / (tf + K1 * (1 - B + B * doc_len[doc] / avg_len)))) for doc, tf in posting
            ]
            cache[term] = weighted
        return weighted

    def search(self, text: str, limit: int = 5, exclude: frozenset[int] = frozenset()) -> list[tuple[str, float]]:
        """Best entries for a text, as (entry id, similarity in [0, 1]); ``exclude`` skips documents."""
        bag = Counter(tokens(text))
        if not bag:
            return []
        best: dict[str, float] = {}
        query_self = max(self._query_self(bag), 1e-9)
        self_score, doc_entry, sqrt = self.self_score, self.doc_entry, math.sqrt
        for doc, score in self._score_bag(bag).items():
            if doc in exclude:
                continue
            # symmetric normalisation: a short query inside a long document and a long
            # query around a short document are both penalised
            denom = sqrt(max(self_score[doc], 1e-9) * query_self)
            sim = min(1.0, score / denom)
            entry = doc_entry[doc]
            if sim > best.get(entry, 0.0):
                best[entry] = sim
        # the same as sorted(...)[:limit], in one pass: a common word's posting holds thousands of entries
        return heapq.nsmallest(limit, best.items(), key=lambda kv: (-kv[1], kv[0]))

    def shares_distinctive(self, text: str, entry_id: str, max_share: float) -> bool:
        """True when the text and one of the entry's documents share a word that is not boilerplate and that
        the documents of at most ``max_share`` of all entries hold (a word that names a cause, not one that
        every error prints)."""
        entries_of = self._entries_of_term()
        limit = max(1.0, max_share * len(set(self.doc_entry)))
        for term in set(tokens(text)) - BOILERPLATE_WORDS:
            holders = entries_of.get(term, frozenset())
            if entry_id in holders and len(holders) <= limit:
                return True
        return False

    def _entries_of_term(self) -> dict[str, frozenset[str]]:
        """Each term's entries (computed once, on first use)."""
        cached: dict[str, frozenset[str]] | None = self.__dict__.get("_term_entries")
        if cached is None:
            cached = {t: frozenset(self.doc_entry[d] for d, _ in p) for t, p in self.postings.items()}
            self.__dict__["_term_entries"] = cached
        return cached

    def rank(self, text: str, limit: int = 1000) -> list[tuple[str, float]]:
        """Search by words: every entry that shares a term with the text, by its best document's raw BM25
        score (not normalised, so that a short query ranks long documents fairly), best first."""
        bag = Counter(tokens(text))
        best: dict[str, float] = {}
        for doc, score in self._score_bag(bag).items():
            entry = self.doc_entry[doc]
            if score > best.get(entry, 0.0):
                best[entry] = score
        return sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]

    def _query_self(self, bag: Counter[str]) -> float:
        """The score the query would get against a document equal to itself."""
        length = sum(bag.values())
        total = 0.0
        for term, tf in bag.items():
            norm = tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / self.avg_len))
            total += self._idf(term) * norm
        return total
