"""Wordings of a canon entry's message that its patterns do not accept: a maintainer's list to triage by hand.

    PYTHONPATH=src python scripts/wording_gaps.py                    # a table on stdout
    PYTHONPATH=src python scripts/wording_gaps.py --json gaps.jsonl  # ... and one JSON object a gap

For each canon generation that names atlas templates (`atlas:` keys), and for each generation of a package the
atlas reads that names none (its templates are then found by the entry's longest pattern literal, 20 characters
or more), the *related* templates of the same package are those that

- come from the same module and function and share with an anchor a literal run of 12 characters or a half of
  their words (a rewording at another release, or a sibling raised next to it), or
- have the same exception class (warning category, log level) and share a literal run of 25 characters or more
  (the same message raised elsewhere), unless more than 8 templates share that same run with the anchor (a stock
  phrase: `INTERNAL ASSERT FAILED at`, `is deprecated and will be removed`) or the anchor shares runs with over 30,

and whose release intervals or module differ from the anchor's. Each related template's message is filled with
plausible values (`2`, `foo`, typed, and each value the entry's examples print in a named group or an anchor's
placeholder) and searched, bare and after `Exception: `, with the entry's RE2 patterns; a template that no filling
matches is a gap. A linked template that the patterns do not match is a gap too (a pattern that wants a value no
example shows). Each gap says which other entry's patterns match the template, if any (then it is most likely that
entry's message). The list is for a maintainer to triage: a same-function sibling is often another failure.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

PLACEHOLDER = re.compile(
    r"%%|\{\{|\}\}|\{[^{}]*\}|%(?:\([^)]*\))?[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|z|j|t|L|q)?"
    r"[diouxXeEfFgGcrsap]"
)
_ESCAPED = {"%%": "%", "{{": "{", "}}": "}"}
BLOCK = 13  # a shared run of 2 * BLOCK - 1 characters holds an aligned block of this length
MIN_SHARED = 2 * BLOCK - 1  # 25
MAX_COMMON = 8  # a run that more templates share with one anchor is a stock phrase ("... is deprecated and")
MAX_RELATED = 30  # an anchor sharing runs with more templates holds a stock phrase in varied forms
MIN_SHARED_SAME_FUNCTION = 12
MIN_WORD_SHARE = 0.5
MIN_ENTRY_LITERAL = 20
MAX_VALUES = 16
_WORD = re.compile(r"[A-Za-z]{3,}")
_LOG_LEVELS = {"DEBUG", "INFO", "WARN", "WARNING", "ERROR", "CRITICAL", "FATAL", "EXCEPTION"}


def literal_runs(message: str) -> list[str]:
    """The message's literal runs between placeholders (`{x}`, `%s`, `%(n)d`, `%zu`); `%%`, `{{` are literal."""
    runs: list[str] = []
    current: list[str] = []
    pos = 0
    for m in PLACEHOLDER.finditer(message):
        current.append(message[pos : m.start()])
        if m.group() in _ESCAPED:
            current.append(_ESCAPED[m.group()])
        else:
            runs.append("".join(current))
            current = []
        pos = m.end()
    current.append(message[pos:])
    runs.append("".join(current))
    return [r for r in runs if r.strip()]


def _typed(spec: str) -> str:
    conv = spec[-1]
    if spec.startswith("{") or conv in "sraSc":
        return "foo"
    if conv in "eEfFgG":
        return "1.5"
    if conv == "p":
        return "0x7f0000000000"
    return "2"


def fillings(message: str, values: Sequence[str] = ()) -> list[str]:
    """The message with every placeholder filled: all `2`, all `foo`, by conversion type (`%d` a number), and all
    with each of `values` (what the entry's examples print there)."""
    out: list[str] = []
    for fill in ("2", "foo", None, *values):

        def sub(m: re.Match[str], fill: str | None = fill) -> str:
            text = m.group()
            if text in _ESCAPED:
                return _ESCAPED[text]
            return fill if fill is not None else _typed(text)

        filled = PLACEHOLDER.sub(sub, message)
        if filled not in out:
            out.append(filled)
    return out


def shown(message: str, exception: str, values: Sequence[str] = ()) -> list[str]:
    """Each filling bare, and after `Exception: ` where the template has an exception class or category."""
    texts = fillings(message, values)
    if exception and exception.upper() not in _LOG_LEVELS:
        texts += [f"{exception}: {t}" for t in texts]
    return texts


def regex_literals(regex: str) -> list[str]:
    """The literal runs of an RE2 pattern (a rough reading: escapes kept, classes, groups and quantifiers cut)."""
    runs: list[str] = []
    cur: list[str] = []
    i = 0
    while i < len(regex):
        c = regex[i]
        if c == "\\" and i + 1 < len(regex):
            nxt = regex[i + 1]
            if nxt.isalnum():
                runs.append("".join(cur))
                cur = []
            else:
                cur.append(nxt)
            i += 2
            continue
        if c in "?*{" and cur:  # the character before is optional or repeated
            cur.pop()
        if c in ".*+?()[]{}|^$":
            runs.append("".join(cur))
            cur = []
            if c == "[":
                close = regex.find("]", i + 2)
                i = close if close > 0 else i
            elif c == "{":
                close = regex.find("}", i)
                i = close if close > 0 else i
            elif c == "(" and regex.startswith("(?", i):
                close = regex.find(">", i) if regex.startswith("(?P<", i) else regex.find(":", i)
                i = close if close > 0 else i
        else:
            cur.append(c)
        i += 1
    runs.append("".join(cur))
    return [r for r in runs if r.strip()]


def longest_shared(a: Sequence[str], b: Sequence[str]) -> str:
    """The longest literal text two messages' literal runs share."""
    best = ""
    for x in a:
        for y in b:
            if min(len(x), len(y)) <= len(best):
                continue
            m = SequenceMatcher(None, x, y, autojunk=False).find_longest_match(0, len(x), 0, len(y))
            if m.size > len(best):
                best = x[m.a : m.a + m.size]
    return best


def word_share(a: str, b: str) -> float:
    wa, wb = set(_WORD.findall(a.lower())), set(_WORD.findall(b.lower()))
    return len(wa & wb) / len(wa | wb) if wa and wb else 0.0


@dataclass(frozen=True)
class Row:
    key: str
    package: str
    module: str
    function: str
    line: int
    exception: str
    kind: str
    message: str
    intervals: tuple[tuple[str, str], ...]
    source_url: str
    pattern: str = ""

    @property
    def runs(self) -> list[str]:
        return literal_runs(self.message)


@dataclass
class Gap:
    entry: str
    path: str
    generation: int
    generation_versions: str
    anchor: str  # the key of the template it is related to (or 'literal:<text>')
    anchor_intervals: list[tuple[str, str]]
    relation: str  # linked-unmatched | same-function | shared-run | by-literal
    key: str
    message: str
    exception: str
    intervals: list[tuple[str, str]]
    where: str  # module:line
    source_url: str
    current: bool  # the newest release read still prints it
    matched_by: list[str] = field(default_factory=list)  # other entries whose patterns accept it


class Related:
    """Templates grouped by package and function, and by blocks of their literal runs."""

    def __init__(self, rows: Iterable[Row]):
        self.rows = list(rows)
        self.by_function: dict[tuple[str, str, str], list[Row]] = defaultdict(list)
        self.by_package: dict[str, list[Row]] = defaultdict(list)
        for r in self.rows:
            if r.function:
                self.by_function[(r.package, r.module, r.function)].append(r)
            self.by_package[r.package].append(r)

    def shared_run(self, anchors: Sequence[Row]) -> dict[str, set[str]]:
        """anchor key -> keys of same-package, same-exception templates sharing a run of MIN_SHARED or more."""
        windows: dict[tuple[str, str], set[str]] = defaultdict(set)
        for a in anchors:
            for run in a.runs:
                for i in range(len(run) - BLOCK + 1):
                    windows[(a.package, run[i : i + BLOCK])].add(a.key)
        by_key = {a.key: a for a in anchors}
        packages = {a.package for a in anchors}
        by_run: dict[tuple[str, str], set[str]] = defaultdict(set)  # (anchor, the run shared) -> templates
        for r in self.rows:
            if r.package not in packages:
                continue
            hits: set[str] = set()
            for run in r.runs:
                for i in range(0, len(run) - BLOCK + 1, BLOCK):
                    hits |= windows.get((r.package, run[i : i + BLOCK]), set())
            for k in hits:
                a = by_key[k]
                if r.key != k and r.exception == a.exception:
                    run = longest_shared(a.runs, r.runs)
                    if len(run) >= MIN_SHARED:
                        by_run[(k, run)].add(r.key)
        out: dict[str, set[str]] = defaultdict(set)
        for (k, _), keys in by_run.items():
            if len(keys) <= MAX_COMMON:
                out[k] |= keys
        return {k: keys for k, keys in out.items() if len(keys) <= MAX_RELATED}

    def same_function(self, anchor: Row) -> list[Row]:
        if not anchor.function:
            return []
        return [
            r
            for r in self.by_function[(anchor.package, anchor.module, anchor.function)]
            if r.key != anchor.key
            and (
                len(longest_shared(anchor.runs, r.runs)) >= MIN_SHARED_SAME_FUNCTION
                or word_share(anchor.message, r.message) >= MIN_WORD_SHARE
            )
        ]


def load_rows(path: Path) -> tuple[list[Row], dict[str, str]]:
    """Every template of the atlas, and each package's newest release read."""
    from rootcause.adapters.atlas.store import load_manifest, load_templates
    from rootcause.core.atlas.bounds import template_key

    manifest = load_manifest(path)
    newest = {p: rel[-1] for p, rel in manifest.packages.items() if rel}
    rows = [
        Row(
            template_key(t.package, t.kind.value, t.exception, t.pattern),
            t.package,
            t.module,
            t.function,
            t.line,
            t.exception,
            t.kind.value,
            t.message,
            tuple((r.first, r.last) for r in t.releases),
            t.source_url,
            t.pattern,
        )
        for t in load_templates(path)
    ]
    return rows, newest


def example_values(entry: Any, compiled: Sequence[Any], anchors: Sequence[Row]) -> list[str]:
    """What the entry's examples print in the placeholders: the named groups of its patterns and the captures of its
    anchors' atlas patterns, over each example line (at most MAX_VALUES, each under 80 characters)."""
    import re2

    options = re2.Options()
    options.max_mem = 64 << 20
    regexes = list(compiled)
    for a in anchors:
        try:
            regexes.append(re2.compile(a.pattern, options))
        except re2.error:
            continue
    values: list[str] = []
    for example in entry.examples:
        for line in example.text.splitlines():
            for rx in regexes:
                m = rx.search(line)
                for v in m.groupdict().values() if m else ():
                    v = (v or "").strip()
                    if v and len(v) < 80 and v not in values:
                        values.append(v)
    return values[:MAX_VALUES]


def _matches(compiled: Sequence[Any], texts: Sequence[str]) -> bool:
    return any(rx.search(t) for rx in compiled for t in texts)


def find_gaps(canon: Sequence[Any], rows: Sequence[Row], newest: dict[str, str]) -> list[Gap]:
    """`canon`: LoadedEntry objects (entry, path)."""
    from rootcause.core.matching.patterns import compile_re2

    related = Related(rows)
    by_key = {r.key: r for r in rows}
    compiled = {le.entry.id: [compile_re2(p.regex) for p in le.entry.patterns] for le in canon}
    anchors_of: list[tuple[Any, int, Row, str]] = []  # (loaded, generation index, anchor, relation of anchor)
    for le in canon:
        longest = max((s for p in le.entry.patterns for s in regex_literals(p.regex)), key=len, default="")
        for gi, g in enumerate(le.entry.generations):
            if g.atlas:
                anchors_of += [(le, gi, by_key[k], "linked") for k in g.atlas if k in by_key]
            elif g.package in newest and len(longest) >= MIN_ENTRY_LITERAL:
                found = [r for r in related.by_package[g.package] if any(longest in run for run in r.runs)]
                anchors_of += [(le, gi, r, "by-literal") for r in found[:20]]
    shared = related.shared_run(list({a.key: a for _, _, a, _ in anchors_of}.values()))
    gaps: list[Gap] = []
    seen: set[tuple[str, str]] = set()
    anchors_by_entry: dict[str, list[Row]] = defaultdict(list)
    for le, _, anchor, _ in anchors_of:
        anchors_by_entry[le.entry.id].append(anchor)
    values = {
        le.entry.id: example_values(le.entry, compiled[le.entry.id], anchors_by_entry[le.entry.id]) for le in canon
    }
    for le, gi, anchor, how in anchors_of:
        entry = le.entry
        linked = {k for g in entry.generations for k in g.atlas}
        cands: list[tuple[Row, str]] = [(anchor, "linked-unmatched" if how == "linked" else how)]
        cands += [(r, "same-function") for r in related.same_function(anchor)]
        cands += [(by_key[k], "shared-run") for k in sorted(shared.get(anchor.key, ()))]
        for r, relation in cands:
            if (entry.id, r.key) in seen:
                continue
            elsewhere = r.intervals != anchor.intervals or r.module != anchor.module
            if relation in ("same-function", "shared-run") and (r.key in linked or not elsewhere):
                continue
            texts = shown(r.message, r.exception)
            if _matches(compiled[entry.id], shown(r.message, r.exception, values[entry.id])):
                continue
            seen.add((entry.id, r.key))
            others = [i for i, c in compiled.items() if i != entry.id and _matches(c, texts)]
            g = entry.generations[gi]
            gaps.append(
                Gap(
                    entry=entry.id,
                    path=le.path,
                    generation=gi,
                    generation_versions=g.versions,
                    anchor=anchor.key,
                    anchor_intervals=list(anchor.intervals),
                    relation=relation,
                    key=r.key,
                    message=r.message,
                    exception=r.exception,
                    intervals=list(r.intervals),
                    where=f"{r.module}:{r.line}",
                    source_url=r.source_url,
                    current=bool(r.intervals) and r.intervals[-1][1] == newest.get(r.package),
                    matched_by=others,
                )
            )
    return gaps


def _span(intervals: Sequence[Sequence[str]]) -> str:
    return ",".join(f"{a}..{b}" for a, b in intervals)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--atlas", type=Path, help="the atlas (default: the shipped one)")
    ap.add_argument("--json", type=Path, help="also write the gaps here, one JSON object a line")
    ap.add_argument("--entry", action="append", default=[], help="only these entry ids (repeatable)")
    ap.add_argument("--all", action="store_true", help="also list gaps that another entry's patterns accept")
    args = ap.parse_args(argv)
    from rootcause.adapters.atlas.store import default_atlas_path
    from rootcause.adapters.canon_files import load_canon

    path = args.atlas or default_atlas_path()
    if path is None:
        print("wording_gaps: no atlas", file=sys.stderr)
        return 2
    rows, newest = load_rows(Path(path))
    canon = [le for le in load_canon() if not args.entry or le.entry.id in args.entry]
    gaps = find_gaps(canon, rows, newest)
    if args.json:
        args.json.write_text("".join(json.dumps(asdict(g)) + "\n" for g in gaps), encoding="utf-8")
    for g in gaps:
        if g.matched_by and not args.all:
            continue
        print(
            f"{g.entry} gen{g.generation} [{g.generation_versions}] {g.relation} {g.key} "
            f"{_span(g.intervals)}{' current' if g.current else ''} {g.where}\n    {g.exception}: {g.message[:200]}"
        )
    own = sum(1 for g in gaps if not g.matched_by)
    print(f"{len(gaps)} gaps ({own} that no other entry accepts) in {len({g.entry for g in gaps})} entries")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
