"""Masks for error lines of ML jobs: the parts that vary from rank to rank and run to run.

Template mining (Drain3) groups lines by their constant words; these masks first replace what varies
in ML logs (ranks, sequence numbers, process groups, hosts and IPs, PCI bus ids, tensor shapes,
sizes, paths, pids, tqdm and other progress bars) with a named placeholder, so one error printed by
sixty-four ranks with sixty-four rank numbers is one template. The same table gives the RE2 text
that a candidate entry's pattern uses for each placeholder.

Order matters: a progress bar before the numbers in it, a path before the host names in it, a PCI
bus id before an IPv6 address. Drain3 applies the masks with Python's backtracking re, so a repeat that
could rescan a long run of word characters from each of its positions is bounded (a host name is at most
253 characters, a file name 255): linear time on any line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Mask:
    name: str  # the placeholder is <NAME>
    regex: str  # Python re (Drain3 applies it), run on a line whose framing was stripped
    re2: str  # what the placeholder becomes in a candidate's RE2 pattern


_SHAPE_DIMS = r"\d+(?:\s*,\s*\d+)*,?"
ML_MASKS: tuple[Mask, ...] = (
    # tqdm: " 45%|████▌     | 45/100 [00:12<00:15,  3.61it/s]", also without the bar
    Mask(
        "PROGRESS",
        r"\d{1,3}%\|[^|\n]*\|\s*[\d.]+[kMG]?/[\d.?]+[kMG]?\s*\[[^\]\n]*\]|"
        r"\b[\d.]{1,32}[kMG]?/[\d.?]{1,32}[kMG]?\s*\[\d+:\d+(?::\d+)?<[^\]\n]*\]",
        r".*?",
    ),
    # tqdm redraws a bar many times on one line ("…0%|…| 0/21 […]Loading weights: 100%|…"): one bar
    Mask("PROGRESS", r"<PROGRESS>(?:[^<\n]{0,80}?<PROGRESS>)+", r".*?"),
    Mask("TIME", r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?", r"\S+(?: \S+)?"),
    Mask(
        "PATH",
        r"(?:\b[a-zA-Z]:)?(?:/[\w.\-+@~=]+){2,}/?|\b[\w.\-]{1,255}\.(?:py|so|cpp|cu|h|hpp|cc|json|yaml|pt|bin|safetensors)\b",
        r"\S+",
    ),
    Mask("PCI", r"\b[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]\b", r"[0-9a-fA-F:.]+"),
    # NCCL's "host-12:4567:4590 [3]" line prefix: host, pid, thread, device
    Mask("NCCLHOST", r"\b[\w.\-]{1,253}:\d+:\d+ \[\d+\]", r"\S+ \[\d+\]"),
    Mask(
        "IP",
        r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b|\[?\b(?:[0-9a-fA-F]{1,4}:){2,7}[0-9a-fA-F]{1,4}\b\]?(?::\d+)?",
        r"\S+",
    ),
    # host names hold a digit and a dash or dot: node-07, gpu12.cluster.local, ip-10-0-0-1
    Mask("HOST", r"\b(?=[\w\-.]{0,253}\d)[a-zA-Z]\w*(?:[-.]\w+)+\b", r"\S+"),
    Mask(
        "SHAPE",
        rf"torch\.Size\(\[[\d, ]*\]\)|\[{_SHAPE_DIMS}\]|\({_SHAPE_DIMS}\)|\b\d+(?:x\d+)+\b",
        r"(?:torch\.Size\(\[[\d, ]*\]\)|[\[(][\d, ]*[\])]|\d+(?:x\d+)+)",
    ),
    Mask("SIZE", r"\b\d+(?:\.\d+)?\s*(?:[KMGTP]i?B|bytes|[KMGT]B)\b", r"\d+(?:\.\d+)?\s*\w+"),
    Mask("HEX", r"\b0x[0-9a-fA-F]+\b", r"0x[0-9a-fA-F]+"),
    Mask(
        "RANK",
        r"(?<=[Rr]ank )\d+|(?<=[Rr]ank)\d+|(?<=[Rr]ank=)\d+|(?<=RANK=)\d+|(?<=[Rr]ank: )\d+|(?<=[Rr]anks )[\d, ]+\d",
        r"[\d, ]+",
    ),
    Mask("SEQ", r"(?<=SeqNum=)\d+|(?<=seq=)\d+|(?<=seq )\d+|(?<=[Ss]equence number )\d+|(?<=OpSeq )\d+", r"\d+"),
    Mask("PG", r"(?<=[Pp]rocess [Gg]roup )\S+|(?<=PG ID )\d+|(?<=PG GUID )\S+|(?<=pg_name=)\S+|(?<=pg_id=)\d+", r"\S+"),
    Mask("PID", r"(?<=pid )\d+|(?<=pid=)\d+|(?<=PID )\d+|(?<=pid: )\d+|(?<=process )\d+", r"\d+"),
    Mask("NUM", r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w])", r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"),
)

MASK_RE2: dict[str, str] = {m.name: m.re2 for m in ML_MASKS}
_COMPILED = [(m.name, re.compile(m.regex)) for m in ML_MASKS]


def mask_line(text: str) -> str:
    """The line with every variable part replaced by its placeholder (``<RANK>``, ``<SHAPE>`` …)."""
    for name, rx in _COMPILED:
        text = rx.sub(f"<{name}>", text)
    return text


_PLACEHOLDER = re.compile(r"<(\*|[A-Z]+)>")


def template_to_re2(template: str) -> str:
    """An RE2 pattern for a mined template: words literal, placeholders by their mask, blanks loose.

    Drain3 splits on whitespace, so runs of blanks become ``\\s+``; ``<*>`` (a token Drain3 found to
    vary) becomes ``\\S+``.
    """
    out: list[str] = []
    for word in template.split():
        pieces: list[str] = []
        pos = 0
        for m in _PLACEHOLDER.finditer(word):
            pieces.append(re.escape(word[pos : m.start()]))
            name = m.group(1)
            pieces.append(r"\S+" if name == "*" else MASK_RE2.get(name, r"\S+"))
            pos = m.end()
        pieces.append(re.escape(word[pos:]))
        out.append("".join(pieces))
    return r"\s+".join(out)
