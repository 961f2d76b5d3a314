"""A paste cut inside a template's text: how much of the template a line holds when the template's pattern could not
match the line to its end (core/atlas/locate.py asks, for a match that stops before the line does)."""

from __future__ import annotations

from rootcause.core.atlas.generic import PLACEHOLDER, only_builtin_wording

MAX_PARAM = 200  # characters kept of a captured parameter (and the most a placeholder takes of a line here)
_QUOTES = "\"'`"
MAX_STEPS = 1000  # pieces and placeholder ends `continues` tries per line and template (bounds its work)


def continues(text: str, message: str) -> int | None:
    """Literal characters of the template's `message` that `text` (a line from where the template's pattern
    matched) holds, when the line is the template's text to the end (a trailing blank of the template, or a
    closing quote of the line, aside), or the template's text cut short inside a literal run; else None.

    The pattern's optional tail takes each placeholder with the whole literal after it, so a paste cut inside
    that literal (`... compile PyTorch (11.7).` for `... PyTorch ({1}). Most likely this shouldn't be a
    problem.`) or a template that ends with a blank the line lacks is not matched to its end by the pattern.
    A cut counts only where it is visible: the line went past a placeholder of the template, or it ends inside
    a word. A line that ends at a sentence's end before the template's does, with no placeholder on the way,
    may be another, shorter message (`CUDA out of memory.`), and is not taken for this one."""
    pieces = _pieces(message)
    while pieces and pieces[0] is None:
        pieces.pop(0)  # the pattern drops leading placeholders: the line is read from the first literal
    if pieces and pieces[-1] is not None:
        pieces[-1] = pieces[-1].rstrip()
    text = text.rstrip()
    steps = [0]
    for line in dict.fromkeys((text, text.rstrip(_QUOTES).rstrip())):
        held = _walk(line, pieces, 0, 0, "", False, steps)
        if held is not None:
            # the template's text the line holds must say more than Python's own wording: `No such file or
            # directory: '{path}'. Expected to load a Dataset ...` cut after the path is CPython's message
            return None if only_builtin_wording(held.replace("\0", " ")) else len(held) - held.count("\0")
    return None


def _pieces(message: str) -> list[str | None]:
    """The message as literal runs and placeholders (None)."""
    out: list[str | None] = []
    at = 0
    for m in PLACEHOLDER.finditer(message):
        if m.start() > at:
            out.append(message[at : m.start()])
        out.append(None)
        at = m.end()
    if at < len(message):
        out.append(message[at:])
    return out


def _walk(
    text: str, pieces: list[str | None], i: int, pos: int, got: str, past_placeholder: bool, steps: list[int]
) -> str | None:
    """The template's literal text that `text[pos:]` holds from piece `i` on (a NUL for each placeholder), or None."""
    steps[0] += 1
    if steps[0] > MAX_STEPS:
        return None
    if i == len(pieces):
        return got if pos == len(text) else None  # the template's end is the line's end
    piece = pieces[i]
    if piece is not None:
        if text.startswith(piece, pos):
            return _walk(text, pieces, i + 1, pos + len(piece), got + piece, past_placeholder, steps)
        rest = text[pos:] if len(text) - pos < len(piece) else ""  # copied only when it could be a cut of the piece
        if _cut_of(rest, piece):  # the line ends inside this literal run: a cut paste
            mid_word = rest[-1:].isalnum() and piece[len(rest) : len(rest) + 1].isalnum()
            return got + rest if past_placeholder or mid_word else None
        return None
    if i + 1 == len(pieces):
        return got if len(text) - pos <= MAX_PARAM else None  # a last placeholder takes the rest of the line
    after = pieces[i + 1] or ""
    for end in range(pos, min(len(text), pos + MAX_PARAM) + 1):
        steps[0] += 1
        if steps[0] > MAX_STEPS:
            return None
        if text.startswith(after, end) or (len(text) - end < len(after) and _cut_of(text[end:], after)):
            found = _walk(text, pieces, i + 1, end, got + "\0", past_placeholder or end > pos, steps)
            if found is not None:
                return found
    return None


def _cut_of(tail: str, literal: str) -> bool:
    """The line's end `tail` is `literal` cut short (not blank)."""
    return bool(tail.strip()) and literal.startswith(tail)
