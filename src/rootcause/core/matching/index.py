"""The compiled index: every pattern of the canon in one multi-pattern scanner.

- a noise skipper over raw text: one hyperscan database of loosened patterns (a
  literal-driven prefilter), or, where hyperscan is missing, none;
- an RE2 set per window size that says which patterns match a cleaned line;
- RE2 for each pattern, to confirm and extract the named groups;
- the lexical index for wording that no pattern covers.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import re2

from rootcause.core.matching.cut_prefilter import CutPrefilter
from rootcause.core.matching.heads import MIN_HEAD, TAIL_LITERAL_MIN, derive_heads
from rootcause.core.matching.lexical import LexicalIndex
from rootcause.core.matching.patterns import compile_re2, group_names, literal_length, prefilter_source
from rootcause.core.matching.prefilter_db import Scanned, build_prefilter, literal_holds
from rootcause.core.matching.re2_sets import SetCompileError, compiled_sets
from rootcause.core.matching.shapes import message_shape
from rootcause.core.model import Entry
from rootcause.core.triage.keywords import KEYWORDS as TRIAGE_KEYWORDS
from rootcause.core.versions import ENV_HINT_REGEX
from rootcause.errors import PatternError

try:  # hyperscan ships x86-64 wheels only
    import hyperscan
except ImportError:  # pragma: no cover - exercised on other architectures
    hyperscan = None  # type: ignore[assignment]

# the end of a wrapper's line after which the inner error's message, without its class, starts the next line
# (transformers' and diffusers' lazy modules: ``... because of the following error (look up to see its traceback):``)
INNER_ERROR_NEXT = "(look up to see its traceback):"
# Lines that look like an error, for the lexical stage (and the line after INNER_ERROR_NEXT, whatever it says), and
# the lines the notice and wrapper checks read (core/ordering.py): every process death that ordering's
# _PROCESS_DEATH names must look like an error here, or those checks never see it.
ERRORISH_REGEX = (
    r"(?:[a-z](?:Error|Exception)\b|\b(?:[Ee]rror|ERROR|FATAL|[Ff]atal)\b *[:\]]|NCCL WARN|Traceback|"
    r"timed out|[Tt]imeout|[Ff]ailed|FAILED|Killed|[Aa]bort|look up to see its traceback\):[ \t]*\r?\n[ \t]*\S|"
    r"[Ss]egmentation fault|[Bb]us error|[Ii]llegal (?:hardware )?instruction|[Ff]loating point exception|"
    r"double free or corruption|\b(?:free|malloc|realloc)\(\): |core dumped|interrupted by signal|\d +killed +\S)"
)
MAX_WINDOW = 50
# A canon with more scanned patterns than this (a grown atlas) gives the prefilter, for each one-line pattern with
# a required literal of at least LITERAL_MIN characters, that literal instead of the pattern: hyperscan compiles a
# literal in microseconds and a pattern in about a millisecond (100k entries: minutes). The literal finds every
# line the pattern matches, and a few more, which RE2 then rejects; the shipped canon stays under the threshold.
LITERAL_ABOVE = 4096
LITERAL_MIN = 8
SCRATCH_POOL = 64  # scratch spaces kept for reuse: as many as scans may run at once
# google-re2's core object (the wrapper's private `_regexp`, read since 1.1): confirm() asks it for byte spans directly.
# Where a release lacks it, confirm() takes the wrapper's public search() instead (same groups, slower).
_ANCHOR = getattr(re2, "_Anchor", None)
_UNANCHORED = None if _ANCHOR is None else _ANCHOR.UNANCHORED
_NO_SPAN = (-1, -1)  # RE2's span of a group that took no part in the match


def _set_options(n_patterns: int) -> re2.Options:
    """RE2's default memory budget fits a few hundred patterns; grow it with the canon."""
    options = re2.Options()
    options.max_mem = max(64 << 20, min(n_patterns * (64 << 10), 8 << 30))
    return options


@dataclass(frozen=True)
class CompiledPattern:
    entry_id: str
    regex: str
    window: int
    names: tuple[str, ...]
    specificity: int  # literal characters: breaks ties between entries matching one line
    consequence: bool = False  # a line the entry's failure causes later, not the failure itself
    truncated: bool = False  # derived: the pattern cut after its stable head (core/matching/heads.py)
    head: str = ""  # a truncated pattern's stable head (a regex): every match starts with one of it
    # the modules a traceback shown above the line must pass through for it to be claimed (core/matching/frames.py)
    raised_in: tuple[str, ...] = ()


DerivedPatterns = tuple[list[CompiledPattern], int]  # every pattern, and how many of them the scan looks for


class CompiledIndex:
    """Immutable after construction; shared by every diagnosis."""

    def __init__(
        self,
        entries: list[Entry] | Mapping[str, Entry],
        hs_blob: bytes | None = None,
        lexical: LexicalIndex | None = None,
        *,
        literal_above: int = LITERAL_ABOVE,
        derived: DerivedPatterns | None = None,
        lazy_regex: bool = False,
        specific_texts: str | None = None,
        message_lines: list[tuple[str, str, str]] | None = None,
        cut_prefilter: CutPrefilter | None = None,
    ) -> None:
        """``entries``: a list (withdrawn entries are left out), or the live entries by id already (a cache's,
        which may load each entry when first asked for). ``literal_above``: past this many scanned patterns, the
        prefilter takes one-line patterns' literals (LITERAL_ABOVE), and each pattern's RE2 is compiled when first
        needed (an Entry's validator compiled it once already). ``derived``: the patterns as ``derived_patterns()``
        gave them for the same entries (a cache), so that they are not derived again. ``lazy_regex``: compile each
        pattern's RE2 when first needed whatever the canon's size (a short-lived process that confirms a few
        candidates: the CLI). ``cut_prefilter``: a cache's ``cut_prefilter()`` for the same patterns."""
        self.entries: Mapping[str, Entry] = (
            entries if isinstance(entries, Mapping) else {e.id: e for e in entries if not e.is_withdrawn}
        )
        if derived is None:
            derived = self._derive()
        self.patterns: list[CompiledPattern] = list(derived[0])
        self.n_scanned = derived[1]
        self._rx: list[Any] = [None] * len(self.patterns)  # RE2; a large canon's compiled on first use (confirm)
        self._groups: list[tuple[tuple[str, int], ...] | None] = [None] * len(self.patterns)  # (name, group number)
        if self.n_scanned <= literal_above and not lazy_regex:
            self._rx = [self._compile(i) for i in range(len(self.patterns))]
        scanned = self.patterns[: self.n_scanned]
        self.windows = sorted({p.window for p in scanned})
        self.max_window = max(self.windows, default=1)
        self._window_of = [p.window for p in scanned]
        self._truncated_sets: list[tuple[Any, list[int]]] | None = None
        self._cut = cut_prefilter  # the truncated patterns by their literals: a cache's, or built when first needed
        self._sets: dict[int, list[tuple[Any, list[int]]]] = {}  # RE2 sets per window, built when first needed
        # scanned patterns the prefilter knows by a literal only -> their loosened form in RE2 (compiled when needed)
        self._by_literal: dict[int, Any] = {}
        self._literal_above = literal_above
        self.lexical = lexical if lexical is not None else LexicalIndex.build(self._lexical_docs())
        self._specific_texts = specific_texts  # a cache's, or built when first needed (specific_texts())
        self._message_lines = message_lines  # a cache's, or built when first needed (message_lines())
        # after the canon's patterns: errorish, env, then triage's keywords (one id each)
        n = self.n_scanned
        self.special_ids = {"errorish": n, "env": n + 1, "triage": n + 2}
        self.prefilter_blind: list[CompiledPattern] = []  # patterns the prefilter misses on their own examples
        self.hs_db = self._load_or_build_hyperscan(hs_blob)
        # the prototype scratch space: each scan takes a clone of its own (take_scratch), so scans may run in parallel
        self.hs_scratch = None if self.hs_db is None else hyperscan.Scratch(self.hs_db)
        self._scratch_pool: list[Any] = []  # clones that finished scans gave back

    def take_scratch(self) -> Any:
        """A scratch space for one input's scan alone (None without hyperscan): one that a finished scan gave back,
        else a new clone (a clone per input took about 19 µs of a held `rootcause.diagnose` after 64 MiB of other
        memory was touched, 2 µs warm).
        A list's pop and append are atomic, so two threads never hold the same one."""
        if self.hs_scratch is None:
            return None
        try:
            return self._scratch_pool.pop()
        except IndexError:
            return self.hs_scratch.clone()

    def give_back_scratch(self, scratch: Any) -> None:
        """A scratch space from `take_scratch` that its scan no longer uses."""
        if scratch is not None and len(self._scratch_pool) < SCRATCH_POOL:
            self._scratch_pool.append(scratch)

    # -- building ---------------------------------------------------------------------------
    def _derive(self) -> DerivedPatterns:
        patterns: list[CompiledPattern] = []
        for entry in self.entries.values():
            for p in entry.patterns:
                names = tuple(group_names(p.regex))
                specificity = literal_length(p.regex)
                raised = tuple(p.raised_in)
                patterns.append(
                    CompiledPattern(entry.id, p.regex, p.window, names, specificity, p.consequence, raised_in=raised)
                )
        # a message's stable head on its own (a paste cut short): core/matching/heads.py. These come last and stay
        # out of the hyperscan database and the window sets: only small inputs (pastes) are tried against them,
        # line by line, after the scan (SourceScanner.finish), so a big log's scan halts no more often.
        n_scanned = len(patterns)
        raised_in = {(e.id, p.regex): tuple(p.raised_in) for e in self.entries.values() for p in e.patterns}
        for entry_id, regex, consequence, head, source in derive_heads(list(self.entries.values())):
            names = tuple(group_names(regex))
            raised = raised_in[entry_id, source]
            cut = CompiledPattern(entry_id, regex, 1, names, MIN_HEAD, consequence, True, head, raised)
            patterns.append(cut)
        return patterns, n_scanned

    def specific_texts(self) -> str:
        """The signatures and examples of the entries that are neither family nor generic, lower-cased, one line each,
        framed by newlines: what a family's claim on a cut line is checked against (claims.cut_member). Built once;
        the index cache holds it, so that a lazily loaded canon does not unpickle every entry for it."""
        if self._specific_texts is None:
            texts = [
                line.strip().lower()
                for entry in self.entries.values()
                if not entry.family and not entry.generic
                for text in (entry.signature, *(ex.text for ex in entry.examples))
                for line in text.splitlines()
            ]
            self._specific_texts = "\n" + "\n".join(texts) + "\n"
        return self._specific_texts

    def message_lines(self) -> list[tuple[str, str, str]]:
        """(entry id, its two forms: claims.message_shape) of each line of a specific or generic entry's signature and
        examples that one of its own one-line patterns matches: its own message, never a line quoted beside it.
        What a line cut short is checked against (claims.cut_owners). Built once; the index cache holds it, like
        specific_texts(), so that a lazily loaded canon does not unpickle every entry for it."""
        if self._message_lines is None:
            found: list[tuple[str, str, str]] = []
            for entry in self.entries.values():
                if entry.family or entry.catch_all:
                    continue
                own = []
                for p in entry.patterns:
                    if p.window != 1:
                        continue
                    try:
                        own.append(compile_re2(p.regex))
                    except PatternError:
                        continue
                for text in (entry.signature, *(ex.text for ex in entry.examples)):
                    for line in text.splitlines():
                        if any(rx.search(line) for rx in own):
                            found.append((entry.id, *message_shape(line)))
            self._message_lines = found
        return self._message_lines

    def derived_patterns(self) -> DerivedPatterns:
        """The patterns and how many of them are scanned (the rest are derived heads), for a cache to give back
        as ``derived``: deriving the heads is a tenth of a second on the shipped canon."""
        return list(self.patterns), self.n_scanned

    def _lexical_docs(self) -> list[tuple[str, str]]:
        docs: list[tuple[str, str]] = []
        for entry in self.entries.values():
            docs.append((entry.id, entry.signature))
            docs.extend((entry.id, ex.text) for ex in entry.examples)
        return docs

    def _load_or_build_hyperscan(self, blob: bytes | None) -> Any:
        """The prefilter's database (core/matching/prefilter_db.py): a cache's, or built and healed of hyperscan's
        blind spots on the canon's own examples. A large canon's patterns with literals are held by them, remembered
        in ``_by_literal`` whichever way the database came."""
        if hyperscan is None:
            return None
        large = self.n_scanned > self._literal_above  # loosened: a large canon's build (core/matching/large_prefilter)
        scanned = self.patterns[: self.n_scanned]
        holds = literal_holds(((p.regex, p.window) for p in scanned), LITERAL_MIN) if large else {}
        self._by_literal = dict.fromkeys(holds)
        if blob is not None:
            return hyperscan.loadb(blob, hyperscan.HS_MODE_BLOCK)
        extra = [ERRORISH_REGEX, ENV_HINT_REGEX, *(re.escape(k.decode()) for k in TRIAGE_KEYWORDS)]
        built = build_prefilter(self._scanned_for_prefilter(), extra, large_holds=holds, large=large)
        self.prefilter_blind = [self.patterns[i] for i in built.blind]
        return built.db

    def _scanned_for_prefilter(self) -> list[Scanned]:
        """Each scanned pattern with the texts of its own entry: the build's probes come from them."""
        out = []
        for p in self.patterns[: self.n_scanned]:
            entry = self.entries.get(p.entry_id)
            texts = () if entry is None else (entry.signature, *(ex.text for ex in entry.examples))
            out.append(Scanned(p.regex, p.window, p.entry_id, texts))
        return out

    def hyperscan_blob(self) -> bytes | None:
        return None if self.hs_db is None else hyperscan.dumpb(self.hs_db)

    # -- matching ---------------------------------------------------------------------------
    def candidates(self, text: str, window: int, scratch: Any = None) -> list[int]:
        """Indexes of the patterns of this window size that may match the cleaned text.

        With hyperscan (and a scratch space of the caller's), the multi-pattern database answers
        in microseconds whatever the canon's size; otherwise an RE2 set does. Either way each
        candidate is confirmed by its own RE2 pattern afterwards.
        """
        if self.hs_db is not None and scratch is not None:
            found: set[int] = set()
            n = self.n_scanned
            window_of = self._window_of

            def on_match(pattern_id: int, _from: int, _to: int, _flags: int, _ctx: object) -> None:
                if pattern_id < n and window_of[pattern_id] == window:
                    found.add(pattern_id)

            self.hs_db.scan(text.encode("utf-8", "replace"), match_event_handler=on_match, scratch=scratch)
            if self._by_literal:  # a literal's hit stands for the pattern's loosened form only where that matches
                return sorted(i for i in found if i not in self._by_literal or self._loose_match(i, text))
            return sorted(found)
        return sorted(members[i] for rset, members in self._set_for(window) for i in (rset.Match(text) or ()))

    def candidate_ends(self, data: bytes, scratch: Any) -> dict[int, int]:
        """The scanned patterns that may match somewhere in ``data`` (hyperscan only), each with the end of its
        last match (a byte offset): a pattern that may match a suffix of ``data`` that starts at a line start
        ends past that start, so one scan of the widest window serves every narrower one (`SourceScanner`)."""
        ends: dict[int, int] = {}
        n = self.n_scanned

        def on_match(pattern_id: int, _from: int, to: int, _flags: int, _ctx: object) -> None:
            if pattern_id < n and ends.get(pattern_id, -1) < to:
                ends[pattern_id] = to

        self.hs_db.scan(data, match_event_handler=on_match, scratch=scratch)
        return ends

    def window_of(self, pattern_index: int) -> int:
        return self._window_of[pattern_index]

    def _loose_match(self, pattern_index: int, text: str) -> bool:
        """Whether the pattern's prefilter form (prefilter_source, in RE2) matches: what the database says of a
        pattern it holds as a regex, said of one it holds by its literal."""
        rx = self._by_literal[pattern_index]
        if rx is None:
            try:
                rx = compile_re2("(?m)" + prefilter_source(self.patterns[pattern_index].regex))
            except PatternError:
                rx = False  # cannot say: keep every hit, as hyperscan's prefilter would over-match
            self._by_literal[pattern_index] = rx
        return rx is False or rx.search(text) is not None

    def _set_for(self, window: int) -> list[tuple[Any, list[int]]]:
        built = self._sets.get(window)
        if built is None:
            members = [i for i, p in enumerate(self.patterns[: self.n_scanned]) if p.window == window]
            built = self._sets[window] = self._compiled_sets(members)
        return built

    def _compiled_sets(self, members: list[int]) -> list[tuple[Any, list[int]]]:
        try:
            return compiled_sets([p.regex for p in self.patterns], members, _set_options(len(self.patterns)))
        except SetCompileError as exc:
            p = self.patterns[exc.member]
            raise PatternError(f"{p.entry_id}: {p.regex!r}: RE2 cannot compile it in a set") from None

    def truncated_candidates(self, text: str) -> list[int]:
        """Indexes of the truncated patterns (a message cut after its stable head) that match a cleaned line."""
        cut = self.cut_prefilter()
        if cut is not None:
            return cut.matching(text, self.confirm)
        if self._truncated_sets is None:
            self._truncated_sets = self._compiled_sets(list(range(self.n_scanned, len(self.patterns))))
        return sorted(members[i] for rset, members in self._truncated_sets for i in (rset.Match(text) or ()))

    def cut_prefilter(self) -> CutPrefilter | None:
        """The truncated patterns by their literals, built when first needed; None without hyperscan."""
        if self._cut is None and hyperscan is not None:
            heads = [p.head or p.regex for p in self.patterns[self.n_scanned :]]
            self._cut = CutPrefilter(heads, self.n_scanned, LITERAL_MIN)
        return self._cut

    def _compile(self, pattern_index: int) -> Any:
        p = self.patterns[pattern_index]
        try:
            return compile_re2(p.regex)
        except PatternError as exc:
            raise PatternError(f"{p.entry_id}: {p.regex!r}: {exc}") from None

    def confirm(self, pattern_index: int, text: str) -> dict[str, str] | None:
        """Run the real RE2 pattern; return its named groups, or None when it misses.

        RE2 is asked for the match's byte spans directly (what the wrapper's ``search`` asks for, without its
        generator and its byte-to-character offset tables); a group's text is its bytes decoded, the same text
        as the wrapper's character slice, since RE2 matches UTF-8 at character boundaries."""
        rx = self._rx[pattern_index]
        if rx is None:
            rx = self._rx[pattern_index] = self._compile(pattern_index)
        core = getattr(rx, "_regexp", None)
        if core is None or _UNANCHORED is None:
            found = rx.search(text)
            return None if found is None else {k: v for k, v in found.groupdict().items() if v is not None}
        data = text.encode("utf-8")
        spans = core.Match(_UNANCHORED, data, 0, len(data))
        if spans[0] == _NO_SPAN:
            return None
        if not self.patterns[pattern_index].names:
            return {}  # no named group
        groups = self._groups[pattern_index]
        if groups is None:  # the wrapper's groupdict() order: RE2's named groups as it lists them
            groups = self._groups[pattern_index] = tuple(
                (name.decode("utf-8"), at) for name, at in dict(core.NamedCapturingGroups()).items()
            )
        return {name: data[spans[at][0] : spans[at][1]].decode("utf-8") for name, at in groups if spans[at] != _NO_SPAN}


def database_layout() -> str:
    """What the compiled hyperscan database holds besides the canon's patterns, and in which order: a change
    (a triage keyword added, an id moved, the prefilter loosened) changes the index cache key, so a stale
    database is never loaded."""
    parts = ["layout 9", "healed on the canon's examples", "patterns", "heads 3"]
    parts.append(f"literals above {LITERAL_ABOVE}, at least {LITERAL_MIN}")
    parts.append("a large canon: multi-line patterns by their last line's literal, bounded repeats unbounded")
    parts.append(f"multi-line patterns by their tails, literal at least {TAIL_LITERAL_MIN}")
    parts += ["errorish", ERRORISH_REGEX, "env", ENV_HINT_REGEX, "triage"]
    parts += [k.decode() for k in TRIAGE_KEYWORDS]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def index_cache_key(texts: list[tuple[str, str]]) -> str:
    """A key for the compiled-index cache: the canon's content, and this code's version."""
    from rootcause import __version__

    digest = hashlib.sha256(__version__.encode())
    digest.update(database_layout().encode())
    for name, text in sorted(texts):
        digest.update(name.encode())
        digest.update(b"\0")
        digest.update(text.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:24]
