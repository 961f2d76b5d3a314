"""Which backend, which site and which names a text names: a Gloo line is never claimed, by wording alone,
for an NCCL entry, a 429 from api.openai.com never for a Hugging Face Hub entry, and an unexpected keyword
argument 'fp16' never for an entry about the argument 'gpus'.

Pattern matches are exact and need no such guard; the lexical stage guesses from shared words, and
two messages of different backends share most of their words ("timed out", "collective", "rank"), as
two HTTP client errors from different services do ("429 Client Error: Too Many Requests for url").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from rootcause.core.matching.heads import top_level_alternatives

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


# Packages of the stack, by the words that name them: "No matching distribution found for onnxruntime" is not
# the entry about torch's wheels, though every other word is shared.
PACKAGE_WORDS = frozenset(
    {"torch", "pytorch", "torchvision", "torchaudio", "transformers", "accelerate", "datasets", "peft", "trl",
     "diffusers", "huggingface_hub", "tokenizers", "safetensors", "deepspeed", "vllm", "bitsandbytes",
     "flash_attn", "xformers", "triton", "apex", "lightning", "pytorch_lightning", "onnxruntime", "onnx", "timm",
     "sentence_transformers", "unsloth", "tensorflow", "jax", "jaxlib", "tensorrt", "llamafactory", "axolotl"}
)  # fmt: skip
_PACKAGE_WORD = re.compile(r"[a-z0-9_\-]+")


def packages_named(text: str) -> frozenset[str]:
    """The packages of the stack a text names by word (case-insensitive; flash-attn is flash_attn)."""
    words = (w.replace("-", "_") for w in _PACKAGE_WORD.findall(text.lower()))
    return frozenset(w for w in words if w in PACKAGE_WORDS)


@cache
def _cached_packages(text: str) -> frozenset[str]:
    return packages_named(text)


def foreign_to(line: str) -> Callable[[str], bool]:
    """A test of entry texts, reading the line once: True for an entry naming only other backends, other sites or
    other packages of the stack."""
    backends, sites, packages = backends_named(line), sites_named(line), packages_named(line)
    return lambda entry_text: (
        _disjoint(backends, entry_text, _cached_backends)
        or _disjoint(sites, entry_text, _cached_sites)
        or _disjoint(packages, entry_text, _cached_packages)
    )


# What a message is about: the names it quotes ('fp16', "state_dict", `v2`) and the HTTP status it reports. A
# template shared word for word ("got an unexpected keyword argument", "has no attribute") with another name
# is another error: had the entry meant any name, its pattern would have said so.
_QUOTED = re.compile(r"""'([^'\s]{2,80})'|"([^"\s]{2,80})"|`([^`\s]{2,80})`|\b([1-5]\d\d) (?:Client|Server) Error""")


def names_quoted(text: str) -> frozenset[str]:
    """The names a text quotes, and any HTTP status it reports, lower-cased."""
    return frozenset(next(g for g in m.groups() if g).lower() for m in _QUOTED.finditer(text))


@cache
def _cached_names(text: str) -> frozenset[str]:
    return names_quoted(text)


def other_names(line: str, entry_texts: tuple[str, ...]) -> bool:
    """True when the line quotes names, the entry's texts quote some too, and no text of the entry shares one."""
    of_line = names_quoted(line)
    if not of_line:
        return False
    named = [_cached_names(t) for t in entry_texts]
    return any(named) and not any(of_line & n for n in named)


# -- the object a pattern is about ---------------------------------------------------------------------------------
# Sibling messages share their template and differ in what they are about: ``No such file or directory: 'cmake'``
# and ``... 'b`` (cut), ``cannot import name 'cached_download' from 'huggingface_hub'`` and ``... 'errors' ...``,
# ``No matching distribution found for torch`` and ``... for o``. The lexical stage scores the template's words, so it
# would claim the entry for each sibling; it may claim only when the line names the entry's object too.
_QUOTED_LITERAL = re.compile(r"""'([A-Za-z_][A-Za-z0-9_.\-]{2,})'|`([A-Za-z_][A-Za-z0-9_.\-]{2,})`""")
_CAPTURE = re.compile(r"\(\?P<\w+>(\(\?:)?")
_LEAD_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_OPTIONAL_ENDINGS = re.compile(r"\(\?:([A-Za-z0-9_]+(?:\|[A-Za-z0-9_]+)*)\)\?")  # (?:vision|audio)?
WHOLE = "$"  # an object that is a whole name: a line names it only where no name character goes on around it
_NAME_CHAR = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


def _capture_objects(body: str) -> set[str] | None:
    """The literal words a named capture's body starts with (``(?P<p>(?:peft|trl))`` -> peft, trl; ``(?P<m>nemo\\w*)``
    -> nemo, any name it starts), or None when one of its alternatives starts with no literal word. An alternative
    that is only its word and optional literal endings names those whole names, marked ``WHOLE``:
    ``(?P<package>torch(?:vision|audio)?)`` -> torch, torchvision, torchaudio, none of which is ``torchao``."""
    if body.startswith("(?:") and body.endswith(")"):
        body = body[3:-1]
    words: set[str] = set()
    for alternative in top_level_alternatives(body):
        lead = _LEAD_WORD.match(alternative)
        if lead is None:
            return None
        word = lead.group(0).lower()
        rest = alternative[lead.end() :]
        endings = _OPTIONAL_ENDINGS.fullmatch(rest)
        if rest and endings is None:
            words.add(word)
            continue
        names = [word] + ([word + e.lower() for e in endings.group(1).split("|")] if endings else [])
        words.update(name + WHOLE for name in names)
    return words or None


def _depths(regex: str) -> list[int]:
    """The group depth at each character of a pattern (escapes and character classes aside)."""
    out, depth, i, in_class = [0] * (len(regex) + 1), 0, 0, False
    while i < len(regex):
        ch = regex[i]
        out[i] = depth
        if ch == "\\":
            out[i + 1 : i + 2] = [depth]
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        i += 1
    return out


def _top_level_group_end(regex: str, start: int) -> int:
    """The index after the group that opens at ``start``."""
    depth, i = 0, start
    while i < len(regex):
        ch = regex[i]
        if ch == "\\":
            i += 2
            continue
        depth += ch == "("
        depth -= ch == ")"
        i += 1
        if depth == 0:
            break
    return i


@cache
def pattern_objects(regex: str) -> frozenset[str]:
    """The names a pattern requires a line to be about: its quoted literal names, and the literal words its named
    captures start with, where every match holds them (outside any group, a capture not optional). Empty when it
    names none; a capture with a free alternative names nothing."""
    depths = _depths(regex)
    if "|" in "".join(ch for ch, d in zip(regex, depths, strict=False) if d == 0):
        return frozenset()  # alternatives at the top: no object is required by every match
    objects = {(m.group(1) or m.group(2)).lower() for m in _QUOTED_LITERAL.finditer(regex) if depths[m.start()] == 0}
    for m in _CAPTURE.finditer(regex):
        if depths[m.start()] != 0:
            continue
        end = _top_level_group_end(regex, m.start())
        if regex[end : end + 1] in ("?", "*") or regex[end : end + 3] == "{0,":
            continue
        words = _capture_objects(regex[m.end() - (3 if m.group(1) else 0) : end - 1])
        if words:
            objects |= words
    return frozenset(objects)


def misses_object(line: str, objects: frozenset[str]) -> bool:
    """True when an entry is about named objects (``signature_objects``) and the line names none of them."""
    if not objects:
        return False
    low = line.lower()
    return not any(_names_whole(low, obj[:-1]) if obj.endswith(WHOLE) else obj in low for obj in objects)


def _names_whole(low: str, name: str) -> bool:
    """Whether ``name`` stands in the line as a whole name: no name character before it, and after it neither a name
    character nor a hyphen that goes on with a letter (``torch-xla`` is another package; ``torch-2.1.0`` is torch's
    wheel)."""
    at = low.find(name)
    while at >= 0:
        end = at + len(name)
        before = low[at - 1] if at else " "
        after = low[end : end + 2]
        if before not in _NAME_CHAR and not (after[:1] in _NAME_CHAR or (after[:1] == "-" and after[1:2].isalpha())):
            return True
        at = low.find(name, at + 1)
    return False
