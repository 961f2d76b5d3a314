"""Reach on real traffic: score rootcause on the corpus of real pastes (docs/corpus.md).

    python bench/coverage.py [CORPUS]                  # text tables, per split, repository and domain
    python bench/coverage.py CORPUS --json             # the same figures as JSON
    python bench/coverage.py CORPUS --show wrong       # the cases behind a figure (dev only): wrong | missed | negatives
    python bench/coverage.py CORPUS --show located --atlas PATH   # the dev cases located, with the package named
    python bench/coverage.py CORPUS --lexical-curve    # precision and recall of the lexical stage per threshold, dev
    python bench/coverage.py CORPUS --before /work/main/src   # the same scorer on another checkout's engine, same run

Each paste goes through the same in-process diagnosis as ``rootcause diagnose`` (the shipped canon, its compiled
index). The answer to a paste is its **first claim**: the first finding that names a known error. A catch-all
(``pytorch/python-exception-generic``) is not a claim, nor is any finding matched other than by a pattern or the
lexical stage (nearest candidates never are). Figures, for each group of cases:

- coverage: positives with an expected entry / all positives;
- top-1: covered positives whose first claim is in ``expected`` / covered positives;
- right: covered positives answered right plus uncovered positives with no claim / all positives;
- wrong claims: positives whose first claim is not in ``expected`` / all positives; ``of which family``: those
  whose claim is a family entry's (it names the class of the message, ``cannot import name``, and its common
  causes, not one cause; docs/ranking.md); and, as counts, those the lexical stage made and those on uncovered
  positives (the rest name another entry than the one expected);
- honest abstention: uncovered positives with no claim / uncovered positives;
- negative abstention: negatives with no claim / negatives;
- located (with an atlas: `--atlas PATH`, ROOTCAUSE_ATLAS or the shipped one): uncovered positives with at least
  one line located in the message atlas / uncovered positives; the same over the positives the engine abstained
  on; and the number of negatives with a located line (it must be 0).

A case without a ``split`` counts as ``dev`` (the corpus is split once, by ``corpus/split.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

CLAIMING = ("pattern", "lexical")
SPLITS = ("dev", "test")


@dataclass(frozen=True)
class Case:
    id: str
    repo: str
    kind: str  # positive | negative
    expected: tuple[str, ...]
    split: str
    paste: str
    domain: str  # of the first expected entry; "none" when uncovered, "negative" for negatives


@dataclass(frozen=True)
class Answer:
    """What the engine answered: the first claim (None when it abstained) and every finding's id."""

    claim: str | None
    findings: tuple[str, ...] = ()
    claimed_by: str | None = None  # pattern | lexical
    located: tuple[str, ...] = ()  # "package: module (line N)" of each located line
    by_family: bool = False  # the claim is a family entry's (docs/ranking.md): the class, not one cause


@dataclass
class Tally:
    positives: int = 0
    covered: int = 0
    top1: int = 0
    wrong: int = 0
    wrong_family: int = 0
    wrong_lexical: int = 0  # wrong claims made by the lexical stage (the rest by a pattern)
    wrong_uncovered: int = 0  # wrong claims on positives no entry covers (the rest name another entry than expected)
    honest: int = 0
    negatives: int = 0
    neg_abstained: int = 0
    uncovered_located: int = 0
    abstained: int = 0
    abstained_located: int = 0
    neg_located: int = 0

    def add(self, case: Case, answer: Answer) -> None:
        if case.kind == "negative":
            self.negatives += 1
            self.neg_abstained += answer.claim is None
            self.neg_located += bool(answer.located)
            return
        self.positives += 1
        if answer.claim is None:
            self.abstained += 1
            self.abstained_located += bool(answer.located)
        if case.expected:
            self.covered += 1
            self.top1 += answer.claim in case.expected
        else:
            self.honest += answer.claim is None
            self.uncovered_located += bool(answer.located)
        wrong = answer.claim is not None and answer.claim not in case.expected
        self.wrong += wrong
        self.wrong_family += wrong and answer.by_family
        self.wrong_lexical += wrong and answer.claimed_by == "lexical"
        self.wrong_uncovered += wrong and not case.expected

    def figures(self) -> dict[str, Any]:
        def ratio(a: int, b: int) -> float | None:
            return round(a / b, 4) if b else None

        uncovered = self.positives - self.covered
        return {
            "positives": self.positives,
            "covered": self.covered,
            "negatives": self.negatives,
            "coverage": ratio(self.covered, self.positives),
            "top1_on_covered": ratio(self.top1, self.covered),
            "right_of_positives": ratio(self.top1 + self.honest, self.positives),
            "wrong_claims_of_positives": ratio(self.wrong, self.positives),
            "wrong_family_claims_of_positives": ratio(self.wrong_family, self.positives),
            "wrong_lexical_claims": self.wrong_lexical,
            "wrong_claims_on_uncovered": self.wrong_uncovered,
            "honest_abstention": ratio(self.honest, uncovered),
            "negative_abstention": ratio(self.neg_abstained, self.negatives),
            "located_of_uncovered": ratio(self.uncovered_located, uncovered),
            "located_of_abstained": ratio(self.abstained_located, self.abstained),
            "negatives_located": self.neg_located,
        }


@dataclass
class Report:
    by_split: dict[str, Tally] = field(default_factory=dict)
    by_repo: dict[str, dict[str, Tally]] = field(default_factory=dict)
    by_domain: dict[str, dict[str, Tally]] = field(default_factory=dict)

    def figures(self) -> dict[str, Any]:
        def group(tallies: dict[str, dict[str, Tally]]) -> dict[str, Any]:
            return {s: {k: t.figures() for k, t in sorted(d.items())} for s, d in sorted(tallies.items())}

        return {
            "by_split": {s: t.figures() for s, t in sorted(self.by_split.items())},
            "by_repo": group(self.by_repo),
            "by_domain": group(self.by_domain),
        }


def score(cases: Iterable[Case], answers: dict[str, Answer]) -> Report:
    """Tally each case's answer by split, by repository and by domain."""
    report = Report()
    for case in cases:
        answer = answers[case.id]
        for split in (case.split, "all"):
            report.by_split.setdefault(split, Tally()).add(case, answer)
            report.by_repo.setdefault(split, {}).setdefault(case.repo, Tally()).add(case, answer)
            report.by_domain.setdefault(split, {}).setdefault(case.domain, Tally()).add(case, answer)
    return report


# -- the corpus ---------------------------------------------------------------------------------------------------
class _UniqueKeys(yaml.SafeLoader):
    """YAML that refuses a key given twice in one mapping (plain YAML keeps the last one silently: a second
    ``note:`` written by another reader would drop the first)."""


def _mapping_without_repeats(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> Any:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise SystemExit(f"line {node.start_mark.line + 1}: key {key!r} appears twice in one case")
        seen.add(key)
    return loader.construct_mapping(node, deep)


_UniqueKeys.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_repeats)


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_UniqueKeys)
    except SystemExit as exc:
        raise SystemExit(f"{path}: {exc}") from None


def load_corpus(root: Path) -> list[Case]:
    """Every case of ``root/cases/*.yaml`` and ``root/negatives/*.yaml``; a file that is not a list is refused."""
    cases: list[Case] = []
    seen: set[str] = set()
    for folder, default_kind in (("cases", "positive"), ("negatives", "negative")):
        for path in sorted((root / folder).glob("*.yaml")):
            items = _read_yaml(path) or []
            if not isinstance(items, list):
                raise SystemExit(f"{path}: a corpus file holds a YAML list of cases")
            for n, item in enumerate(items):
                case = _case(item, default_kind, f"{path}: item {n}")
                if case.kind == "negative":  # grouped by the stack they come from, not by their many repositories
                    case = replace(case, repo=f"negatives: {path.stem}")
                if case.id in seen:
                    raise SystemExit(f"{path}: item {n}: id {case.id!r} appears twice")
                seen.add(case.id)
                cases.append(case)
    return cases


def _case(item: Any, default_kind: str, where: str) -> Case:
    if not isinstance(item, dict):
        raise SystemExit(f"{where}: a case is a mapping")
    for key in ("id", "paste"):
        if not isinstance(item.get(key), str) or not item[key]:
            raise SystemExit(f"{where}: field {key!r} is missing or not text")
    kind = item.get("kind") or default_kind
    expected = tuple(item.get("expected") or ())
    if kind == "negative" and expected:
        raise SystemExit(f"{where}: field 'expected' of a negative must be []")
    split = item.get("split") or "dev"
    if split not in SPLITS:
        raise SystemExit(f"{where}: field 'split' is {split!r}, not dev or test")
    domain = "negative" if kind == "negative" else expected[0].split("/")[0] if expected else "none"
    return Case(item["id"], str(item.get("repo") or "?"), kind, expected, split, item["paste"], domain)


# -- the engine ---------------------------------------------------------------------------------------------------
def engine(atlas_file: str | None = None) -> Callable[[str], Answer]:
    """The in-process diagnosis of ``rootcause diagnose`` on one pasted text (the located tier on where an atlas
    is there: ``atlas_file``, ROOTCAUSE_ATLAS or the shipped one)."""
    try:
        from rootcause.adapters.atlas.held import atlas_loader
    except ImportError:  # an engine from before the located tier (--before)
        atlas = None
    else:
        atlas = atlas_loader(atlas_file)
    try:
        from rootcause.adapters.atlas.names_held import names_loader
    except ImportError:  # an engine from before the import check (--before)
        names = None
    else:
        names = names_loader()
    from rootcause.adapters.loading import load_index
    from rootcause.core.diagnosis import SourceInput, diagnose_sources
    from rootcause.core.matching.scan import iter_text_chunks

    index = load_index()

    def answer(paste: str) -> Answer:
        sources = [SourceInput("<paste>", iter_text_chunks(paste))]
        extra = {"atlas": atlas} if atlas else {}
        d = (
            diagnose_sources(sources, index, **extra, names=names)
            if names
            else diagnose_sources(sources, index, **extra)
        )
        claims = [f for f in d.findings if f.matched_by in CLAIMING and not index.entries[f.id].catch_all]
        if not d.matched:
            claims = []  # the engine says no known error matched (a wrapper around an unknown error)
        first = claims[0] if claims else None
        located = tuple(
            f"{item.package}: {item.module} (line {item.line}: {item.text[:100]})" for item in getattr(d, "located", ())
        )
        by_family = bool(first) and getattr(index.entries[first.id], "family", False)  # older engines: no families
        return Answer(
            first.id if first else None,
            tuple(f.id for f in d.findings),
            first.matched_by if first else None,
            located,
            by_family,
        )

    return answer


def answer_all(cases: list[Case], atlas_file: str | None = None) -> dict[str, Answer]:
    run = engine(atlas_file)
    return {case.id: run(case.paste) for case in cases}


# -- the lexical curve ---------------------------------------------------------------------------------------------
def lexical_curve(cases: list[Case], thresholds: list[float], floor: float) -> list[dict[str, float]]:
    """Run once with the lexical threshold at ``floor``, keeping each lexical finding's score; then, for each
    threshold, drop the lexical findings below it and take the first claim left. Ordering among findings does
    not depend on the threshold (pattern before lexical), so one run serves every threshold; a lexical finding's
    first line is where it first passed ``floor``, a near approximation for higher thresholds."""
    import rootcause.core.diagnosis as diagnosis
    from rootcause.adapters.loading import load_index

    index = load_index()
    saved = diagnosis.LEXICAL_THRESHOLD
    diagnosis.LEXICAL_THRESHOLD = floor
    try:
        runs = []
        for case in cases:
            d = diagnosis.diagnose_text(case.paste, index)
            if not d.matched and d.findings:  # a wrapper around an unknown error: the engine claims nothing
                runs.append((case, []))
                continue
            runs.append(
                (
                    case,
                    [
                        (f.id, f.matched_by, f.score)
                        for f in d.findings
                        if f.matched_by in CLAIMING and not index.entries[f.id].catch_all
                    ],
                )
            )
    finally:
        diagnosis.LEXICAL_THRESHOLD = saved
    curve = []
    covered = sum(1 for case in cases if case.expected)
    for t in thresholds:
        answers = {}
        lexical_right = lexical_claims = 0
        for case, found in runs:
            kept = [(i, by) for i, by, s in found if by == "pattern" or s >= t]
            claim, by = kept[0] if kept else (None, None)
            answers[case.id] = Answer(claim)
            if by == "lexical":
                lexical_claims += 1
                lexical_right += claim in case.expected
        fig = score(cases, answers).by_split["all"].figures()
        claims = sum(a.claim is not None for a in answers.values())
        right = sum(a.claim in c.expected for c, a in ((c, answers[c.id]) for c in cases) if a.claim is not None)
        curve.append(
            {
                "threshold": t,
                "precision": round(right / claims, 4) if claims else 1.0,
                "recall": round(right / covered, 4) if covered else 0.0,
                "lexical_claims": lexical_claims,
                "lexical_precision": round(lexical_right / lexical_claims, 4) if lexical_claims else 1.0,
                "wrong_claims_of_positives": fig["wrong_claims_of_positives"],
                "negative_abstention": fig["negative_abstention"],
            }
        )
    return curve


# -- output --------------------------------------------------------------------------------------------------------
COLUMNS = [
    ("positives", "pos"),
    ("coverage", "coverage"),
    ("top1_on_covered", "top-1"),
    ("right_of_positives", "right"),
    ("wrong_claims_of_positives", "wrong"),
    ("wrong_family_claims_of_positives", "of which family"),
    ("wrong_lexical_claims", "wrong: lexical"),
    ("wrong_claims_on_uncovered", "wrong: on uncovered"),
    ("honest_abstention", "honest"),
    ("negatives", "neg"),
    ("negative_abstention", "neg abst"),
    ("located_of_uncovered", "located unc"),
    ("located_of_abstained", "located abst"),
    ("negatives_located", "neg located"),
]


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def table(title: str, rows: dict[str, dict[str, Any]], key: str) -> str:
    header = [key] + [label for _, label in COLUMNS]
    body = [[name] + [_cell(fig[c]) for c, _ in COLUMNS] for name, fig in rows.items()]
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    lines = [f"## {title}", "", "| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |"]
    lines.append("|" + "|".join("-" * (w + 1) + (":" if i else "-") for i, w in enumerate(widths)) + "|")
    lines += ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |" for r in body]
    return "\n".join(lines) + "\n"


def render(figures: dict[str, Any], label: str = "") -> str:
    suffix = f" ({label})" if label else ""
    out = [table(f"by split{suffix}", figures["by_split"], "split")]
    for split in [s for s in ("dev", "test") if s in figures["by_repo"]]:
        out.append(table(f"{split}: by repository{suffix}", figures["by_repo"][split], "repository"))
        out.append(table(f"{split}: by domain{suffix}", figures["by_domain"][split], "domain"))
    return "\n".join(out)


def show(cases: list[Case], answers: dict[str, Answer], what: str) -> str:
    lines = []
    for case in cases:
        if case.split != "dev":
            continue  # test cases are scored, never looked at
        a = answers[case.id]
        wrong = case.kind == "positive" and a.claim is not None and a.claim not in case.expected
        missed = case.kind == "positive" and bool(case.expected) and a.claim is None
        claimed_negative = case.kind == "negative" and (a.claim is not None or bool(a.located))
        located = case.kind == "positive" and a.claim is None and bool(a.located)
        if {"wrong": wrong, "missed": missed, "negatives": claimed_negative, "located": located}[what]:
            head = case.paste.strip().splitlines()[:3]
            got = f"{a.claim} by {a.claimed_by}" if a.claim else "nothing"
            lines.append(f"{case.id}: expected {list(case.expected)} got {got} (all {list(a.findings)})")
            lines += [f"    {h[:160]}" for h in head]
            lines += [f"    located: {x}" for x in a.located]
    return "\n".join(lines) + "\n"


def _run_other(src: str, corpus: Path) -> dict[str, Any]:
    """This scorer, run on another checkout's engine (its ``src``) in a child process."""
    env = {**os.environ, "PYTHONPATH": src, "ROOTCAUSE_NO_CACHE": "1"}
    out = subprocess.run(
        [sys.executable, __file__, str(corpus), "--json"], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", nargs="?", default="corpus", type=Path)
    parser.add_argument("--json", action="store_true", help="figures as JSON")
    parser.add_argument(
        "--show", choices=["wrong", "missed", "negatives", "located"], help="list dev cases behind a figure"
    )
    parser.add_argument("--atlas", metavar="PATH", help="the message atlas (default: ROOTCAUSE_ATLAS, else shipped)")
    parser.add_argument("--lexical-curve", action="store_true", help="sweep the lexical threshold on dev")
    parser.add_argument("--before", metavar="SRC", help="also score another checkout's engine (its src folder)")
    args = parser.parse_args(argv)
    cases = load_corpus(args.corpus)
    if not cases:
        raise SystemExit(f"{args.corpus}: no cases (cases/*.yaml, negatives/*.yaml)")
    if args.lexical_curve:
        dev = [c for c in cases if c.split == "dev"]
        thresholds = [round(0.40 + 0.025 * i, 3) for i in range(17)]
        curve = lexical_curve(dev, thresholds, floor=thresholds[0])
        if args.json:
            print(json.dumps(curve, indent=2))
        else:
            print("| threshold | precision | recall | lexical claims | lexical precision | wrong | neg abst |")
            print("|---:|---:|---:|---:|---:|---:|---:|")
            for row in curve:
                print(
                    f"| {row['threshold']:.3f} | {row['precision']:.3f} | {row['recall']:.3f} | "
                    f"{row['lexical_claims']} | {row['lexical_precision']:.3f} | "
                    f"{_cell(row['wrong_claims_of_positives'])} | {_cell(row['negative_abstention'])} |"
                )
        return 0
    answers = answer_all(cases, args.atlas)
    if args.show:
        sys.stdout.write(show(cases, answers, args.show))
        return 0
    figures = score(cases, answers).figures()
    before = _run_other(args.before, args.corpus) if args.before else None
    if args.json:
        print(json.dumps({"after": figures, "before": before} if before else figures, indent=2))
    else:
        if before:
            print(render(before, "before"))
        print(render(figures, "this checkout" if before else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
