"""The canon linter: stable check codes over parsed entries. Pure; the CLI reads files.

Codes are stable and documented in docs/lint.md. Severity "error" fails the run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from packaging.requirements import Requirement

from rootcause.core import normalize
from rootcause.core.advice_names import env_vars_in
from rootcause.core.atlas.bounds import AtlasBounds
from rootcause.core.atlas.names import NamesIndex
from rootcause.core.diagnosis import diagnose_text
from rootcause.core.lint_atlas import check_atlas_bounds
from rootcause.core.lint_fresh import check_freshness
from rootcause.core.lint_heads import check_first_sentence
from rootcause.core.lint_links import check_linked_advice, grounded_link_first
from rootcause.core.lint_split import check_test_split_sources
from rootcause.core.matching.index import CompiledIndex
from rootcause.core.matching.lexical import LexicalIndex
from rootcause.core.matching.patterns import (
    backtracking_risk,
    compile_re2,
    compiled_patterns,
    dead_anchor,
    non_ascii_in_class,
)
from rootcause.core.model import Basis, Entry, RelationType, SourceKind, Verification, has_bounds
from rootcause.core.normalize import parameterise
from rootcause.core.reproducers import Reproducer, check_reproducers
from rootcause.errors import PatternError

CHECKS: dict[str, tuple[str, str]] = {
    "RC001": ("error", "the file does not validate against the schema"),
    "RC002": ("error", "the id does not equal the path, or breaks the slug convention"),
    "RC101": ("error", "a pattern does not compile in the linear-time engine (RE2)"),
    "RC102": ("error", "no pattern matches the entry's own signature"),
    "RC103": ("error", "an example is not matched by the entry's own patterns"),
    "RC104": ("error", "fewer than two real examples"),
    "RC105": ("error", "an example or source has no provenance"),
    "RC106": ("error", "an example cites a fixture file that does not contain it"),
    "RC107": ("error", "no message generations listed (wordings and the releases that print them)"),
    "RC108": (
        "error",
        "a pattern of the code's own normalisers (core/normalize.py) can backtrack on user input: "
        "use RE2, or Python re anchored at the start with no repeat inside a repeat",
    ),
    "RC109": (
        "warning",
        "a paste cut after the message's first sentence matches none of the entry's patterns (nor their stable heads)",
    ),
    "RC110": (
        "error",
        "a source, example or advice cites a thread of the corpus's test split (only scored, never used)",
    ),
    "RC111": (
        "error",
        "a character class holds a non-ASCII character: the byte-level prefilter reads it as one byte, "
        "so list the characters as an alternation instead",
    ),
    "RC112": (
        "error",
        "the prefilter (hyperscan) misses a pattern on its own examples after another line, and the pattern has no "
        "literal to be held by instead: reword it (core/matching/prefilter_db.py)",
    ),
    "RC113": (
        "error",
        "a pattern's ^ or $ can never match: RE2 compiles patterns without multi-line mode, so ^ is the text's start "
        "and $ its end; a $ with more to match after it, or a ^ after matched text, is dead",
    ),
    "RC201": ("error", "an example is matched first by another entry (collision)"),
    "RC301": ("error", "near-duplicate signature of another entry, with no typed relation"),
    "RC302": ("warning", "near-duplicate of an entry marked same-as: consider merging"),
    "RC303": ("error", "two entries match each other's examples, with no typed relation"),
    "RC401": ("error", "a workaround and a dead end name the same action, variable or command"),
    "RC402": ("error", "a workaround of one entry is a dead end of an entry marked same-as"),
    "RC403": (
        "warning",
        "an AI-generated entry's workaround is a dead end of a grounded same-as entry (allowed: the grounded "
        "entry always ranks first and the AI-generated one is shown as unverified)",
    ),
    "RC501": ("error", "Chinese text missing"),
    "RC502": ("error", "a rate outside [0, 1]"),
    "RC503": ("error", "a version specifier that does not parse"),
    "RC504": ("error", "a malformed URL"),
    "RC505": ("error", "hardware or an operating system inside versions"),
    "RC506": ("warning", "an estimate with made-up precision (not a multiple of 0.05)"),
    "RC507": ("warning", "high confidence shown on little evidence"),
    "RC508": ("error", "a version bound with no source for it (say 'unchecked' where it could not be read)"),
    "RC509": ("error", "a generation's bounds disagree with the releases of the message atlas that print its wording"),
    "RC510": (
        "warning",
        "a generation's bounds are 'unchecked' for a package the message atlas covers, and it names no atlas template "
        "nor says why (atlas_unlinked)",
    ),
    "RC511": ("error", "a generation names an atlas template that the atlas does not hold, or of another package"),
    "RC601": ("error", "an environment variable in a workaround that nothing really reads"),
    "RC602": (
        "warning",
        "advice names an API, keyword, env var or command that its package's latest release no longer has, "
        "and no version bound leaves that release out",
    ),
    "RC603": ("warning", "advice names something that only newer releases have, and no version bound says so"),
    "RC701": ("error", "a related link to an id that does not exist"),
    "RC702": ("error", "an empty dead end or workaround action"),
    "RC801": ("error", "verification claims more than the evidence shows"),
    "RC802": ("error", "reproduced without a reproducer whose committed record passed"),
    "RC803": ("error", "a reproducer folder is missing, or its spec or record is invalid"),
    "RC901": ("error", "prose still marked TODO for a maintainer (a candidate from `rootcause fleet unknown`)"),
}
TODO_MARK = "TODO(maintainer)"

HARDWARE_OR_OS = re.compile(
    r"^(?:a100|h100|h200|v100|t4|l4|l40s?|a10g?|rtx\w*|gtx\w*|tesla\w*|sm_?\d+|mi\d+\w*|"
    r"ubuntu|debian|centos|rhel|windows|win\d*|macos|osx|darwin|linux|wsl\d?|alpine|"
    r"nvidia|gpu|cpu|x86_64|aarch64|arm64)$",
    re.IGNORECASE,
)
SIMILAR = 0.9


@dataclass(frozen=True)
class LintFinding:
    path: str
    code: str
    message: str

    @property
    def severity(self) -> str:
        return CHECKS[self.code][0]

    def line(self) -> str:
        return f"{self.path}: [{self.code}] {self.message}"


def code_for_field(field: str | None, message: str) -> str:
    """Map a schema error to the most specific check code."""
    f = field or ""
    if f == "id" or "id" in f.split(".")[-1:]:
        return "RC002"
    if re.search(r"(rate|confidence)\b", f) or f.endswith(".value"):
        return "RC502"
    if "versions" in f and (
        "requirement" in f or any(k in f for k in ("introduced", "fixed", "removed", "deprecated"))
    ):
        return "RC503"
    if "official_docs" in f or "URL" in message:
        return "RC504"
    if re.search(r"(dead_ends|workarounds)\.\d+\.action", f):
        return "RC702"
    if "patterns" in f:
        return "RC101"
    return "RC001"


def _commands_in(text: str) -> set[str]:
    """Normalised shell-ish commands: 'pip install x', 'torchrun --nproc_per_node=2'."""
    out: set[str] = set()
    for part in re.split(r"[;\n]|&&", text):
        words = part.strip().strip("`").split()
        if len(words) >= 2 and re.match(r"^[a-z][\w.\-]*$", words[0]):
            out.add(" ".join(words).lower())
    return out


# Reads the text of a fixture file an example cites (a repository-relative path); None when it cannot tell.
CitedReader = Callable[[str], str | None]


def _fixture_path(ref: str) -> str | None:
    head = ref.split()[0].rstrip(":,;") if ref.strip() else ""
    return head if head.startswith("tests/") else None


def check_cited_fixtures(entry: Entry, path: str, read_cited: CitedReader) -> list[LintFinding]:
    out: list[LintFinding] = []
    for n, ex in enumerate(entry.examples):
        cited = _fixture_path(ex.source.ref)
        if cited is None:
            continue
        text = read_cited(cited)
        if text is not None and ex.text not in text.replace("\r\n", "\n"):
            out.append(LintFinding(path, "RC106", f"examples.{n} does not appear in {cited}"))
    return out


def check_bounds(entry: Entry, path: str) -> list[LintFinding]:
    out: list[LintFinding] = []
    for n, v in enumerate(entry.versions):
        bounded = has_bounds(v.requirement) or any((v.introduced, v.deprecated, v.removed, v.fixed))
        if bounded and v.bounds_source is None:
            out.append(LintFinding(path, "RC508", f"versions.{n} ({v.requirement}) has no bounds_source"))
    if not entry.generations:
        out.append(LintFinding(path, "RC107", "no generations: list each wording and the releases that print it"))
    return out


def check_entry(entry: Entry, path: str, *, known_env: set[str], known_ids: set[str]) -> list[LintFinding]:
    out: list[LintFinding] = []

    def add(code: str, message: str) -> None:
        out.append(LintFinding(path, code, message))

    compiled = []
    for n, p in enumerate(entry.patterns):
        try:
            compiled.append((compile_re2(p.regex), p.window))
        except PatternError as exc:
            add("RC101", f"patterns.{n}: {exc}")
        if (char := non_ascii_in_class(p.regex)) is not None:
            add("RC111", f"patterns.{n}: {char!r} inside a character class; use an alternation")
        if (anchor := dead_anchor(p.regex)) is not None:
            add("RC113", f"patterns.{n}: {anchor} (without (?m), ^ and $ are the text's start and end)")

    def own_match(text: str) -> bool:
        lines = text.splitlines() or [text]
        for rx, window in compiled:
            for i in range(len(lines)):
                if rx.search("\n".join(lines[max(0, i - window + 1) : i + 1])):
                    return True
        return False

    if compiled and not own_match(entry.signature):
        add("RC102", "no pattern matches the signature")
    if len(entry.examples) < 2:
        add("RC104", f"{len(entry.examples)} example(s); at least two real examples are needed")
    for n, ex in enumerate(entry.examples):
        if compiled and not own_match(ex.text):
            add("RC103", f"examples.{n} is not matched by the entry's patterns")
        if not ex.source.ref.strip():
            add("RC105", f"examples.{n} has no source")
    if not entry.sources:
        add("RC105", "no sources: record where the signature was observed")

    for field, text in (
        ("signature_zh", entry.signature_zh),
        ("root_cause_zh", entry.root_cause_zh),
    ):
        if not text:
            add("RC501", f"{field} is missing")
    for n, w in enumerate(entry.workarounds):
        if not w.action_zh:
            add("RC501", f"workarounds.{n}.action_zh is missing")
        if w.condition and not w.condition_zh:
            add("RC501", f"workarounds.{n}.condition_zh is missing")
    for n, d in enumerate(entry.dead_ends):
        if not d.why_fails_zh:
            add("RC501", f"dead_ends.{n}.why_fails_zh is missing")
    for field, text in _prose(entry):
        if TODO_MARK in text:
            add("RC901", f"{field} is still a TODO for a maintainer: write it in your own words")
    for field, text in (("signature_zh", entry.signature_zh), ("root_cause_zh", entry.root_cause_zh)):
        if text and not re.search(r"[\u4e00-\u9fff]", text):
            add("RC501", f"{field} has no Chinese characters")

    for n, v in enumerate(entry.versions):
        name = Requirement(v.requirement).name
        if HARDWARE_OR_OS.match(name):
            add("RC505", f"versions.{n}: {name!r} is hardware or an OS; use hardware/os_specific")

    rates = [("fix_rate", entry.fix_rate), ("confidence", entry.confidence)]
    rates += [(f"workarounds.{n}.success_rate", w.success_rate) for n, w in enumerate(entry.workarounds)]
    rates += [(f"dead_ends.{n}.fail_rate", d.fail_rate) for n, d in enumerate(entry.dead_ends)]
    for field, rate in rates:
        if rate is not None and rate.basis is Basis.ESTIMATE and round(rate.value * 20, 6) % 1:
            add("RC506", f"{field} = {rate.value} is an estimate with made-up precision")
    if entry.confidence and entry.confidence.value > 0.5 and entry.evidence.count < 5:
        add("RC507", f"confidence {entry.confidence.value:.0%} on evidence {entry.evidence.count}")

    work_vars: set[str] = set()
    work_cmds: set[str] = set()
    work_actions: set[str] = set()
    for n, w in enumerate(entry.workarounds):
        names = env_vars_in(w.how) | env_vars_in(w.action)
        for name in sorted(names - known_env):
            add("RC601", f"workarounds.{n} names {name}, which is not on the list of variables that are really read")
        work_vars |= names
        work_cmds |= _commands_in(w.how)
        work_actions.add(" ".join(w.action.lower().split()))
    for n, d in enumerate(entry.dead_ends):
        action = " ".join(d.action.lower().split())
        clash = (env_vars_in(d.action) & work_vars) or (_commands_in(d.action) & work_cmds)
        if action in work_actions:
            clash = {d.action}
        if clash:
            add("RC401", f"dead_ends.{n} repeats what a workaround recommends: {', '.join(sorted(clash))}")

    for r in entry.related:
        if r.id not in known_ids:
            add("RC701", f"related {r.id!r} does not exist")

    if entry.verification is Verification.VERIFIED and not any(
        rate is not None and rate.basis is Basis.MEASURED for _, rate in rates
    ):
        add("RC801", "verified needs rates measured from outcome reports")
    if entry.verification is Verification.REPRODUCED and not any(
        ex.source.kind is SourceKind.OUTPUT for ex in entry.examples
    ):
        add("RC801", "reproduced needs an example whose source is output produced by running the library")
    return out


def _related(entries: dict[str, tuple[Entry, str]], a: str, b: str) -> set[RelationType]:
    return {r.type for r in entries[a][0].related if r.id == b} | {r.type for r in entries[b][0].related if r.id == a}


def check_collisions(entries: dict[str, tuple[Entry, str]], index: CompiledIndex) -> list[LintFinding]:
    """Every example must be matched first by its own entry.

    For a generic entry's example, a specific entry must not come first, and the entry must be
    among the findings (a catch-all may legitimately sit beside another catch-all). Two entries
    whose patterns each match the other's examples must say how they relate (RC303).
    """
    out: list[LintFinding] = []
    matched_by: dict[str, set[str]] = {}
    for entry_id, (entry, path) in entries.items():
        for n, ex in enumerate(entry.examples):
            d = diagnose_text(ex.text, index)
            if entry.catch_all:  # not a known error: its examples are reported as unclassified exceptions
                if not d.unclassified:
                    out.append(LintFinding(path, "RC201", f"examples.{n} is not reported as an unclassified exception"))
                continue
            findings = [f for f in d.findings if f.matched_by == "pattern"]
            matched_by.setdefault(entry_id, set()).update(f.id for f in findings if f.id != entry_id)
            if not findings:  # RE2 matches it (RC103 passes) but the engine's prefilter let it through
                out.append(LintFinding(path, "RC201", f"examples.{n} is not found by the engine's pattern stage"))
                continue
            first = findings[0]
            if first.id != entry_id and grounded_link_first(entry, index.entries[first.id], findings):
                continue  # the ranking puts a linked grounded entry above an AI-generated one, by design
            if entry.generic:
                if not first.generic:
                    out.append(LintFinding(path, "RC201", f"examples.{n} is matched first by {first.id}"))
                elif entry_id not in {f.id for f in findings}:
                    out.append(LintFinding(path, "RC201", f"examples.{n} is not found among the findings"))
            elif first.id != entry_id:
                out.append(LintFinding(path, "RC201", f"examples.{n} is matched first by {first.id}"))
    for a, others in sorted(matched_by.items()):
        for b in sorted(others):
            if a < b and a in matched_by.get(b, set()) and not _related(entries, a, b):
                message = f"{a} and {b} match each other's examples; link them (related) or narrow a pattern"
                out.append(LintFinding(entries[a][1], "RC303", message))
    return out


def check_duplicates(entries: dict[str, tuple[Entry, str]]) -> list[LintFinding]:
    docs = [(eid, parameterise(e.signature)) for eid, (e, _) in entries.items()]
    lex = LexicalIndex.build(docs)
    out: list[LintFinding] = []
    seen: set[tuple[str, str]] = set()
    for entry_id, (entry, path) in entries.items():
        for other, sim in lex.search(entry.signature, limit=4):
            if other == entry_id or sim < SIMILAR:
                continue
            pair = (min(entry_id, other), max(entry_id, other))
            if pair in seen:
                continue
            seen.add(pair)
            relations = _related(entries, entry_id, other)
            if RelationType.SAME_AS in relations:
                out.append(LintFinding(path, "RC302", f"near-duplicate of {other} (same-as): merge?"))
            elif not relations:
                out.append(
                    LintFinding(
                        path,
                        "RC301",
                        f"signature is {sim:.0%} similar to {other}; merge them, or link them with "
                        "a typed relation (confused-with) if they are distinct errors",
                    )
                )
    return out


def _prose(entry: Entry) -> list[tuple[str, str]]:
    fields = [
        ("signature_zh", entry.signature_zh),
        ("root_cause", entry.root_cause),
        ("root_cause_zh", entry.root_cause_zh),
    ]
    for n, w in enumerate(entry.workarounds):
        fields += [(f"workarounds.{n}.action", w.action), (f"workarounds.{n}.how", w.how)]
    return [(f, t) for f, t in fields if t]


# The modules whose patterns clean every line of user input before matching (RC108).
NORMALISERS: dict[str, Mapping[str, object]] = {"src/rootcause/core/normalize.py": vars(normalize)}


def check_normalisers(modules: Mapping[str, Mapping[str, object]] = NORMALISERS) -> list[LintFinding]:
    """The canon's patterns must be linear-time (RC101); so must the code's own, which every line meets."""
    return [
        LintFinding(path, "RC108", f"{name}: {why}")
        for path, namespace in modules.items()
        for name, pattern in compiled_patterns(namespace)
        if (why := backtracking_risk(pattern)) is not None
    ]


def lint_entries(
    loaded: Iterable[tuple[Entry, str]],
    *,
    known_env: set[str],
    index: CompiledIndex | None = None,
    read_cited: CitedReader | None = None,
    reproducers: Mapping[str, list[Reproducer]] | None = None,
    atlas: AtlasBounds | None = None,
    names: NamesIndex | None = None,
    test_threads: frozenset[str] = frozenset(),
    undated_env: frozenset[str] = frozenset(),
) -> list[LintFinding]:
    """Lint parsed entries. ``reproducers`` (entry id -> what the adapter found) turns on RC802/RC803; ``atlas``
    (what the adapter read of the message atlas) turns on RC509-RC511; ``names`` (the names index of released
    packages) turns on RC602/RC603; ``test_threads`` (the corpus's test-split thread URLs, keyed by
    core/lint_split.thread_key) turns on RC110; ``undated_env`` (env vars the lists mark `dated: false`) are left out of
    RC602/RC603."""
    entries = {e.id: (e, path) for e, path in loaded}
    ids = set(entries)
    out: list[LintFinding] = []
    for entry, path in entries.values():
        out += check_entry(entry, path, known_env=known_env, known_ids=ids)
        out += check_bounds(entry, path)
        if read_cited is not None:
            out += check_cited_fixtures(entry, path, read_cited)
        out += [LintFinding(p, code, msg) for p, code, msg in check_test_split_sources(entry, path, test_threads)]
        if atlas is not None:
            out += [LintFinding(p, code, msg) for p, code, msg in check_atlas_bounds(entry, path, atlas)]
        if reproducers is not None:
            found = reproducers.get(entry.id, [])
            out += [LintFinding(path, code, msg) for code, msg in check_reproducers(entry, found)]
    if index is None:
        try:
            index = CompiledIndex([e for e, _ in entries.values()])
        except PatternError as exc:
            return [*out, LintFinding("<canon>", "RC101", str(exc))]
    out += check_collisions(entries, index)
    out += [
        LintFinding(
            entries[p.entry_id][1],
            "RC112",
            f"pattern {p.regex!r}: hyperscan misses it on its own examples after another line; no literal holds it",
        )
        for p in index.prefilter_blind
        if p.entry_id in entries
    ]
    out += [LintFinding(path, code, message) for path, code, message in check_first_sentence(entries, index)]
    out += check_duplicates(entries)
    out += [LintFinding(path, code, message) for path, code, message in check_linked_advice(entries)]
    out += check_normalisers()
    out += [
        LintFinding(path, code, message)
        for path, code, message in check_freshness(entries.values(), names or {}, undated_env)
    ]
    return sorted(out, key=lambda f: (f.path, f.code, f.message))
