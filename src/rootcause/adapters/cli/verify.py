"""`rootcause verify`: run the reproducers and say whether each entry is still proven."""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
from pathlib import Path

import click


@click.command()
@click.argument("ids", nargs=-1)
@click.option("-f", "--format", "output", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("-j", "--jobs", type=click.IntRange(1, 64), help="Runs in parallel (default: the number of cores).")
@click.option("--cpu-only", is_flag=True, help="Skip GPU reproducers even where a GPU is present.")
@click.option("--strict", is_flag=True, help="A missing package or tool fails the run (CI), instead of a skip.")
@click.option(
    "--update-records",
    is_flag=True,
    help="Write record.yaml and expected.log of each passing reproducer (maintainers).",
)
@click.option(
    "--record",
    "to_store",
    is_flag=True,
    help="Store each fixed-variant run as an outcome report, source: reproducer (counted apart from field reports).",
)
@click.option(
    "--database-url", metavar="URL", help="Where --record stores runs (default: $ROOTCAUSE_DATABASE_URL or SQLite)."
)
@click.option("--save-output", type=click.Path(file_okay=False, path_type=Path), help="Write every run's output here.")
@click.option("--canon", multiple=True, metavar="PATH", help="Extra canon folder (repeatable); also $ROOTCAUSE_CANON.")
def verify(
    ids: tuple[str, ...],
    output: str,
    jobs: int | None,
    cpu_only: bool,
    strict: bool,
    update_records: bool,
    to_store: bool,
    database_url: str | None,
    save_output: Path | None,
    canon: tuple[str, ...],
) -> None:
    """Run each entry's reproducers (all entries that have one, or IDS): the failing program must be
    diagnosed as the entry first; each fixed variant must exit 0 with no finding for it (a dead end
    must still fail). Exit 0 when every run passed, 1 when one failed, or when no asked ID could be run
    (with --strict, when any could not); skips are shown, never passed, and every ID that could not be run
    is named with the reason."""
    from rootcause.adapters.canon_files import load_canon
    from rootcause.adapters.loading import load_index
    from rootcause.adapters.reproducers import gpu_name, machine, plan, run_all, write_record
    from rootcause.errors import NotFoundError

    loaded = load_canon(list(canon))
    by_id = {item.entry.id: item for item in loaded}
    for entry_id in ids:
        if entry_id not in by_id:
            raise NotFoundError(f"no entry with id {entry_id!r}")
    asked = [by_id[i] for i in dict.fromkeys(ids)] if ids else [item for item in loaded if item.entry.reproducers]
    not_run = {item.entry.id: "the entry has no reproducer" for item in asked if not item.entry.reproducers}
    selected = [item for item in asked if item.entry.reproducers]
    gpu = gpu_name()
    results, runs = plan(selected, gpu=gpu, include_gpu=not cpu_only)
    index = load_index(list(canon))
    started = dt.datetime.now(dt.UTC)
    progress = sys.stderr.isatty() and output == "text"
    total = len(runs)
    done_count = [0]

    def on_done(run: object) -> None:
        done_count[0] += 1
        if progress:
            print(f"\r{done_count[0]}/{total} runs", end="", file=sys.stderr, flush=True)

    run_all(runs, index, jobs=jobs or os.cpu_count() or 1, on_done=on_done)
    if progress:
        print(file=sys.stderr)
    wall = (dt.datetime.now(dt.UTC) - started).total_seconds()

    if save_output is not None:
        save_output.mkdir(parents=True, exist_ok=True)
        for result in results:
            for run in result.runs:
                name = f"{result.folder.replace('/', '__')}.{run.label.replace(' ', '-')}.log"
                (save_output / name).write_text(run.output, encoding="utf-8")

    where = machine(gpu)
    if update_records:
        today = dt.datetime.now(dt.UTC).date()
        for result in results:
            if result.verdict == "pass":
                write_record(result, by_id[result.entry_id], where, today)

    if to_store:
        from rootcause.adapters.reproducers import record_outcomes

        stored = record_outcomes(results, database_url, where)
        print(f"stored {stored} outcome reports (source: reproducer)", file=sys.stderr)

    failed = [
        r for r in results if r.verdict == "fail" or (strict and r.skipped and r.skipped.value == "environment-missing")
    ]
    if output == "json":
        print(json.dumps(_as_json(results, where, wall) | {"not_run": not_run}, indent=2))
    else:
        if results:
            _print_table(results, where, wall)
        for entry_id, why in not_run.items():
            print(f"rootcause: not run: {entry_id}: {why}", file=sys.stderr)
    raise click.exceptions.Exit(1 if failed or (strict and not_run) or (not_run and not results) else 0)


def _as_json(results: list, where: str, wall: float) -> dict[str, object]:
    return {
        "machine": where,
        "seconds": round(wall, 1),
        "summary": _summary(results),
        "reproducers": [
            {
                "entry": r.entry_id,
                "reproducer": r.folder,
                "environment": r.environment,
                "verdict": r.verdict,
                "problem": r.problem,
                "skipped": None if r.skipped is None else {"result": r.skipped.value, "why": r.skip_detail},
                "runs": [
                    {
                        "run": run.label,
                        "command": run.command,
                        "result": run.outcome.value if run.outcome else None,
                        "passed": run.passed,
                        "exit_code": run.exit_code,
                        "seconds": round(run.seconds, 2),
                        "detail": run.detail,
                        "diff": run.diff,
                    }
                    for run in r.runs
                ],
            }
            for r in results
        ],
    }


def _summary(results: list) -> dict[str, int]:
    out = {"reproducers": len(results), "passed": 0, "failed": 0, "skipped": 0}
    for r in results:
        out[{"pass": "passed", "fail": "failed", "skip": "skipped"}[r.verdict]] += 1
    return out


def _print_table(results: list, where: str, wall: float) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False, soft_wrap=False, width=None if sys.stdout.isatty() else 160)
    table = Table(title=f"rootcause verify · {where}", title_justify="left")
    for col in ("entry", "reproducer", "environment", "run", "result", "time"):
        table.add_column(col, justify="right" if col == "time" else "left", overflow="fold")
    style = {True: "green", False: "red"}
    for r in results:
        if r.problem:
            table.add_row(r.entry_id, r.folder, r.environment, "-", "[red]invalid[/red]", "")
            continue
        if r.skipped is not None:
            table.add_row(r.entry_id, r.folder, r.environment, "-", f"[yellow]{r.skipped.value}[/yellow]", "")
            continue
        for n, run in enumerate(r.runs):
            word = run.outcome.value if run.outcome else "?"
            table.add_row(
                r.entry_id if n == 0 else "",
                r.folder if n == 0 else "",
                r.environment if n == 0 else "",
                run.label,
                f"[{style[run.passed]}]{word}[/{style[run.passed]}]",
                f"{run.seconds:.1f}s",
            )
    console.print(table)
    for r in results:
        if r.problem:
            console.print(f"[red]{r.entry_id}[/red]: {r.problem}")
        elif r.skipped is not None:
            console.print(f"[yellow]{r.entry_id}[/yellow] {r.skipped.value}: {r.skip_detail}")
        for run in r.runs:
            if not run.passed:
                console.print(
                    f"[red]{r.entry_id}[/red] {run.label}: {run.outcome.value if run.outcome else '?'} - {run.detail}"
                )
                console.print(f"  command: {run.command}")
                if run.diff:
                    console.print("  diff between expected.log and the real output:")
                    console.print(run.diff, markup=False)
                elif run.output:
                    tail = "\n".join(run.output.splitlines()[-15:])
                    console.print("  last lines of the output:")
                    console.print(tail, markup=False)
    s = _summary(results)
    console.print(
        f"{s['reproducers']} reproducers: {s['passed']} passed, {s['failed']} failed, {s['skipped']} skipped "
        f"(skips are not passes) in {wall:.0f} s"
    )
