"""Read the corpus's test-split thread URLs for lint's RC110 (core/lint_split.py; docs/corpus.md)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import yaml

from rootcause.core.lint_split import test_thread_keys

TEST_SHARE_PERCENT = 40  # as corpus/split.py, which records the split in the files


def _split_of(url: str) -> str:
    """corpus/split.py's rule, for a case whose file has no split yet."""
    digest = hashlib.sha256(url.strip().encode()).hexdigest()
    return "test" if int(digest[:8], 16) % 100 < TEST_SHARE_PERCENT else "dev"


def checkout_corpus_dir(canon_dir: Path | None) -> Path | None:
    """The corpus/ folder of the checkout whose canon is ``canon_dir`` (src/rootcause/canon), when it has one."""
    if canon_dir is None:
        return None
    corpus = canon_dir.parents[2] / "corpus"
    return corpus if corpus.is_dir() else None


def corpus_test_threads(root: Path) -> frozenset[str]:
    """The thread URLs of every case and negative in the test split of the corpus at ``root``."""
    urls: list[str] = []
    for path in sorted([*root.glob("cases/*.yaml"), *root.glob("negatives/*.yaml")]):
        for case in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            url = str(case.get("url") or "")
            if url and (case.get("split") or _split_of(url)) == "test":
                urls.append(url)
    return test_thread_keys(urls)
