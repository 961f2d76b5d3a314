"""Which backend and which site a text names: a Gloo line is never claimed, by wording alone, for an
NCCL entry, and a 429 from api.openai.com never for a Hugging Face Hub entry.

Pattern matches are exact and need no such guard; the lexical stage guesses from shared words, and
two messages of different backends share most of their words ("timed out", "collective", "rank"), as
two HTTP client errors from different services do ("429 Client Error: Too Many Requests for url").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

# Each backend and the words that name it. Device runtimes and collective libraries both count:
# an MPS error is not a CUDA error, and a Gloo timeout is not an NCCL one.
BACKEND_WORDS: dict[str, tuple[str, ...]] = {
    "nccl": ("nccl", "rccl", "processgroupnccl", "worknccl"),
    "gloo": ("gloo", "processgroupgloo"),
    "mpi": ("mpi", "openmpi", "processgroupmpi"),
    "ucc": ("ucc", "processgroupucc"),
    "mps": ("mps",),
    "xla": ("xla", "tpu"),
    "xpu": ("xpu", "sycl"),
    "rocm": ("rocm", "hip", "miopen"),
}
_WORD = re.compile(r"[a-z0-9]+")
_BACKEND_OF = {word: backend for backend, words in BACKEND_WORDS.items() for word in words}


def backends_named(text: str) -> frozenset[str]:
    """The backends a text names by word (case-insensitive, whole words)."""
    return frozenset(_BACKEND_OF[w] for w in _WORD.findall(text.lower()) if w in _BACKEND_OF)


@cache
def _cached_backends(text: str) -> frozenset[str]:
    return backends_named(text)


def _disjoint(of_line: frozenset[str], entry_text: str, of_entry: Callable[[str], frozenset[str]]) -> bool:
    """True when the line names some, the entry names some, and they share none."""
    return bool(of_line) and bool(named := of_entry(entry_text)) and not (of_line & named)


def other_backend(line: str, entry_text: str) -> bool:
    """True when the line and the entry each name a backend and share none."""
    return _disjoint(backends_named(line), entry_text, _cached_backends)


_URL_HOST = re.compile(r"https?://([a-z0-9.-]+)")


def sites_named(text: str) -> frozenset[str]:
    """The sites a text's URLs point at, as their last two host labels (huggingface.co, openai.com)."""
    return frozenset(".".join(host.strip(".").split(".")[-2:]) for host in _URL_HOST.findall(text.lower()))


@cache
def _cached_sites(text: str) -> frozenset[str]:
    return sites_named(text)


def other_site(line: str, entry_text: str) -> bool:
    """True when the line and the entry each name a site by URL and share none."""
    return _disjoint(sites_named(line), entry_text, _cached_sites)


def foreign_to(line: str) -> Callable[[str], bool]:
    """A test of entry texts, reading the line once: True for an entry naming only other backends or other sites."""
    backends, sites = backends_named(line), sites_named(line)
    return lambda entry_text: _disjoint(backends, entry_text, _cached_backends) or _disjoint(
        sites, entry_text, _cached_sites
    )
