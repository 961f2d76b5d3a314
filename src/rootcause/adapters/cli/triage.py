"""`rootcause triage`: which rank, host and collective, and what happened first.

One pass over the inputs: each chunk read from disk goes both to the knowledge-base scanner (its
pattern stage: the entries that apply) and to the triage engine (ranks, timeline, conclusion).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from rootcause.core.triage import TriageReport

EXIT_CONCLUDED, EXIT_UNDECIDED = 0, 1


def run_triage(
    named: list[tuple[str, Path]], canon: list[str], *, kb: bool = True, show_progress: bool = False
) -> TriageReport:
    """Triage the inputs; with ``kb``, the knowledge-base patterns scan the same chunks in the same pass."""
    from rootcause.adapters.cli.progress import byte_progress
    from rootcause.adapters.flight_files import read_dump, split_dumps
    from rootcause.adapters.inputs import open_sources
    from rootcause.adapters.triage_runner import conclude_with_second_read
    from rootcause.core.triage.engine import Triage
    from rootcause.core.triage.kb import link, matches_from_hits

    t = Triage()
    named, dumps = split_dumps(named)
    for name, path in dumps:
        t.add_dump(name, read_dump(name, path))
    sources = open_sources(named)
    if not kb:
        for s in sources:
            t.add(s.name, s.chunks, s.rank)
        return conclude_with_second_read(t, named)

    from rootcause.adapters.loading import load_index
    from rootcause.core.matching.scan import SourceScanner

    index = load_index(canon, lazy=True)  # one run: entries and RE2s loaded when a hit needs them
    hits: list[tuple[str, str, bool, int, str, int, int | None]] = []

    def scan_all(advance: Callable[[int], object]) -> None:
        for order, s in enumerate(sources):
            feed = t.open(s.name, s.rank)
            scanner = SourceScanner(index)
            for chunk in s.chunks:
                scanner.feed(chunk)
                feed.feed(chunk)
                advance(len(chunk))
            feed.close()
            for hit in scanner.finish().hits:
                entry = index.entries[index.patterns[hit.pattern].entry_id]
                rank = hit.rank if hit.rank is not None else s.rank
                hits.append((entry.id, entry.role.value, entry.generic, order, s.name, hit.line, rank))

    total = sum(path.stat().st_size for _, path in named)
    with byte_progress("reading", total, show_progress) as advance:
        scan_all(advance)
    report = conclude_with_second_read(t, named)
    link(report, matches_from_hits(hits))
    return report


@click.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option(
    "-f",
    "--format",
    "output",
    type=click.Choice(["text", "json", "md"]),
    default="text",
    envvar="ROOTCAUSE_FORMAT",
    show_default=True,
    help="Output format.",
)
@click.option("--canon", multiple=True, metavar="PATH", help="Extra canon folder (repeatable).")
@click.option("--no-kb", is_flag=True, help="Skip the knowledge-base scan (only the triage).")
@click.option("--no-progress", is_flag=True, help="Never show a progress bar.")
def triage(paths: tuple[str, ...], output: str, canon: tuple[str, ...], no_kb: bool, no_progress: bool) -> None:
    """Multi-rank triage: which rank, host and collective, and what happened first.

    PATH: one log per rank, folders of them (torchrun --log-dir), or one combined log whose lines carry
    [rankN]:, [defaultN]: or Slurm `srun --label` prefixes; '-' reads stdin.
    Exit status: 0 when a conclusion was reached, 1 when the logs cannot decide, 2 on a usage error.
    """
    from rootcause.adapters.inputs import materialise
    from rootcause.errors import UsageError

    path_list = list(paths)
    if "-" in path_list and sys.stdin.isatty():
        raise UsageError("nothing to triage on stdin: give log files or folders")
    named = materialise(path_list)
    if not named:
        raise UsageError("no log files found under the given folders")
    report = run_triage(named, list(canon), kb=not no_kb, show_progress=sys.stderr.isatty() and not no_progress)
    if output == "json":
        sys.stdout.write(report.model_dump_json(indent=2) + "\n")
    elif output == "md":
        from rootcause.core.triage.render import triage_markdown

        sys.stdout.write(triage_markdown(report))
    else:
        from rich.console import Console

        from rootcause.core.triage.render import triage_rich

        Console().print(triage_rich(report))
    raise click.exceptions.Exit(EXIT_UNDECIDED if report.conclusion.kind == "undecided" else EXIT_CONCLUDED)


def register(app: click.Group) -> None:
    """Add the command to a click group (main.py loads it lazily by name instead)."""
    app.add_command(triage)
