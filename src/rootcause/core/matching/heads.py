"""A message's stable head matches on its own: a paste cut after its first words is still that message.

Users paste the first line of an error and stop, an issue title holds only its first sentence, and a log line
is cut at a terminal's edge: ``failed (exitcode: 1) local_rank: 0 (pid: 840146)`` is the whole paste, while the
entry's pattern goes on with `` of binary:``. For every single-line pattern, the *truncated* form matches when
the line ends anywhere after the pattern's stable head (the first ``MIN_HEAD`` literal characters and
``MIN_WORDS`` words, taken atom by atom, grown until no other entry's pattern holds it), even mid-word: every
atom after the head is in effect optional. A head holds ``MIN_AFTER_PARAM`` literal characters after its last
parameter (``Load model from X failed:`` is any load failure), and a head of common words runs through the name
the message is about when one follows closely (``No such file or directory: 'cmake'``: cut before it, any file).
A truncated form that two entries share names neither, and is dropped; so is a line that two entries' forms match
(a family entry is no rival of its members, and its head does not grow past their words). Truncated forms are
tried on small inputs (pastes) only, after the scan (``SourceScanner.finish``): logs are not cut.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from rootcause.core.matching.skeletons import Skeletons, held_elsewhere
from rootcause.core.model import Entry

MIN_HEAD = 20
MIN_WORDS = 3
# a head spans two runs of text at least: one identifier (``CUBLAS_STATUS_ALLOC_FAILED``, an error code every caller of
# the library prints in its own message) says which status, not whose message it is
MIN_TOKENS = 2
MIN_AFTER_PARAM = 10  # literal characters a head holds after its last parameter: the words that tell messages apart
MAX_OBJECT_GAP = 16  # how far after a head the name of what the message is about may start and still join it
MAX_HEAD_PARAMS = 2  # parameters (classes, groups) before the head is long enough: more, and it is not stable
MAX_EXCEPTION_NAME = 80  # the longest dotted exception name looked for at a pattern's start
MAX_TAIL_ATOMS = 400  # RE2 nests at most 1000 groups; a cut later than this is not tried
ATOMS_KNOWN = 1 << 16  # distinct atoms whose literal text is kept (bounded: a canon's atoms are mostly its letters)
_QUANTIFIER_START = set("*+?{")
# Where a cut line may end: after any atom of the pattern, then punctuation, an ellipsis or a closing quote. A
# parameter is never cut: it is often what tells entries apart, and a partial one could be any of them.
_CUT_END = r"(?:[.:,;]|\.\.\.|…)?[\"'`]?\s*$"
_PUNCT_LITERALS = set(".()[]{}*+?|\\/'\"-:,= _<>!@#%&~`;")


def atoms(regex: str) -> list[str] | None:
    """The regex as a list of top-level atoms (a character, an escape, a class or a group, each with its
    quantifier); None when it has a top-level alternation, which cannot be cut atom by atom."""
    found = _atoms(regex)
    return None if found is None else list(found)


@lru_cache(maxsize=4096)
def _atoms(regex: str) -> tuple[str, ...] | None:
    out: list[str] = []
    i, n = 0, len(regex)
    while i < n:
        ch = regex[i]
        if ch == "|":
            return None
        if ch == "\\":
            j = i + 2
        elif ch == "[":
            j = i + 1
            if regex[j : j + 1] == "^":
                j += 1
            if regex[j : j + 1] == "]":
                j += 1
            while j < n and regex[j] != "]":
                j += 2 if regex[j] == "\\" else 1
            j += 1
        elif ch == "(":
            depth, j = 1, i + 1
            while j < n and depth:
                c = regex[j]
                if c == "\\":
                    j += 2
                    continue
                if c == "[":
                    j += 1
                    while j < n and regex[j] != "]":
                        j += 2 if regex[j] == "\\" else 1
                depth += {"(": 1, ")": -1}.get(c, 0)
                j += 1
        else:
            j = i + 1
        if j < n and regex[j] in _QUANTIFIER_START:  # the quantifier belongs to this atom
            j = regex.find("}", j) + 1 if regex[j] == "{" else j + 1
            if j < n and regex[j] == "?":
                j += 1
        out.append(regex[i:j])
        i = j
    return tuple(out)


@lru_cache(maxsize=ATOMS_KNOWN)
def literal_char(atom: str) -> str:
    """The fixed character an atom demands, or '' (a class, a group, anything quantified). Kept per atom: deriving
    a large canon's cut forms asks it of the same few hundred atoms some millions of times."""
    if len(atom) == 1 and atom not in "^$.":
        return atom
    if len(atom) == 2 and atom[0] == "\\" and atom[1] in _PUNCT_LITERALS:
        return atom[1]
    return ""


def _is_space(atom: str) -> bool:
    return atom.startswith((" ", "\\s"))


@lru_cache(maxsize=ATOMS_KNOWN)
def _text(atom: str) -> str:
    """The text an atom stands for when it is literal, or a group of literals (``(?:cuDNN error: )?``) or a one-letter
    case class (``[Ee]``); '' otherwise."""
    lit = literal_char(atom)
    if lit:
        return lit
    if len(atom) == 4 and atom[0] == "[" and atom[3] == "]" and atom[1].lower() == atom[2].lower():
        return atom[1]
    if atom.startswith("(?:") and atom.endswith((")", ")?")):
        inner = atoms(atom[3 : atom.rindex(")")])
        if inner and all(_text(a) for a in inner):
            return "".join(_text(a) for a in inner)
    return ""


def skeleton(regex: str) -> str:
    """A pattern's literal text, lower-cased, a NUL for each parameter: what a line it matches must hold."""
    return "".join(_text(a) or "\0" for a in atoms(regex) or [regex]).lower()


Shared = Callable[[str], bool]  # whether another entry's pattern holds this head (its skeleton)


def truncated(regex: str, shared: Shared | None = None) -> str | None:
    """The pattern cut after its stable head (``cut_form``), or None."""
    found = cut_form(regex, shared)
    return None if found is None else found[1]


def cut_form(regex: str, shared: Shared | None = None) -> tuple[str, str] | None:
    """(The stable head, as a regex; the pattern with everything after its stable head optional, atom by atom,
    matching only when the line ends there), or None when the pattern has no head long enough to name the error
    alone. Every match of the cut pattern starts with a match of its head, so the head's literals stand for it
    (core/matching/cut_prefilter.py).

    A title is cut at GitHub's 200 characters and a terminal line at its edge, mid-word as often as not: the cut may
    fall after any character of the pattern's literal text once the head is there (``no kernel image is availa``),
    or inside a group of literal alternatives. The head is message text: an exception's name before it
    (``ModuleNotFoundError: ``) does not count, and a quoted name in it is whole (``No module named 'tri`` could
    be any module). A parameter (a class, a group) is taken whole or not at all, and a
    named capture soon after the head (at most one parameter between) that lists the names an entry is scoped to
    (``(?P<package>transformers|peft|...)``) belongs to the head: a line cut before it could be any package's.
    ``shared(head)`` says whether another entry's pattern holds the head's skeleton (``DataLoader worker (pid N) is
    killed`` starts two entries): the head then grows, atom by atom, until it is this entry's alone. Two entries
    whose cut forms both match one line name neither (``SourceScanner``)."""
    parts = atoms(regex.removesuffix("$") if not regex.endswith("\\$") else regex)
    if not parts:
        return None
    skip = _exception_name_length(parts)
    head_end, chars, params, words, in_word, since_param = None, 0, 0, 0, False, 0
    tokens, in_token = 0, False  # runs of text between spaces: CUBLAS_STATUS_ALLOC_FAILED is one
    for k, atom in enumerate(parts):
        if k < skip:
            continue
        lit = literal_char(atom)
        if not lit:
            params, in_word, since_param = params + 1, False, 0
            tokens, in_token = tokens + (not in_token), True
            if params > MAX_HEAD_PARAMS:
                return None
            continue
        chars += 1
        since_param = since_param + 1 if params else 0
        inside = not lit.isspace() and lit != "_"  # CUDNN_STATUS_INTERNAL_ERROR is four words
        words += inside and not in_word
        in_word = inside
        tokens += not lit.isspace() and not in_token
        in_token = not lit.isspace()
        if (
            chars >= MIN_HEAD
            and words >= MIN_WORDS
            and tokens >= MIN_TOKENS
            and (not params or since_param >= MIN_AFTER_PARAM)
        ):
            head_end = k + 1
            break
    if head_end is None:
        return None
    head_end = _with_its_object(parts, skip, head_end)
    if _names_nothing_but_os_words(parts[skip:head_end]):
        return None  # ``No such file or directory`` cut before its object: any program's missing file
    quotes = sum(literal_char(a) in "'`" for a in parts[skip:head_end] if literal_char(a))
    if quotes % 2:  # inside a quoted name: its end
        close = next((k for k in range(head_end, len(parts)) if literal_char(parts[k]) in ("'", "`")), None)
        if close is not None and all(literal_char(a) for a in parts[head_end:close]):
            head_end = close + 1
    between = 0
    for k in range(head_end, len(parts)):  # a scope after the head, and at most one parameter before it
        if parts[k].startswith("(?P<") and "|" in parts[k]:
            head_end = k + 1
            break
        between += not literal_char(parts[k])
        if between > 1:
            break
    if shared is not None:
        text = "".join(_text(a) or "\0" for a in parts[skip:head_end])
        while head_end < len(parts) and shared(text.lower()):
            text += _text(parts[head_end]) or "\0"
            head_end += 1
    tail = parts[head_end : head_end + MAX_TAIL_ATOMS]
    if not tail:
        return None  # nothing to cut: the pattern itself already says it, or all of it is another entry's too
    cut = ""
    for atom in reversed(tail):
        within = _cut_within(atom)
        cut = f"(?:{atom}{cut}|{within})?" if within else f"(?:{atom}{cut})?"
    head = "".join(parts[:head_end])
    return head, head + cut + _CUT_END


# The C library's messages for an errno (strerror), which every program prints: a head made of one of them names no
# error of the ML stack until the name of what it is about (a quoted path, a library) joins it.
OS_ERROR_PHRASES = (
    "no such file or directory",
    "permission denied",
    "connection refused",
    "connection reset by peer",
    "connection timed out",
    "address already in use",
    "no space left on device",
    "cannot allocate memory",
    "too many open files",
    "resource temporarily unavailable",
    "operation not permitted",
    "input/output error",
    "broken pipe",
    "no route to host",
    "network is unreachable",
    "device or resource busy",
)


def _names_nothing_but_os_words(head_atoms: list[str]) -> bool:
    """Whether a head's literal text is an errno message (or a cut of one), with nothing that names an object."""
    head = "".join(literal_char(a) for a in head_atoms)
    if _NAMED_OBJECT.search(head):
        return False
    words = head.strip(" :'\"`").lower()
    return any(phrase.startswith(words) or words.startswith(phrase) for phrase in OS_ERROR_PHRASES)


_NAMED_OBJECT = re.compile(r"['`][^'`]+['`]|\w+[._/]\w[\w./]*")


def _with_its_object(parts: list[str], skip: int, head_end: int) -> int:
    """The head, run through the name of what the message is about when the head names nothing yet.

    ``No such file or directory: 'cmake'`` cut before ``'cmake'`` is any missing file, ``Failed to load library
    libonnxruntime_providers_cuda.so`` cut before the library any library: when the head's literal text holds no
    quoted name and no dotted or underscored identifier, and one starts within ``MAX_OBJECT_GAP`` literal characters
    after it, with only literal text between, the head ends after it."""
    head = "".join(literal_char(a) for a in parts[skip:head_end])
    if _NAMED_OBJECT.search(head):
        return head_end
    text, ends = head, []
    for k in range(head_end, len(parts)):
        lit = literal_char(parts[k])
        if not lit:
            break
        text += lit
        ends.append(k + 1)
    for found in _NAMED_OBJECT.finditer(text, len(head)):
        if found.start() - len(head) > MAX_OBJECT_GAP:
            break
        if found.start() < len(head):
            continue
        return ends[found.end() - len(head) - 1]
    return head_end


_EXCEPTION_NAME = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt)\w*: ")


def _exception_name_length(parts: list[str]) -> int:
    """How many leading atoms spell an exception's name (``ModuleNotFoundError: ``): boilerplate that many entries
    share, never part of a stable head (``ModuleNotFoundError: No m`` names no module)."""
    literal = ""
    for atom in parts[:MAX_EXCEPTION_NAME]:
        lit = literal_char(atom)
        if not lit:
            break
        literal += lit
    found = _EXCEPTION_NAME.match(literal)
    return found.end() if found else 0


def top_level_alternatives(inner: str) -> list[str]:
    """A group's body split at its top-level ``|``."""
    out, depth, start, i, in_class = [], 0, 0, 0, False
    while i < len(inner):
        ch = inner[i]
        if ch == "\\":
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
        elif ch == "|" and depth == 0:
            out.append(inner[start:i])
            start = i + 1
        i += 1
    return [*out, inner[start:]]


@lru_cache(maxsize=ATOMS_KNOWN)
def _cut_within(atom: str) -> str:
    """A group of literal alternatives (``(?:HeaderTooLarge|header too large)``) cut inside one of them: each
    alternative's proper prefixes; '' for any other atom (a class or a quantified parameter is never cut)."""
    if not atom.startswith("(") or not atom.endswith((")", ")?")) or (atom.startswith("(?P<") and "|" not in atom):
        return ""
    body = atom[: atom.rindex(")")]
    body = body[body.index(">") + 1 :] if body.startswith("(?P<") else body.removeprefix("(?:")
    if body.startswith("("):
        return ""
    chains: list[str] = []
    for alternative in top_level_alternatives(body):
        letters = atoms(alternative)
        if not letters or len(letters) < 2 or not all(_text(a) for a in letters):
            return ""
        chains.append(letters[0] + "".join(f"(?:{a}" for a in letters[1:-1]) + ")?" * (len(letters) - 2))
    return f"(?:{'|'.join(chains)})"


# An escape that stands for more than its own next character (\\x41, \\Q...\\E, \\123, \\pL) or a case-folding flag: the
# pattern gives no required literal that a byte-wise scan could use.
_NO_LITERAL = re.compile(r"\\[xQ0-9cuUoNEzCpP]|\(\?[a-zA-Z-]*i")


def required_literal(regex: str) -> str:
    """The longest run of literal characters outside any group that every match of a pattern holds ('' when the
    pattern gives none: a top-level alternation, a case-folding flag, an escape of more than one character).

    Every line a one-line pattern matches holds it, so a large canon's prefilter may look for it instead of the
    pattern (core/matching/index.py): a literal costs hyperscan's compiler little, a pattern a millisecond."""
    if _NO_LITERAL.search(regex):
        return ""
    parts = atoms(regex)
    return "" if parts is None else longest_literal_run(parts)


def longest_literal_run(parts: list[str]) -> str:
    """The longest run of atoms that each demand one fixed character, as text."""
    best, run = "", ""
    for atom in parts:
        lit = literal_char(atom)
        if lit:
            run += lit
            continue
        if len(run) > len(best):
            best = run
        run = ""
    return run if len(run) > len(best) else best


TAIL_LITERAL_MIN = 6  # literal characters a multi-line pattern's last lines must demand to stand for it in the scan
_FLAG_ATOM = re.compile(r"\(\?[a-zA-Z-]+\)")


def scan_tail(regex: str) -> str:
    """What the raw-text scan looks for of a multi-line pattern: its lines after its last top-level newline whose
    literal (``required_literal``) is at least TAIL_LITERAL_MIN characters, or the whole pattern when none is.

    Every match of the pattern ends with a match of that tail, at the same offset, so a scan for the tail halts on
    every line where the pattern may end (and a few more, which RE2 then rejects). Hyperscan scans a tail several
    times faster than the whole: a pattern that starts on any line naming ``python`` and spans a dozen lines keeps
    many partial matches alive across the input. Flags set before the cut (``(?i)``) are kept in front."""
    parts = atoms(regex)
    if parts is None:
        return regex
    cuts = [i + 1 for i, atom in enumerate(parts) if atom == "\\n"]
    for cut in reversed(cuts):
        tail = "".join(parts[cut:])
        if len(required_literal(tail)) >= TAIL_LITERAL_MIN:
            return "".join(a for a in parts[:cut] if _FLAG_ATOM.fullmatch(a)) + tail
    return regex


def derive_heads(entries: list[Entry]) -> list[tuple[str, str, bool, str, str]]:
    """(entry id, truncated pattern, whether it is a consequence pattern, its stable head, the pattern it is cut from)
    for every single-line pattern that has one, unless another entry derives the same."""
    skeletons = Skeletons([(e.id, skeleton(p.regex)) for e in entries if not e.catch_all for p in e.patterns])
    owners: dict[str, set[tuple[str, bool]]] = {}
    heads: dict[str, str] = {}
    cut_from: dict[str, str] = {}
    for entry in entries:
        if entry.catch_all:
            continue
        # a family's head does not grow past its members' words: cut before them, the line is still the family's
        shared = None if entry.family else held_elsewhere(skeletons, entry.id)  # one joined text per entry: cheap
        for p in entry.patterns:
            found = cut_form(p.regex, shared) if p.window == 1 else None
            if found is not None:
                heads[found[1]] = found[0]
                cut_from[found[1]] = p.regex
                owners.setdefault(found[1], set()).add((entry.id, p.consequence))
    unique = [(cut, next(iter(found))) for cut, found in sorted(owners.items()) if len({e for e, _ in found}) == 1]
    return [(entry_id, cut, consequence, heads[cut], cut_from[cut]) for cut, (entry_id, consequence) in unique]
