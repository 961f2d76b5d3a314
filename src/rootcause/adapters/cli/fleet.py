"""`rootcause fleet`: scan a cluster's rank logs on an engine, report, and mine unknown errors."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click


def default_state_dir() -> Path:
    base = os.environ.get("ROOTCAUSE_DATA_DIR") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "rootcause"
    )
    return Path(base) / "fleet"


state_option = click.option(
    "--state",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder of the template miner's state (default: beside the findings file, or per --name).",
)
name_option = click.option(
    "--name",
    default=None,
    metavar="NAME",
    help="A named scan: its miner state lives in $ROOTCAUSE_DATA_DIR/fleet/NAME, apart from every other scan.",
)


def state_dir(state: Path | None, name: str | None, findings: Path | None) -> Path:
    """Each scan keeps its own miner state, never one global state: --state, else the named scan's
    folder, else beside its findings file (findings.parquet -> findings.parquet.templates/)."""
    from rootcause.errors import UsageError

    if state is not None:
        return state
    if name is not None:
        if not name or "/" in name or name.startswith(".") or len(name) > 100:
            raise UsageError(f"--name: {name!r} is not a plain name (letters, digits, -, _)")
        return default_state_dir() / name
    if findings is not None:
        return findings.with_name(findings.name + ".templates")
    raise UsageError("which scan? give --name, --findings or --state")


@click.group()
def fleet() -> None:
    """Fleet scale: every rank log of every job, on Spark, Ray, Dask or in this process."""


@fleet.command()
@click.argument("patterns", nargs=-1, required=True, metavar="GLOB...")
@click.option("--engine", type=click.Choice(["local", "dask", "spark", "ray"]), default="local", show_default=True)
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="findings.parquet")
@click.option("--workers", type=int, default=2, show_default=True, help="Local cluster size (no --address).")
@click.option("--address", default=None, help="An existing cluster: Dask scheduler, Spark master, Ray address.")
@click.option("--batch-size", type=int, default=64, show_default=True, help="Rank logs per batch.")
@click.option("--group-budget", type=int, default=256 << 20, show_default=True, help="Bytes per job for triage.")
@click.option("--layout", multiple=True, metavar="REGEX", help="Path regex with groups job, rank, host.")
@click.option("--canon", multiple=True, metavar="PATH", help="Extra canon folder (repeatable).")
@click.option("--no-triage", is_flag=True, help="Skip the per-job triage verdicts.")
@click.option("--no-templates", is_flag=True, help="Do not mine unknown lines into templates.")
@state_option
@name_option
@click.option("--no-progress", is_flag=True, help="Never show a progress bar.")
def scan(
    patterns: tuple[str, ...],
    engine: str,
    out: Path,
    workers: int,
    address: str | None,
    batch_size: int,
    group_budget: int,
    layout: tuple[str, ...],
    canon: tuple[str, ...],
    no_triage: bool,
    no_templates: bool,
    state: Path | None,
    name: str | None,
    no_progress: bool,
) -> None:
    """Scan every rank log that GLOB names (``'logs/**/*.log'``) and write one row per finding to --out."""
    from rootcause.adapters.fleet import FleetOptions, scan_fleet

    options = FleetOptions(
        engine=engine,
        workers=workers,
        address=address,
        batch_size=batch_size,
        group_budget=group_budget,
        layout=list(layout),
        canon=list(canon),
        triage=not no_triage,
    )
    show = engine == "local" and sys.stderr.isatty() and not no_progress
    if show:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

        bar = Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        with bar:
            task = bar.add_task("scanning rank logs", total=None)
            run = scan_fleet(
                patterns,
                options,
                out,
                progress=lambda logs, _n: bar.advance(task, logs),
                on_listed=lambda logs, _b: bar.update(task, total=logs),
            )
    else:
        run = scan_fleet(patterns, options, out)
    mined = 0
    if not no_templates:
        from rootcause.adapters.fleet.output import read_findings
        from rootcause.adapters.fleet.templates import TemplateBook

        rows, _, _ = read_findings(out)
        book = TemplateBook(state_dir(state, name, out))
        mined = book.add_rows(r for r in rows if r["kind"] == "unknown")
        book.save()
    click.echo(
        f"{run.logs} rank logs ({run.bytes / 1e6:.1f} MB) from {run.jobs} jobs on {engine} in {run.seconds:.1f} s: "
        f"{run.findings} rows to {out}" + (f"; {mined} unknown lines mined into templates" if mined else ""),
        err=True,
    )


@fleet.command()
@click.argument("findings", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--html", "html_out", type=click.Path(dir_okay=False, path_type=Path), help="Write the HTML report here.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, path_type=Path), help="Write the JSON twin here.")
@click.option("-f", "--format", "output", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option(
    "--site",
    default="",
    metavar="URL",
    help="Where the site is, for the report's entry links (default: relative, beside a build-site export).",
)
def report(findings: Path, html_out: Path | None, json_out: Path | None, output: str, site: str) -> None:
    """Top errors, jobs and recurring nodes of a fleet scan (HTML with plots, and its JSON twin)."""
    from rootcause.adapters.canon_files import write_atomic_bytes
    from rootcause.adapters.fleet.output import read_findings
    from rootcause.adapters.fleet.report import render_html
    from rootcause.adapters.fleet.worker import now_ms
    from rootcause.core.fleet.summary import summarise

    rows, jobs, meta = read_findings(findings)
    summary = summarise(rows, jobs, meta, now_ms())
    text = json.dumps(summary, indent=2, ensure_ascii=False) + "\n"
    if html_out:
        write_atomic_bytes(html_out, render_html(summary, site).encode())
    if json_out:
        write_atomic_bytes(json_out, text.encode())
    if output == "json":
        sys.stdout.write(text)
        return
    t = summary["totals"]
    click.echo(
        f"{t['known_findings']} known findings ({t['entries']} entries), {t['unknown_lines']} unknown lines, "
        f"{t['jobs_with_findings']} jobs and {t['hosts_with_findings']} hosts with findings"
    )
    click.echo("top errors:")
    for e in summary["top_errors"][:10]:
        click.echo(f"  {e['hits']:6d}  {e['entry_id']}  ({e['jobs']} jobs, {e['hosts']} hosts)")
    click.echo("recurring nodes:")
    for n in summary["recurring_nodes"][:10]:
        click.echo(f"  {n['host']}: {n['jobs']} jobs, {n['hits']} hits")
    click.echo("verdicts: " + ", ".join(f"{k} {v}" for k, v in summary["conclusions"].items()))


@fleet.command()
@state_option
@name_option
@click.option(
    "--findings",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The scan's findings file (its templates lie beside it).",
)
@click.option("--limit", type=int, default=20, show_default=True, help="How many templates to list.")
@click.option("-f", "--format", "output", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option(
    "--write-candidate",
    nargs=2,
    metavar="TEMPLATE_ID DIR",
    default=None,
    help="Write a candidate entry for a template into DIR (as --id or domain/unknown-<id>).",
)
@click.option("--id", "entry_id", default=None, help="The candidate's entry id (domain/slug).")
def unknown(
    state: Path | None,
    name: str | None,
    findings: Path | None,
    limit: int,
    output: str,
    write_candidate: tuple[str, str] | None,
    entry_id: str | None,
) -> None:
    """Error lines that no entry explains, mined into templates, most frequent first."""
    from rootcause.adapters.fleet.templates import TemplateBook
    from rootcause.errors import UsageError

    book = TemplateBook(state_dir(state, name, findings))
    if write_candidate:
        from rootcause.adapters.fleet.candidate import write_candidate as write

        raw_id, folder = write_candidate
        if not raw_id.isdigit():
            raise UsageError(f"--write-candidate: template id must be a number, got {raw_id!r}")
        template = book.get(int(raw_id))
        path = write(entry_id or f"unknown/template-{raw_id}", template, Path(folder))
        click.echo(f"wrote {path}: fill in the prose marked TODO(maintainer); lint refuses it until then", err=True)
        return
    templates = book.templates()[:limit]
    if output == "json":
        sys.stdout.write(json.dumps(templates, indent=2, ensure_ascii=False) + "\n")
        return
    if not templates:
        click.echo("no unknown errors mined yet (run `rootcause fleet scan`)")
    for t in templates:
        click.echo(
            f"#{t['id']}  {t['count']} lines, {len(t['jobs'])} jobs, {len(t['nodes'])} nodes, {len(t['days'])} days"
        )
        click.echo(f"    {t['template']}")
        for ex in t["examples"][:2]:
            click.echo(f"    e.g. {ex[:200]}")


@fleet.command()
@click.argument("findings", type=click.Path(dir_okay=False, path_type=Path))
@state_option
@name_option
@click.option("--database-url", envvar="ROOTCAUSE_DATABASE_URL", default=None, help="The service's database.")
def ingest(findings: Path, state: Path | None, name: str | None, database_url: str | None) -> None:
    """Feed a fleet scan to the web service's store: hit counts per entry and the unknown templates."""
    from rootcause.adapters.fleet.output import read_findings
    from rootcause.adapters.fleet.store import FleetStore
    from rootcause.adapters.fleet.templates import TemplateBook
    from rootcause.adapters.store import open_store

    rows, _, _ = read_findings(findings)
    store = open_store(database_url)
    try:
        fs = FleetStore(store)
        added = fs.add_hits(rows)
        items = TemplateBook(state_dir(state, name, findings)).templates()
        fs.replace_templates(items)
    finally:
        store.close()
    click.echo(f"{added} new hits and {len(items)} templates stored ({store.describe()})", err=True)
