"""Triage on every real capture (tests/fixtures/triage-real), beside torchrun's own "Root Cause".

    python bench/triage_real.py                  # the table (Markdown) on stdout
    python bench/triage_real.py --append-readme  # also write it to bench/README.md ("Triage on real jobs")

Each capture is a real torchrun job (torch 2.13 CPU, Gloo) whose guilty ranks are known (MANIFEST.yaml,
MODES.yaml). For each one: what `rootcause triage` concludes on the capture's folder (per-rank logs, the
--tee console, the Flight Recorder dumps, whichever the capture has), and which rank torchrun's failure
report names as "Root Cause (first observed failure)" (the earliest of the agents' reports with two agents).
A verdict is *right* when it names exactly the guilty ranks, *undecided, guilty first* when it names none
but lists them first, and *WRONG* when it names an innocent rank.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "tests" / "fixtures" / "triage-real"
HEADER = "## Triage on real jobs"
_ROOT_CAUSE = re.compile(r"Root Cause \(first observed failure\):")
_FIELD = re.compile(r"^\s*(time|rank)\s*:\s*(\S+)")


@dataclass
class Run:
    path: str
    guilty: list[int]
    world: int


def runs() -> list[Run]:
    old = yaml.safe_load((REAL / "MANIFEST.yaml").read_text(encoding="utf-8"))
    found = [Run(f"{c['case']}/{v['name']}", [c["guilty_rank"]], 4) for c in old["cases"] for v in c["variants"]]
    modes = yaml.safe_load((REAL / "MODES.yaml").read_text(encoding="utf-8"))
    found += [Run(r["path"], r["guilty_ranks"], r["world_size"]) for r in modes["runs"]]
    return found


def torchrun_root_cause(folder: Path) -> list[int]:
    """The rank(s) torchrun's failure report calls the root cause: the earliest report when there are several."""
    reports: list[tuple[str, int]] = []
    for console in sorted(folder.rglob("console.log")):
        lines = console.read_text(encoding="utf-8", errors="replace").splitlines()
        for n, line in enumerate(lines):
            if not _ROOT_CAUSE.search(line):
                continue
            fields: dict[str, str] = {}
            for follow in lines[n + 1 : n + 8]:
                m = _FIELD.match(follow)
                if m:
                    fields.setdefault(m.group(1), m.group(2))
            if "rank" in fields and fields["rank"].isdigit():
                reports.append((fields.get("time", ""), int(fields["rank"])))
    if not reports:
        return []
    first = min(t for t, _ in reports)
    return sorted({r for t, r in reports if t == first})


def judge(kind: str, guilty: list[int], candidates: list[int], truth: list[int]) -> str:
    if kind != "undecided":
        if sorted(guilty) == sorted(truth):
            return "right"
        return "WRONG" if set(guilty) - set(truth) else "partial"
    return "undecided, guilty first" if candidates[: len(truth)] == sorted(truth) else "undecided"


def judge_torchrun(named: list[int], truth: list[int]) -> str:
    if not named:
        return "no report"
    return "right" if sorted(named) == sorted(truth) else "WRONG"


def table() -> tuple[list[str], dict[str, int]]:
    sys.path.insert(0, str(ROOT / "tests" / "triage"))
    from triage_support import triage_paths

    rows = [
        "| capture | ranks | guilty | rootcause triage | verdict | torchrun Root Cause | verdict |",
        "|---|---:|---|---|---|---|---|",
    ]
    tally: dict[str, int] = {}
    for run in runs():
        folder = REAL / run.path
        c = triage_paths(folder).conclusion
        ours = judge(c.kind, c.guilty_ranks, c.candidates, run.guilty)
        named = torchrun_root_cause(folder)
        theirs = judge_torchrun(named, run.guilty)
        said = f"{c.kind} {c.guilty_ranks}" if c.kind != "undecided" else f"undecided, candidates {c.candidates}"
        rows.append(f"| {run.path} | {run.world} | {run.guilty} | {said} | {ours} | {named or '—'} | {theirs} |")
        tally[f"rootcause {ours}"] = tally.get(f"rootcause {ours}", 0) + 1
        tally[f"torchrun {theirs}"] = tally.get(f"torchrun {theirs}", 0) + 1
    return rows, tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--append-readme", action="store_true")
    args = parser.parse_args()
    rows, tally = table()
    summary = ", ".join(f"{k}: {v}" for k, v in sorted(tally.items()))
    text = "\n".join(rows) + f"\n\n{len(rows) - 2} captures; {summary}.\n"
    print(text)
    if args.append_readme:
        readme = ROOT / "bench" / "README.md"
        body = readme.read_text(encoding="utf-8")
        intro = (
            f"{HEADER}\n\n`python bench/triage_real.py`: every real capture of `tests/fixtures/triage-real` "
            "(torch 2.13 CPU, Gloo, torchrun), its known guilty ranks, the conclusion of `rootcause triage` on the "
            "capture's folder, and the rank torchrun's own failure report names as \"Root Cause (first observed "
            'failure)" on the same run (the baseline). *WRONG*: an innocent rank named.\n\n'
        )
        if HEADER in body:
            head, _, rest = body.partition(HEADER)
            tail = rest.split("\n## ", 1)
            # keep the prose written under the table (from "Measured" on)
            notes = tail[0][tail[0].find("\nMeasured ") :] if "\nMeasured " in tail[0] else ""
            body = head + intro + text + notes + ("\n## " + tail[1] if len(tail) > 1 else "")
        else:
            body = body.rstrip() + "\n\n" + intro + text
        readme.write_text(body, encoding="utf-8")


if __name__ == "__main__":
    main()
