"""Lint check RC110: the canon must not cite a thread of the corpus's test split.

The corpus (docs/corpus.md) is split once into a `dev` part to work from and a `test` part that is only scored.
An entry whose source or example is a test thread was written from test data: its patterns are tuned on what the
benchmark then scores. Pure: the adapter reads the corpus and passes in the set of test thread URLs.
"""

from __future__ import annotations

from collections.abc import Iterable

from rootcause.core.model import Entry


def thread_key(url: str) -> str:
    """One key per thread: a comment anchor, a query, a trailing slash and the scheme's case do not matter
    (`.../issues/12#issuecomment-3` and `.../issues/12/` are the thread `.../issues/12`)."""
    key = url.strip().split("#", 1)[0].split("?", 1)[0].rstrip("/")
    scheme, sep, rest = key.partition("://")
    return f"{scheme.lower()}{sep}{rest.lower()}" if sep else key.lower()


def test_thread_keys(urls: Iterable[str]) -> frozenset[str]:
    return frozenset(thread_key(u) for u in urls if u.strip())


def check_test_split_sources(entry: Entry, path: str, test_threads: frozenset[str]) -> list[tuple[str, str, str]]:
    """(path, "RC110", message) for each source, example, workaround or dead end that cites a test-split thread."""
    if not test_threads:
        return []
    cited = [(f"sources.{n}", s.ref) for n, s in enumerate(entry.sources)]
    cited += [(f"examples.{n}", ex.source.ref) for n, ex in enumerate(entry.examples)]
    cited += [(f"workarounds.{n}.sources", ref) for n, w in enumerate(entry.workarounds) for ref in w.sources]
    cited += [(f"dead_ends.{n}.sources", ref) for n, d in enumerate(entry.dead_ends) for ref in d.sources]
    out: list[tuple[str, str, str]] = []
    for field, ref in cited:
        for word in ref.split():
            if "://" in word and thread_key(word.strip("<>()[],;'\"")) in test_threads:
                message = f"{field} cites {word}, a thread of the corpus's test split: cite a dev or non-corpus source"
                out.append((path, "RC110", message))
                break
    return out
