"""Two checks that keep a claim from resting on a cut or sibling line: whether a family's hit is a specific
entry's message cut inside its member (``CUDA error: an ille``), and what an entry's message is about (the named
object a sibling message would lack)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rootcause.core.matching.backends import pattern_objects
from rootcause.core.matching.patterns import compile_re2
from rootcause.errors import PatternError

if TYPE_CHECKING:
    from rootcause.core.matching.index import CompiledIndex
    from rootcause.core.matching.scan_result import Hit
    from rootcause.core.model import Entry

CUT_LEAD = 12  # characters before the cut parameter that, with it, must run on in a specific entry's own text
CUT_TAILS_HELD = 4096
CUT_TAIL_MAX = 400  # characters of the tail looked for (escaped, within compile_re2's pattern length)


def cut_member(hit: Hit, index: CompiledIndex) -> bool:
    """Whether a family's hit on the last line of a paste with no final line break ends in one of its parameters,
    and the line's end runs on in a specific entry's own text: the paste was cut inside that entry's message
    (``CUDA error: an ille``, ``CUDA error: out``), whose family parameter is then only a prefix of the real one."""
    end = hit.clean.rstrip().rstrip("\"'`.:,;)]}…").rstrip()
    last = max((v for v in hit.params.values() if v and end.endswith(v)), key=len, default="")
    if not last:
        return False
    return runs_on_in_specific_text(end[-(len(last) + CUT_LEAD) :].lower(), index)


def runs_on_in_specific_text(tail: str, index: CompiledIndex) -> bool:
    """Whether ``tail`` occurs in a specific entry's own text (``index.specific_texts()``, one line each) with more
    of that line after it. One linear RE2 pass over the texts, whatever the number of occurrences that end a line
    (a large canon holds thousands of ``... invalid argument``); the answer is kept per index, for at most
    ``CUT_TAILS_HELD`` tails."""
    held: dict[str, bool] = index.__dict__.setdefault("_cut_tails", {})
    found = held.get(tail)
    if found is None:
        literal = re.escape(tail[-CUT_TAIL_MAX:])  # RE2 reads Python's escapes; a long parameter keeps its end
        found = compile_re2(literal + "[^\n]").search(index.specific_texts()) is not None
        if len(held) >= CUT_TAILS_HELD:
            held.clear()
        held[tail] = found
    return found


_SIGNATURE_OBJECTS: dict[str, frozenset[str]] = {}
SIGNATURE_OBJECTS_HELD = 4096  # entries whose objects are remembered (a process may load several canons)


def signature_objects(entry: Entry) -> frozenset[str]:
    """What the entry's message is about: the objects (``pattern_objects``) of the patterns that match its own
    signature. Empty when those name none (``CUDA error: an illegal memory access was encountered``)."""
    key = "\0".join((entry.id, entry.signature, *(p.regex for p in entry.patterns)))
    found = _SIGNATURE_OBJECTS.get(key)
    if found is None:
        objects: set[str] = set()
        for p in entry.patterns:
            try:
                if p.window == 1 and compile_re2(p.regex).search(entry.signature):
                    objects |= pattern_objects(p.regex)
            except PatternError:
                continue
        if len(_SIGNATURE_OBJECTS) >= SIGNATURE_OBJECTS_HELD:
            _SIGNATURE_OBJECTS.clear()
        found = _SIGNATURE_OBJECTS[key] = frozenset(objects)
    return found
