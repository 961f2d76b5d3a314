"""The shape of a message as a cut paste is compared with the canon's own messages (claims.cut_owners): kept
apart from claims.py so that the index, which builds the canon's shapes, does not import the claims."""

from __future__ import annotations

import re

_NUMBER = re.compile(r"\d{3,}")  # pids, sizes, line numbers; a short number (an exit code, an error code) stays
# a quote after a letter is an apostrophe (doesn't), not a value's
_QUOTED = re.compile(r"""(?<![a-z])'[^'\n]*'|"[^"\n]*"|`[^`\n]*`|\([^()\n]*\)|\[[^\[\]\n]*\]""")
_EXCEPTION_NAME = re.compile(r"^[\w.]*(?:error|exception|warning)\w*:\s*")


def message_shape(text: str) -> tuple[str, str]:
    """A message as a cut is compared: lower-cased with its long numbers 0, and the same with each quoted or bracketed
    value blanked to ``_`` as well, so that two messages of one template agree whatever names and sizes they print
    (``input type (_) and weight t``). A value the text ends inside (a cut) stays as it is in both."""
    text = _EXCEPTION_NAME.sub("", _NUMBER.sub("0", text.strip().lower()))
    return text, _QUOTED.sub(lambda m: m.group(0)[0] + "_" + m.group(0)[-1], text)
