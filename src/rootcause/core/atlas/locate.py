"""The located tier: which released line of the stack printed a line that no known error claims.

An `AtlasIndex` holds every template of the atlas, packed. A line is first filtered by the templates'
literal runs (one hyperscan database in literal mode; without hyperscan, a dictionary of each literal's
rarest word), and each candidate is confirmed by its own RE2 pattern, compiled on first use. Work is
bounded: at most `MAX_LINES` lines are examined, `MAX_CANDIDATES` templates are confirmed per line, and
`MAX_LOCATED` items are reported.

Nothing from outside the stack may be located. A template takes part only when its literal is long enough
to be specific (`MIN_LITERAL`), it says more than a Python built-in message (core/atlas/generic.py), and it
is not logged at INFO or DEBUG. A template's pattern has a required head and an optional tail (so that a cut
paste matches), so a match counts only when it holds the template's whole text, or when the line ends where
the match does (the paste was cut there): a line that goes on with other words after a template's head is
another message. The match must also hold enough literal text of the line (`_enough_literal`), and an
exception class the line names must be the template's own.
"""

from __future__ import annotations

import json
import re
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import re2

from rootcause.core.atlas.cut import MAX_PARAM, continues
from rootcause.core.atlas.families import first_checks
from rootcause.core.atlas.generic import PLACEHOLDER, only_builtin_wording
from rootcause.core.atlas.located import Located
from rootcause.core.atlas.versions import has_it

if TYPE_CHECKING:
    from rootcause.core.atlas.model import Template

try:  # hyperscan ships x86-64 wheels only
    import hyperscan
except ImportError:  # pragma: no cover - exercised on other architectures
    hyperscan = None  # type: ignore[assignment]

LAYOUT = "atlas-index 8"  # bump when the payload below (or which templates take part) changes
MIN_LITERAL = 12  # a template whose longest literal run is shorter names nothing specific
MIN_MATCHED = 24  # literal characters a match must hold, unless they make most of the line's message
MIN_SHARE = 0.6  # ... the share of the message (the line after its exception class) that is enough then
WHOLE_SLACK = 3  # a match holding all but this many characters of a template's own text holds all of it
_TRAILING = " \t'\"`.,;:!?)]}>"  # what may follow a match that the line ends with
MAX_LINES = 200  # lines examined per diagnosis
MAX_LINE_CHARS = 2000  # of each line
MAX_CANDIDATES = 32  # templates confirmed per line
MAX_LITERAL_HITS = 256  # literals the prefilter reports per line
MAX_LOCATED = 20  # items reported per diagnosis
# the stack, lowest layer first: of two packages that print the same string, the lower one most likely printed it
_STACK = (
    "nccl torch triton torchvision torchaudio safetensors huggingface-hub datasets transformers accelerate peft trl"
)
_STACK += " bitsandbytes deepspeed flash-attn xformers vllm lightning pytorch-lightning onnx onnxruntime"
STACK_ORDER = {name: n for n, name in enumerate(_STACK.split())}
QUIET_LEVELS = frozenset({"info", "debug", "trace"})  # a template logged at these levels says nothing went wrong
MAX_COMPILED = 4096  # confirmed patterns held compiled
SHARD = 20_000  # literals per hyperscan database (compiling 110k literals at once took 324 s, 40k 14 s)
MAX_SHARED = 8  # templates sharing one literal before they are keyed by a rarer run of their message

# (package, module, function, line, exception, kind, message, pattern, literal, first, last, intervals, source_url)
Row = tuple[str, str, str, int, str, str, str, str, str, str, str, tuple[tuple[str, str], ...], str]

_EXCEPTION_HEAD = re.compile(r"^(?:[A-Za-z_][\w]*\.)*([A-Za-z_]\w*(?:Error|Exception|Warning|Exit|Interrupt))\s*:")
_ALIASES = {"EnvironmentError": "OSError", "IOError": "OSError", "WindowsError": "OSError"}


def named_exception(text: str) -> tuple[str | None, int]:
    """The exception class a line starts with, without its module and as its alias's class (``IOError`` is
    ``OSError``), and where its head ends; (None, 0) when the line names none."""
    head = _EXCEPTION_HEAD.match(text)
    if head is None:
        return None, 0
    return _ALIASES.get(head.group(1), head.group(1)), head.end()


def raises_another_class(kind: str, exception: str, named: str | None) -> bool:
    """Whether a template raises its text as another class than the one a line or wording names (torch raised
    ``Default process group has not been initialized`` as a RuntimeError up to 2.1, a ValueError from 2.2)."""
    if named is None or kind != "raise":
        return False
    own = exception.rsplit(".", 1)[-1]
    return _ALIASES.get(own, own) != named


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")


def _row(t: Template) -> Row:
    intervals = tuple((r.first, r.last) for r in t.releases)
    first, last = (intervals[0][0], intervals[-1][1]) if intervals else ("", "")
    return (
        t.package,
        t.module,
        t.function,
        t.line,
        t.exception,
        t.kind.value,
        t.message,
        t.pattern,
        t.literal,
        first,
        last,
        intervals,
        t.source_url,
    )


@dataclass(frozen=True, slots=True)
class _Match:
    template: int
    matched: int  # literal characters of the line the match holds
    params: dict[str, str]


class AtlasIndex:
    """Every template, and a literal prefilter over those specific enough to take part.

    Stored packed, so that a cached index loads in milliseconds whatever the atlas's size: the rows as one
    blob of JSON arrays (a row is decoded when a line needs it), the literals as one blob (split only without
    hyperscan), the literal -> templates map as flat arrays. The blobs may be any bytes-like object (the
    adapters map them from the cache's files).
    """

    def __init__(self, packed: dict[str, Any]):
        self._blob: bytes = packed["rows"]
        self._row_start: array[int] = packed["row_start"]
        self._lit_len: array[int] = packed["lit_len"]
        self._mem_start: array[int] = packed["mem_start"]
        self._mem_ids: array[int] = packed["mem_ids"]
        self._joined: bytes = packed["literals"]  # utf-8, NUL between literals (a bytes-like object)
        self._literals: list[str] | None = None
        self._decoded: dict[int, Row] = {}
        self.hs_db: list[tuple[Any, Any, int]] | None = None  # (database, its scratch, first literal) per shard
        self._words: dict[str, list[int]] = {}
        if hyperscan is not None and len(self._lit_len):
            blobs = packed.get("hs")
            if blobs:
                dbs = [hyperscan.loadb(blob, hyperscan.HS_MODE_BLOCK) for blob in blobs]
            else:  # compiled in shards: hyperscan's compile time grows faster than the number of literals
                lits = self.literals
                dbs = [_compile(lits[k : k + SHARD]) for k in range(0, len(lits), SHARD)]
            self.hs_db = [(db, hyperscan.Scratch(db), k * SHARD) for k, db in enumerate(dbs)]
        else:
            self._words = _word_index(self.literals)
        self._compiled: dict[str, Any] = {}

    @classmethod
    def from_templates(cls, templates: Iterable[Template]) -> AtlasIndex:
        blob = bytearray()
        row_start = array("Q", [0])
        eligible: list[tuple[int, str, str]] = []  # (template, its literal, its message)
        for n, t in enumerate(templates):
            row = _row(t)
            blob += json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            row_start.append(len(blob))
            if len(row[8]) >= MIN_LITERAL and row[4].lower() not in QUIET_LEVELS and not only_builtin_wording(row[6]):
                eligible.append((n, row[8], row[6]))
        by_literal = _keyed(eligible)
        mem_start, mem_ids = array("I", [0]), array("I")
        for ids in by_literal.values():
            mem_ids.extend(ids)
            mem_start.append(len(mem_ids))
        packed = {
            "rows": bytes(blob),
            "row_start": row_start,
            "lit_len": array("I", (len(lit) for lit in by_literal)),
            "mem_start": mem_start,
            "mem_ids": mem_ids,
            "literals": "\0".join(by_literal).encode("utf-8"),
        }
        return cls(packed)

    def payload(self) -> dict[str, Any]:
        """Plain data to cache (adapters pickle it): `AtlasIndex.from_payload` rebuilds the index from it."""
        return {
            "layout": LAYOUT,
            "rows": self._blob,
            "row_start": self._row_start,
            "lit_len": self._lit_len,
            "mem_start": self._mem_start,
            "mem_ids": self._mem_ids,
            "literals": self._joined,
            "hs": None if self.hs_db is None else [hyperscan.dumpb(db) for db, _, _ in self.hs_db],
        }

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> AtlasIndex:
        if payload.get("layout") != LAYOUT:
            raise ValueError("atlas index payload of another layout")
        return cls(payload)

    @property
    def literals(self) -> list[str]:
        """The distinct literals that take part (split from their packed form when first needed)."""
        if self._literals is None:
            self._literals = bytes(self._joined).decode("utf-8").split("\0") if len(self._joined) else []
        return self._literals

    def row(self, n: int) -> Row:
        row = self._decoded.get(n)
        if row is None:
            if len(self._decoded) >= MAX_COMPILED:
                self._decoded.clear()
            values = json.loads(self._blob[self._row_start[n] : self._row_start[n + 1]])
            values[11] = tuple(tuple(pair) for pair in values[11])
            row = self._decoded[n] = tuple(values)  # type: ignore[assignment]
        return row

    def __len__(self) -> int:
        return len(self._row_start) - 1

    # -- matching ---------------------------------------------------------------------------
    def _candidates(self, text: str, scratch: Any) -> list[int]:
        """Templates whose literal the line holds, the longest literals first, at most MAX_CANDIDATES."""
        hits: list[int] = []
        if self.hs_db is not None:
            data = text.encode("utf-8", "replace")
            scratches = scratch if scratch is not None else self._scratches()
            for (db, _, offset), own in zip(self.hs_db, scratches, strict=True):

                def on_match(
                    lit: int, _from: int, _to: int, _flags: int, _ctx: object, at: int = offset
                ) -> bool | None:
                    hits.append(at + lit)
                    return True if len(hits) >= MAX_LITERAL_HITS else None  # True stops the scan

                db.scan(data, match_event_handler=on_match, scratch=own)
                if len(hits) >= MAX_LITERAL_HITS:
                    break
        else:
            for word in dict.fromkeys(_WORD.findall(text)):
                hits += [lit for lit in self._words.get(word, ()) if self.literals[lit] in text]
                if len(hits) >= MAX_LITERAL_HITS:
                    break
        found: list[int] = []
        for lit in sorted(set(hits), key=lambda n: -self._lit_len[n]):
            found += self._mem_ids[self._mem_start[lit] : self._mem_start[lit + 1]][: MAX_CANDIDATES - len(found)]
            if len(found) >= MAX_CANDIDATES:
                break
        return found

    def _scratches(self) -> list[Any]:
        """A scratch space per shard, this call's own (so that diagnoses may run in parallel)."""
        return [s.clone() for _, s, _ in self.hs_db or ()]

    def _regex(self, n: int) -> Any:
        pattern = self.row(n)[7]
        rx = self._compiled.get(pattern)  # by pattern: templates of one wording in several modules share it
        if rx is None:
            if len(self._compiled) >= MAX_COMPILED:
                self._compiled.clear()
            options = re2.Options()
            options.log_errors = False
            try:
                rx = re2.compile(pattern, options)
            except re2.error:
                rx = False  # a pattern RE2 refuses never matches
            self._compiled[pattern] = rx
        return rx

    def match_line(
        self,
        text: str,
        scratch: Any = None,
        installed: frozenset[str] = frozenset(),
        mentioned: frozenset[str] = frozenset(),
    ) -> tuple[int, dict[str, str], int] | None:
        """(template, params, further matching templates) for one cleaned line, or None. Of the templates that
        match, one whose module the line names (a warning's `.../transformers/optimization.py:391: FutureWarning:`
        header says which file printed it), then the one holding most literal text of the line; on a tie (a CUDA
        string linked into several libraries, a message copied from one package into another), one of an
        installed package, then one of a package whose files the input names (`mentioned`: the frames of its
        traceback), then the stack's order (`STACK_ORDER`), then the shortest."""
        text = text[:MAX_LINE_CHARS]
        named, head_end = named_exception(text)
        message = text[head_end:].strip()
        matches: list[_Match] = []
        for n in self._candidates(text, scratch):
            rx = self._regex(n)
            if not rx:
                continue
            m = rx.search(text)
            if m is None:
                continue
            if raises_another_class(self.row(n)[5], self.row(n)[4], named):
                continue  # the line names another exception class
            params = {k: v[:MAX_PARAM] for k, v in m.groupdict().items() if v}
            matched = (m.end() - m.start()) - sum(len(v) for v in m.groupdict().values() if v)
            whole = matched >= own_length(self.row(n)[6]) - WHOLE_SLACK  # the template's whole text is there
            cut = not text[m.end() :].strip(_TRAILING)  # or the line ends where the match does: a cut paste
            if not (whole or cut):  # the pattern's optional tail holds a literal whole: read the rest of the line
                further = continues(text[m.start() :], self.row(n)[6])
                if further is not None:
                    matched, cut = further, True
            if (whole or cut) and _enough_literal(matched, message):
                matches.append(_Match(n, matched, params))
        if not matches:
            return None

        slashed = text.replace("\\", "/")

        def rank(x: _Match) -> tuple[bool, int, bool, bool, int, int, int]:
            row = self.row(x.template)
            package = _normal_name(row[0])
            order = STACK_ORDER.get(package, len(STACK_ORDER))
            named_module = row[5] != "native" and (f"/{row[1]}:" in slashed or slashed.startswith(f"{row[1]}:"))
            return (
                named_module,
                x.matched,
                package in installed,
                package in mentioned,
                -order,
                -len(row[6]),
                -x.template,
            )

        best = max(matches, key=rank)
        return best.template, best.params, len(matches) - 1

    def locate(
        self,
        lines: Iterable[tuple[str, int, str, str]],
        env: dict[str, str] | None = None,
        mentioned: Iterable[str] = (),
    ) -> list[Located]:
        """Located items for (input name, line number, raw line, cleaned line), in input order, bounded.
        `mentioned`: import names of packages whose installed files the input names (a tie-break)."""
        scratch = None if self.hs_db is None else self._scratches()
        installed = frozenset(_normal_name(name) for name in (env or {}))
        named = frozenset(_normal_name(name) for name in mentioned)
        out: list[Located] = []
        by_template: dict[int, Located] = {}
        seen: set[str] = set()
        examined = 0
        for source, line_no, raw, clean in lines:
            if examined >= MAX_LINES or len(out) >= MAX_LOCATED:
                break
            if clean in seen:
                continue
            seen.add(clean)
            examined += 1
            found = self.match_line(clean, scratch, installed, named)
            if found is None:
                continue
            earlier = by_template.get(found[0])
            if earlier is not None:  # one item per template: its first line, and how many lines it printed
                earlier.count += 1
                continue
            item = by_template[found[0]] = self._located(found, source, line_no, raw, env or {})
            out.append(item)
        return out

    def _located(
        self, found: tuple[int, dict[str, str], int], source: str, line_no: int, raw: str, env: dict[str, str]
    ) -> Located:
        n, params, also = found
        package, module, function, module_line, exception, kind, message, _, _, first, last, intervals, url = self.row(
            n
        )
        installed = _installed(env, package)
        family, checks, checks_zh = first_checks(package, kind, exception, message)
        return Located(
            package=package,
            module=module,
            module_line=module_line,
            function=function,
            kind=kind,
            exception=exception,
            first=first,
            last=last,
            source_url=url,
            source=source,
            line=line_no,
            text=raw[:500],
            message=message[:500],
            params=params,
            installed=installed,
            installed_has_it=None if installed is None else has_it(intervals, installed),
            family=family,
            checks=checks,
            checks_zh=checks_zh,
            also=also,
        )


def _keyed(eligible: list[tuple[int, str, str]]) -> dict[str, list[int]]:
    """The prefilter's literal -> templates. A template's key is its builder's literal (the longest literal run
    of its pattern's required head), unless more than MAX_SHARED templates share that literal (libtorch's
    generated checks: 28,000 strings with the head `*current_device == options.device()`): such a template is
    keyed by the rarest literal run of its whole message instead, so that a line's candidates stay few."""
    counts = Counter(literal for _, literal, _ in eligible)
    runs_of = {n: _runs(message) for n, literal, message in eligible if counts[literal] > MAX_SHARED}
    run_counts = Counter(run for runs in runs_of.values() for run in runs)
    keyed: dict[str, list[int]] = {}
    for n, literal, _ in eligible:
        runs = runs_of.get(n)
        key = min(runs, key=lambda r: (run_counts[r], -len(r))) if runs else literal
        keyed.setdefault(key, []).append(n)
    return keyed


def _runs(message: str) -> list[str]:
    """The distinct literal runs of a message long enough to be a key."""
    runs = (run.strip() for run in PLACEHOLDER.split(message))
    return list(dict.fromkeys(run for run in runs if len(run) >= MIN_LITERAL))


def own_length(message: str) -> int:
    """Characters of a template's own text (its message without the placeholders)."""
    return len(PLACEHOLDER.sub("", message))


def _enough_literal(matched: int, message: str) -> bool:
    return matched >= MIN_MATCHED or (matched >= MIN_LITERAL and matched >= MIN_SHARE * len(message))


def _normal_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _installed(env: dict[str, str], package: str) -> str | None:
    want = _normal_name(package)
    for name, version in env.items():
        if _normal_name(name) == want:
            return version
    return None


def _compile(literals: Sequence[str]) -> Any:
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(
        expressions=[lit.encode("utf-8") for lit in literals],
        ids=list(range(len(literals))),
        elements=len(literals),
        flags=hyperscan.HS_FLAG_SINGLEMATCH,
        literal=True,
    )
    return db


def _word_index(literals: Sequence[str]) -> dict[str, list[int]]:
    """Without hyperscan: each literal under its rarest word (a literal with no word is left out)."""
    counts: dict[str, int] = {}
    words = [_whole_words(lit) for lit in literals]
    for ws in words:
        for w in ws:
            counts[w] = counts.get(w, 0) + 1
    index: dict[str, list[int]] = {}
    for n, ws in enumerate(words):
        if ws:
            index.setdefault(min(ws, key=lambda w: (counts[w], -len(w))), []).append(n)
    return index


def _whole_words(literal: str) -> list[str]:
    """The words of a literal that are whole in any line holding it (not cut at the literal's edges)."""
    found = list(_WORD.finditer(literal))
    whole = [
        m.group()
        for m in found
        if (m.start() > 0 or not literal[:1].isalnum()) and (m.end() < len(literal) or not literal[-1:].isalnum())
    ]
    return list(dict.fromkeys(whole))
