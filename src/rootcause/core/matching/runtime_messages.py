"""CPython's own messages: a line that is one of them was printed by the interpreter, not by a library of the stack.

The lexical stage guesses an entry from shared words, and CPython's ``IndexError: list index out of range`` shares
all its words but one with torch's ``IndexError: index out of range in self``. A message of the interpreter's own is
never a library's message reworded, so the lexical stage does not claim it; a pattern still may (an entry about one
of them, such as pickle's ``Can't pickle local object``, names it exactly). The formats are read from a released
CPython's shared library by ``scripts/cpython_messages.py``.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import re2

from rootcause.core.matching.cpython_messages_data import FORMATS

_PLACEHOLDER = re.compile(r"%(?:\.\d+)?(?:z|l|ll)?[sdiuxcUARSV]")
# what a traceback puts before the message: the exception's type (``IndexError: ``, ``torch.OutOfMemoryError: ``)
_EXCEPTION_TYPE = re.compile(r"^\s*(?:[A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt|Iteration)\s*:\s*)?")


def fixed_messages() -> list[str]:
    """CPython's messages that take no value, as printed (``%%`` is a percent sign): a format with a placeholder
    carries names (``'%.200s' object has no attribute '%U'``), and what those name is the stack's (an entry may be
    about that attribute)."""
    return [f.replace("%%", "%") for f in FORMATS if _PLACEHOLDER.search(f.replace("%%", "")) is None]


@cache
def _fixed_messages() -> Any:
    """One RE2 alternation of the fixed messages, each literal."""
    options = re2.Options()
    options.max_mem = 16 << 20
    return re2.compile("(?:" + "|".join(re.escape(m) for m in fixed_messages()) + ")", options)


def is_cpython_fixed_message(line: str) -> bool:
    """Whether the line (cleaned) is, after its exception type, the whole of one of CPython's own messages that take
    no value (``list index out of range``, ``day of month out of range``)."""
    message = _EXCEPTION_TYPE.sub("", line, count=1).strip()
    return bool(message) and _fixed_messages().fullmatch(message) is not None
