"""From scanned inputs to ranked findings, or an honest "no known error".

The ranking is explicit and total (docs/ranking.md, one test per rule in tests/test_ranking.py):
0. a wrapper (torchrun's ChildFailedError) after every cause and symptom, of any tier;
1. a specific entry before a generic one, a generic one before a family entry, and a family entry before a
   catch-all;
2. a cause before a symptom (what other ranks print because something else
   failed), and a symptom before a wrapper;
3. pattern matches before lexical ones, and on one line a pattern's finding before a lexical claim of any tier;
4. the earliest first occurrence first (input order, then line).

The lexical stage never claims an entry of another backend than the line names (a Gloo line is
not answered with an NCCL entry); such an entry may still be offered as nearest.

Identical errors repeated by many ranks become one finding with a count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from pydantic import BaseModel

from rootcause.core.advice import SHOWN_WORKAROUNDS, rank_workarounds
from rootcause.core.assembled import assembled
from rootcause.core.atlas.lines import SmallInputTap, locate_lines, unclaimed_lines
from rootcause.core.atlas.located import Located
from rootcause.core.findings import (
    Candidate,
    DeadEndView,
    Finding,
    InputSummary,
    LineRef,
    SourceInput,
    WorkaroundView,
)
from rootcause.core.import_names import NamesSource, drop_unfounded_imports
from rootcause.core.matching.backends import foreign_to, misses_object, other_names
from rootcause.core.matching.claims import (
    cut_owners,
    cut_quoted_name,
    names_none_when_cut,
    own_template_other_values,
    signature_objects,
)
from rootcause.core.matching.index import CompiledIndex
from rootcause.core.matching.lexical import is_boilerplate
from rootcause.core.matching.runtime_messages import is_cpython_fixed_message
from rootcause.core.matching.scan import Hit, ScanResult, SourceScanner, iter_text_chunks
from rootcause.core.model import Entry, Role
from rootcause.core.ordering import (
    drop_redundant_generics,
    grounded_first,
    inner_error_lines,
    notices_beside_a_crash,
    patterns_first_on_their_lines,
    tier,
    unclassified_of,
    without_ambiguous_truncations,
    wrapper_beside_an_unexplained_error,
    wraps_an_unknown_error,
)
from rootcause.core.triage.model import TriageReport
from rootcause.core.unclassified import UnclassifiedException
from rootcause.core.versions import Environment, Verdict, verdict

if TYPE_CHECKING:
    from rootcause.core.atlas.locate import AtlasIndex
    from rootcause.core.triage.engine import Triage

JSON_SCHEMA_VERSION = 1
PATTERN_SCORE = 0.95
GENERIC_SCORE = 0.40
LEXICAL_THRESHOLD = 0.70  # calibrated on the corpus's dev part (bench/README.md) and the canon (its test)
LEXICAL_TIE = 0.05  # a second lexical candidate this close to the first: the line names neither
LEXICAL_MAX_SHARE = 0.02  # a lexical claim needs a shared word that at most this share of the canon's entries hold
NEAREST_FLOOR = 0.25
MAX_UNCLASSIFIED = 5
MAX_LINES_PER_FINDING = 5
ROLE_ORDER = {Role.CAUSE: 0, Role.SYMPTOM: 1, Role.WRAPPER: 2, Role.NOTICE: 3}


class Diagnosis(BaseModel):
    schema_version: int = JSON_SCHEMA_VERSION
    matched: bool
    findings: list[Finding]
    nearest: list[Candidate] = []
    abstain_reason: str | None = None
    environment: dict[str, str] = {}
    inputs: list[InputSummary] = []
    truncated_hits: int = 0
    triage: TriageReport | None = None
    unclassified: list[UnclassifiedException] = []  # Python exceptions no known error explains (not findings)
    located: list[Located] = []  # lines no entry claims that a released line of the stack prints (not findings)


if TYPE_CHECKING:
    # the atlas for the located tier: an index, or a function that loads it (called only when a line needs it)
    AtlasSource: TypeAlias = AtlasIndex | Callable[[], AtlasIndex | None] | None


def _confidence_label(score: float) -> str:
    return "high" if score >= 0.8 else "medium" if score >= 0.6 else "low"


def _top_workarounds(entry: Entry, lines: list[str], env: Environment) -> tuple[list[WorkaroundView], int]:
    """The workarounds the evidence supports first (core/advice.py), at most SHOWN_WORKAROUNDS, and how many more."""
    ranked = rank_workarounds(entry.workarounds, lines, env)
    views = [
        assembled(
            WorkaroundView,
            action=j.workaround.action,
            how=j.workaround.how,
            success_rate=j.workaround.success_rate.value,
            basis=j.workaround.success_rate.basis.value,
            condition=j.workaround.condition,
            support=j.support.value,
            support_note=j.why,
        )
        for j in ranked[:SHOWN_WORKAROUNDS]
    ]
    return views, max(0, len(ranked) - SHOWN_WORKAROUNDS)


def _dead_ends(entry: Entry) -> list[DeadEndView]:
    return [
        assembled(
            DeadEndView,
            action=d.action,
            why_fails=d.why_fails,
            fail_rate=d.fail_rate.value,
            basis=d.fail_rate.basis.value,
        )
        for d in entry.dead_ends
    ]


@dataclass
class _Group:
    entry: Entry
    matched_by: str
    score: float
    first: tuple[int, int]
    hits: list[tuple[str, Hit]]
    count: int = 0
    specificity: int = 0
    consequence: bool = True  # every hit so far came from a consequence pattern
    literal: bool = False  # a lexical claim of a cut line that runs on in this entry's own message only
    # the last occurrence (input, first line, last line) and its index in hits (-1 past the cap): two patterns of
    # one entry on one line are one occurrence, and a line's hits arrive together, so the last one is enough
    last: tuple[tuple[str, int, int], int] | None = None


def _finding(group: _Group, env: Environment) -> Finding:
    entry = group.entry
    ranks = sorted({h.rank for _, h in group.hits if h.rank is not None})
    param_values: dict[str, list[str]] = {}
    for _, hit in group.hits:
        for key, value in hit.params.items():
            values = param_values.setdefault(key, [])
            if value not in values and len(values) < 16:
                values.append(value)
    _, first_hit = group.hits[0]
    workarounds, more = _top_workarounds(entry, [h.raw for _, h in group.hits[:MAX_LINES_PER_FINDING]], env)
    return assembled(
        Finding,
        id=entry.id,
        signature=entry.signature,
        score=round(group.score, 3),
        confidence=_confidence_label(group.score),
        matched_by=group.matched_by,
        generic=entry.generic,
        role=entry.role.value,
        count=group.count,
        ranks=ranks,
        sources=sorted({s for s, _ in group.hits}),
        lines=[
            assembled(LineRef, source=s, line=h.line, text=h.raw, rank=h.rank)
            for s, h in group.hits[:MAX_LINES_PER_FINDING]
        ],
        params=dict(first_hit.params),
        param_values=param_values,
        versions=verdict(entry, env),
        root_cause=entry.root_cause,
        workarounds=workarounds,
        more_workarounds=more,
        dead_ends=_dead_ends(entry),
        verification=entry.verification.value,
        consequence=group.matched_by == "pattern" and group.consequence,
    )


def _rank_key(group: _Group) -> tuple[int, int, int, int, int, int, int, int]:
    """docs/ranking.md: a notice (the job went on) after every finding but the catch-all's, even a family's cause;
    a wrapper (it only says that something failed inside it) after every cause and symptom, even a family's; then
    tier, role, pattern before lexical, input order, specificity."""
    return (
        2 if group.entry.catch_all else int(group.entry.role is Role.NOTICE),
        int(group.entry.role is Role.WRAPPER),
        tier(group.entry),
        ROLE_ORDER[group.entry.role],
        int(group.matched_by != "pattern"),
        *group.first,
        -group.specificity,
    )


def lexical_claimable(index: CompiledIndex, clean: str, entry: Entry) -> bool:
    """Whether the lexical stage may claim ``entry`` for a cleaned line at all, whatever the similarity: the
    rule `diagnose_sources` applies (and the calibration of its threshold, tests/test_lexical_calibration.py)."""
    return _claimable(index, clean, entry, foreign_to(clean))


def _claimable(index: CompiledIndex, clean: str, entry: Entry, foreign: Callable[[str], bool]) -> bool:
    """Not a catch-all, not about another stack, no other quoted name, the object the entry's patterns are about
    (a sibling message shares all the rest), and a distinctive word in common."""
    return (
        not entry.generic
        and not foreign(entry.signature)
        and not other_names(clean, (entry.signature, *(ex.text for ex in entry.examples)))
        and not misses_object(clean, signature_objects(entry))
        and not own_template_other_values(clean, entry.id, index)
        and index.lexical.shares_distinctive(clean, entry.id, LEXICAL_MAX_SHARE)
    )


def diagnose_sources(
    sources: Iterable[SourceInput],
    index: CompiledIndex,
    env: Environment | None = None,
    *,
    progress: Callable[[int], object] | None = None,
    triage: Triage | None = None,
    scanned: Callable[[str, ScanResult], object] | None = None,
    atlas: AtlasSource = None,
    names: NamesSource = None,
) -> Diagnosis:
    """Scan every input and rank what was found. ``env`` overrides versions read from logs. With ``triage``,
    the same pass feeds it the lines that hold its keywords (call ``triage.report()`` afterwards).
    With ``atlas``, the error-looking lines that no entry claims are located (`Diagnosis.located`). With ``names``
    (the names index), a version-skew claim on an import the index shows misspelt or misplaced is withdrawn.

    ``scanned`` sees each input's raw scan result (its name first): the fleet scan reads the
    error-looking lines that no pattern explained from it.
    """
    groups: dict[str, _Group] = {}
    lexical_lines: list[tuple[int, str, int, str, str, int | None]] = []
    # lines cut before the words that tell entries apart (two entries' cut forms): the lexical stage would only
    # pick one of the entries the cut left open
    cut_lines: set[tuple[str, int]] = set()
    open_lines: set[tuple[str, int]] = set()  # the last line of a paste with no final line break: maybe cut
    elsewhere: set[tuple[str, int]] = set()  # a Python library's message raised outside its entries' callers
    detected: Environment = {}
    inputs: list[InputSummary] = []
    truncated = 0
    sources = list(sources)
    # one unnamed input may hold one rank only: its tap waits for the first sign of a second one
    defer = len(sources) == 1 and sources[0].rank is None
    small = SmallInputTap() if atlas is not None else None  # small inputs kept whole for the located tier
    for order, source in enumerate(sources):
        tap = triage.open(source.name, source.rank) if triage is not None else None
        scanner = SourceScanner(index, tap=tap, defer_tap=defer)
        chunks = source.chunks if small is None else small.wrap(source.name, source.chunks)
        for chunk in chunks:
            scanner.feed(chunk)
            if progress is not None:
                progress(len(chunk))
        result: ScanResult = scanner.finish()
        if tap is not None:
            tap.close()
        if scanned is not None:
            scanned(source.name, result)
        truncated += result.truncated_hits
        inputs.append(
            assembled(InputSummary, name=source.name, lines=result.lines, bytes=result.bytes, rank=source.rank)
        )
        for name, version in result.env.items():
            detected.setdefault(name, version)
        ambiguous: set[int] = set()
        for hit in without_ambiguous_truncations(result.hits, index, ambiguous):
            if hit.rank is None and source.rank is not None:
                hit.rank = source.rank
            entry_id = index.patterns[hit.pattern].entry_id
            entry = index.entries[entry_id]
            if result.open_end and hit.line == result.lines and names_none_when_cut(hit, entry, index):
                continue  # the paste is cut where the line may still be another entry's message (claims.py)
            group = groups.get(entry_id)
            if group is None:
                score = GENERIC_SCORE if entry.generic else PATTERN_SCORE
                group = groups[entry_id] = _Group(entry, "pattern", score, (order, hit.first_line), [])
            here = (order, hit.first_line)
            if here < group.first:
                group.first, group.specificity = here, 0
            if here == group.first:
                group.specificity = max(group.specificity, index.patterns[hit.pattern].specificity)
            group.consequence = group.consequence and index.patterns[hit.pattern].consequence
            where = (source.name, hit.first_line, hit.line)
            if group.last is not None and group.last[0] == where:  # the same line through another of its patterns
                at = group.last[1]
                if at >= 0 and len(hit.params) > len(group.hits[at][1].params):
                    group.hits[at] = (source.name, hit)  # keep the richer match
                continue
            group.count += 1
            group.last = (where, len(group.hits) if len(group.hits) < 64 else -1)
            if len(group.hits) < 64:
                group.hits.append((source.name, hit))
        elsewhere.update((source.name, n) for n in result.raised_elsewhere)
        for line_no, raw, clean, rank in result.errorish:
            if result.open_end and line_no == result.lines:
                open_lines.add((source.name, line_no))
            if line_no in ambiguous:
                cut_lines.add((source.name, line_no))
            lexical_lines.append((order, source.name, line_no, raw, clean, rank if rank is not None else source.rank))

    nearest: list[Candidate] = []
    nearest_best: dict[str, Candidate] = {}
    # a line only a family entry matched is still searched for another entry, which ranks above it
    pattern_lines = {(src, hit.line) for g in groups.values() if not g.entry.family for src, hit in g.hits}
    for order, source_name, line_no, raw, clean, rank in lexical_lines:
        if (source_name, line_no) in pattern_lines or is_boilerplate(clean):
            continue  # a frame line or a traceback header says nothing about the cause
        if (source_name, line_no) in elsewhere:
            continue  # its traceback shows another program raised it (core/matching/frames.py)
        if is_cpython_fixed_message(clean):
            continue  # the interpreter's own message (`list index out of range`): no library's message reworded
        if (source_name, line_no) in cut_lines:
            continue  # cut before the words that name the entry: the words left fit another entry as well
        foreign = foreign_to(clean)
        found = index.lexical.search(clean, limit=3)
        # a cut line that runs on in some entries' own messages is one of theirs, or names none when they are several
        owners = cut_owners(clean, index) if (source_name, line_no) in open_lines else set()
        # cut inside a quoted name, only the entry whose own message runs on from it may claim the line
        named = (source_name, line_no) in open_lines and cut_quoted_name(clean) is not None
        # a line that fits two entries about equally tells them apart no better than a cut title does: it names neither
        tied = len(found) > 1 and found[1][1] >= found[0][1] - LEXICAL_TIE
        for entry_id, sim in found:
            if entry_id in groups and groups[entry_id].matched_by == "pattern":
                continue
            entry = index.entries[entry_id]
            claimable = _claimable(index, clean, entry, foreign) and (
                owners == {entry_id} or (not owners and not named)
            )
            if sim >= LEXICAL_THRESHOLD and claimable and not tied:
                hit = Hit(-1, line_no, line_no, raw[:2000], clean[:2000], {}, rank)
                group = groups.get(entry_id)
                if group is None:
                    group = groups[entry_id] = _Group(entry, "lexical", sim, (order, line_no), [])
                group.score = max(group.score, sim)
                group.literal = group.literal or owners == {entry_id}
                group.count += 1
                if len(group.hits) < 64:
                    group.hits.append((source_name, hit))
            elif sim >= NEAREST_FLOOR:
                current = nearest_best.get(entry_id)
                if current is None or sim > current.score:
                    nearest_best[entry_id] = Candidate(
                        id=entry_id,
                        signature=entry.signature,
                        score=round(sim, 3),
                        line=LineRef(source=source_name, line=line_no, text=raw[:500], rank=rank),
                    )

    effective_env = {**detected, **(env or {})}
    ordered = sorted(groups.values(), key=_rank_key)
    ordered = grounded_first(drop_redundant_generics(patterns_first_on_their_lines(ordered)))
    catch_alls = [g for g in ordered if g.entry.catch_all]
    ordered, import_facts = drop_unfounded_imports([g for g in ordered if not g.entry.catch_all], names)
    explained = {(src, hit.line) for g in ordered for src, hit in g.hits}
    findings = _affected_first([_finding(g, effective_env) for g in ordered])
    reason = None
    if not findings:
        nearest = sorted(nearest_best.values(), key=lambda c: -c.score)[:3]
        reason = (
            "no known error matched: no pattern matched and no lexical candidate reached "
            f"the threshold ({LEXICAL_THRESHOLD})"
        )
        reason = "; ".join(["no known error matched", *import_facts]) if import_facts else reason
    unexplained_lines = [line for line in lexical_lines if (line[1], line[2]) not in explained]
    unexplained_pairs = [(line[3], line[4]) for line in unexplained_lines]
    unexplained = [clean for _, clean in unexplained_pairs]
    inner = inner_error_lines(findings, ordered, ((line[1], line[2], line[4]) for line in unexplained_lines))
    wrapped = (
        wraps_an_unknown_error(findings, catch_alls, explained)
        or notices_beside_a_crash(findings, unexplained_pairs)
        or wrapper_beside_an_unexplained_error(findings, unexplained, inner)
    )
    if wrapped is not None:
        reason = (
            f"no known error matched: only a wrapper or a notice did, beside an exception no entry explains ({wrapped})"
        )
    fields = {
        "matched": bool(findings) and wrapped is None,
        "findings": findings,
        "nearest": nearest,
        "abstain_reason": reason,
        "environment": effective_env,
        "inputs": inputs,
        "truncated_hits": truncated,
        "unclassified": unclassified_of(catch_alls, explained, MAX_UNCLASSIFIED),
    }
    if all(type(k) is str and type(v) is str for k, v in effective_env.items()):
        d = assembled(
            Diagnosis, set_fields=fields, schema_version=JSON_SCHEMA_VERSION, triage=None, located=[], **fields
        )
    else:  # a caller's environment of other types: validation converts or refuses it
        d = Diagnosis.model_validate(fields)
    if atlas is not None and not d.matched:
        # the located tier answers where no reviewed entry does; a known error's diagnosis never loads the atlas,
        # so it costs what it cost before the atlas (a first load builds its index: seconds)
        more = [] if small is None else small.all_message_lines()
        unclaimed = unclaimed_lines(groups.values(), lexical_lines, more)
        d.located = locate_lines(atlas, unclaimed, effective_env, () if small is None else small.mentioned)
    return d


_NOT_AFFECTED = (Verdict.NOT_AFFECTED, Verdict.FIXED)


def _affected_first(findings: list[Finding]) -> list[Finding]:
    """A finding whose version verdict says this environment is not affected (or past the fix) ranks
    below every other, keeping the order within each group (docs/ranking.md, 'Versions last')."""
    return sorted(findings, key=lambda f: f.versions.status in _NOT_AFFECTED)


def holds_several_ranks(d: Diagnosis) -> bool:
    """Several inputs, an input named for a rank, or findings from more than one rank."""
    if len(d.inputs) > 1 or any(i.rank is not None for i in d.inputs):
        return True
    return len({r for f in d.findings for r in f.ranks}) > 1


def diagnose_text(
    text: str,
    index: CompiledIndex,
    env: Environment | None = None,
    *,
    atlas: AtlasSource = None,
    names: NamesSource = None,
) -> Diagnosis:
    """Diagnose one pasted text (a message, a traceback or a whole log)."""
    return diagnose_sources([SourceInput("<text>", iter_text_chunks(text))], index, env, atlas=atlas, names=names)
