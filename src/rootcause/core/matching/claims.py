"""Checks that keep a claim from resting on a cut or sibling line: whether a family's hit is a specific entry's
message cut inside its member (``CUDA error: an ille``), whether a hit reads a quoted name the paste cuts
(``No module named 'nemo``), and what an entry's message is about (the named object a sibling message would lack)."""

from __future__ import annotations

import re
import weakref
from typing import TYPE_CHECKING

from rootcause.core.matching.backends import pattern_objects
from rootcause.core.matching.patterns import compile_re2
from rootcause.core.matching.shapes import message_shape
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
    line = hit.clean.rstrip()
    end = line.rstrip("\"'`.:,;)]}…").rstrip()
    last = max((v for v in hit.params.values() if v and end.endswith(v)), key=len, default="")
    if not last:
        return False
    tail = end[-(len(last) + CUT_LEAD) :]
    closing, opening = line[len(end) : len(end) + 1], end[-len(last) - 1 : -len(last)]
    if closing and closing in "\"'`" and closing == opening:
        tail += closing  # the name's own quote closes it: whole (``No module named 'torchvision'``), not cut
    return runs_on_in_specific_text(tail.lower(), index)


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


# a quoted name that runs to the end of the line with its quote never closed: ``'nemo``, ``"torch.dist``
_UNCLOSED_NAME = re.compile(r"""(?<!\w)(['"])[\w.\-/]+$""")  # a quote after a letter is an apostrophe (jit'd)


def cut_quoted_name(line: str) -> int | None:
    """Where the quoted name that a cut line ends in starts (its opening quote), or None when the line does not
    end inside its first quote: ``No module named 'nemo`` may be ``'nemo'`` or ``'nemo_text_processing'``. Only
    the line's first quoted name counts, the member its message is about: in ``cannot import name 'X' from 'peft.m``
    the member is whole and the cut name only says where it was looked for."""
    end = line.rstrip()
    found = _UNCLOSED_NAME.search(end)
    if found is None or end.count(found.group(1)) != 1:
        return None
    return found.start()


def reads_a_cut_name(hit: Hit, index: CompiledIndex) -> bool:
    """Whether a full one-line pattern's hit on the last line of a paste with no final line break reads into a
    quoted name that the cut leaves open (its closing quote optional): the name it took whole (a package, a module)
    is then only a prefix of the real one (``No module named 'torch`` of ``'torchvision'``)."""
    pattern = index.patterns[hit.pattern]
    if pattern.truncated or pattern.window != 1:
        return False  # a cut form reads the cut inside its own literal name (``'use_auth_t``): cut_owners judges it
    at = cut_quoted_name(hit.clean)
    name = "" if at is None else hit.clean.rstrip()[at + 1 :]
    if not name or "." in name:
        return False  # cut past a package's name (``'torch.profil``): the package is whole, its entries still hold
    # only a name the pattern lists whole (``torch``, ``nemo``) is in doubt; a parameter's value (``['--t``) is not
    return re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", pattern.regex) is not None


CUT_MIN = 16  # characters of a cut message that another entry's message must hold for the cut to name neither


def cut_owners(cut: str, index: CompiledIndex) -> set[str]:
    """The specific and generic entries whose own message (a line of their signature or examples that their own
    pattern matches) holds this cut message as it is, or else parameters aside: the entries it may be cut from
    (``DataLoader worker (pid 1) is killed by sig`` is the segfault's and the OOM kill's)."""
    text, shape = message_shape(cut)
    if len(shape) < CUT_MIN:
        return set()
    lines = index.message_lines()
    return {e for e, own, _ in lines if text in own} or {e for e, _, own_shape in lines if shape in own_shape}


def cut_message(hit: Hit, index: CompiledIndex) -> str:
    """The cut line from where the hit's pattern starts to match it (framing and the user's words before it off)."""
    found = compile_re2(index.patterns[hit.pattern].regex).search(hit.clean)
    return hit.clean if found is None else hit.clean[found.start() :]


def names_none_when_cut(hit: Hit, entry: Entry, index: CompiledIndex) -> bool:
    """Whether a hit on the last line of a paste with no final line break rests on the cut: a family's parameter
    cut inside a specific entry's message, a quoted name the cut leaves open, or a cut form whose words run on in
    another entry's own message as well (a family is no rival of its members: docs/ranking.md)."""
    if entry.family and cut_member(hit, index):
        return True
    if reads_a_cut_name(hit, index):
        return True
    if not index.patterns[hit.pattern].truncated or entry.family:
        return False
    return bool(cut_owners(cut_message(hit, index), index) - {entry.id})


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


_OWN_SHAPES: weakref.WeakKeyDictionary[CompiledIndex, dict[str, frozenset[str]]] = weakref.WeakKeyDictionary()


def own_template_other_values(clean: str, entry_id: str, index: CompiledIndex) -> bool:
    """Whether a line no pattern of the entry matched is one of the entry's own messages with other quoted or
    bracketed values (``'NoneType' object has no attribute 'DataParallel'`` beside the DataParallel entry's
    ``'DataParallel' object has no attribute 'encode'``): the template is the entry's, and its patterns turned those
    values down, so the line is another object's message, which the lexical stage must not claim."""
    shapes = _OWN_SHAPES.get(index)
    if shapes is None:
        by_entry: dict[str, set[str]] = {}
        for owner, text, blanked in index.message_lines():
            if blanked != text:  # a message with values to turn down
                by_entry.setdefault(owner, set()).add(blanked)
        shapes = _OWN_SHAPES[index] = {owner: frozenset(found) for owner, found in by_entry.items()}
    own = shapes.get(entry_id)
    if not own:
        return False
    text, blanked = message_shape(clean)
    return blanked != text and blanked in own
