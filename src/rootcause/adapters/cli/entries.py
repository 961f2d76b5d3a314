"""Commands over the canon: show, fmt, lint, stats, schema."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Literal

import typer
import yaml
from rich.console import Console
from rich.table import Table

from rootcause.adapters.canon_files import (
    canon_dirs,
    dump_entry,
    iter_entry_files,
    load_canon,
    load_file,
    write_atomic,
)
from rootcause.core.lint import CHECKS, LintFinding, code_for_field, lint_entries
from rootcause.core.model import Entry
from rootcause.core.render import render_document
from rootcause.core.render.text import render_text
from rootcause.errors import CanonError, NotFoundError, UsageError

CanonOpt = Annotated[
    list[str] | None,
    typer.Option("--canon", help="Extra canon folder (repeatable); also $ROOTCAUSE_CANON.", metavar="PATH"),
]


def _entry(entry_id: str, canon: list[str] | None) -> Entry:
    for loaded in load_canon(canon or []):
        if loaded.entry.id == entry_id:
            return loaded.entry
    raise NotFoundError(f"no entry with id {entry_id!r}")


def known_env_vars() -> set[str]:
    from importlib import resources

    names: set[str] = set()
    folder = resources.files("rootcause") / "data" / "env_vars"
    for item in folder.iterdir():
        if item.name.endswith(".yaml"):
            for row in yaml.safe_load(item.read_text(encoding="utf-8")) or []:
                names.add(row["name"])
    return names


def show(
    entry_id: Annotated[str, typer.Argument(metavar="ID", help="domain/slug")],
    fmt: Annotated[Literal["text", "md", "json", "html"], typer.Option("--format", "-f")] = "text",
    lang: Annotated[Literal["en", "zh"], typer.Option("--lang")] = "en",
    canon: CanonOpt = None,
) -> None:
    """Show one entry as text, Markdown, JSON or HTML, in English or Chinese."""
    entry = _entry(entry_id, canon)
    if fmt == "text":
        Console(soft_wrap=True).print(render_text(entry, lang))
    else:
        sys.stdout.write(render_document(entry, fmt, lang))


def fmt(
    paths: Annotated[list[Path] | None, typer.Argument(help="Files or folders (default: the canon folders)")] = None,
    check: Annotated[
        bool, typer.Option("--check", help="Report files that are not canonical; change nothing.")
    ] = False,
    canon: CanonOpt = None,
) -> None:
    """Rewrite entry files in canonical key order (or --check them)."""
    files: list[tuple[Path, str | None]] = []
    roots = [Path(p) for p in paths] if paths else canon_dirs(canon or [])
    for root in roots:
        if root.is_file():
            files.append((root, None))
        else:
            files.extend((f, i) for f, i in iter_entry_files(root))
    # validate everything before writing anything: never half-formatted
    rendered = []
    for file, entry_id in files:
        entry = load_file(file, expected_id=entry_id)
        rendered.append((file, file.read_text(encoding="utf-8"), dump_entry(entry)))
    changed = [file for file, old, new in rendered if old != new]
    if check:
        for file in changed:
            print(f"{file}: not in canonical form (run rootcause fmt)")
        raise typer.Exit(1 if changed else 0)
    for file, old, new in rendered:
        if old != new:
            write_atomic(file, new)
    print(f"{len(changed)} file(s) reformatted, {len(rendered) - len(changed)} unchanged", file=sys.stderr)


def lint(
    paths: Annotated[list[Path] | None, typer.Argument(help="Canon folders (default: all canon folders)")] = None,
    output: Annotated[Literal["text", "json"], typer.Option("--format", "-f")] = "text",
    canon: CanonOpt = None,
) -> None:
    """Check the canon: schema, patterns, examples, collisions, duplicates, contradictions, content."""
    roots = [Path(p) for p in paths] if paths else canon_dirs(canon or [])
    loaded: dict[str, tuple[Entry, str]] = {}
    problems: list[LintFinding] = []
    for root in roots:
        if not root.is_dir():
            raise UsageError(f"{root}: not a folder")
        for file, entry_id in iter_entry_files(root):
            try:
                entry = load_file(file, expected_id=entry_id)
            except CanonError as exc:
                problems.append(LintFinding(str(file), code_for_field(exc.field, str(exc)), str(exc)))
                continue
            loaded[entry.id] = (entry, str(file))
    problems += lint_entries(loaded.values(), known_env=known_env_vars())
    errors = [p for p in problems if p.severity == "error"]
    if output == "json":
        print(
            json.dumps(
                {
                    "entries": len(loaded),
                    "errors": len(errors),
                    "warnings": len(problems) - len(errors),
                    "findings": [
                        {"path": p.path, "code": p.code, "severity": p.severity, "message": p.message} for p in problems
                    ],
                },
                indent=2,
            )
        )
    else:
        for p in problems:
            print(p.line())
        print(f"{len(loaded)} entries, {len(errors)} errors, {len(problems) - len(errors)} warnings", file=sys.stderr)
    raise typer.Exit(1 if errors else 0)


def stats(
    canon: CanonOpt = None, output: Annotated[Literal["text", "json"], typer.Option("--format", "-f")] = "text"
) -> None:
    """Counts by domain, category and verification, and measured versus estimated rates."""
    from collections import Counter

    entries = [loaded.entry for loaded in load_canon(canon or [])]
    measured = sum(
        1
        for e in entries
        if (e.fix_rate and e.fix_rate.basis == "measured")
        or any(w.success_rate.basis == "measured" for w in e.workarounds)
    )
    data = {
        "entries": len(entries),
        "withdrawn": sum(e.is_withdrawn for e in entries),
        "by_domain": dict(sorted(Counter(e.domain for e in entries).items())),
        "by_category": dict(sorted(Counter(e.category for e in entries).items())),
        "by_verification": dict(sorted(Counter(e.verification.value for e in entries).items())),
        "with_measured_rates": measured,
        "with_estimated_rates_only": len(entries) - measured,
    }
    if output == "json":
        print(json.dumps(data, indent=2))
        return
    console = Console()
    console.print(
        f"[bold]{data['entries']}[/] entries ({data['withdrawn']} withdrawn); "
        f"{measured} with measured rates, {len(entries) - measured} with estimates only"
    )
    for key in ("by_domain", "by_category", "by_verification"):
        table = Table(title=key.replace("_", " "), title_justify="left")
        table.add_column(key.split("_")[1])
        table.add_column("entries", justify="right")
        for name, count in data[key].items():  # type: ignore[union-attr]
            table.add_row(name, str(count))
        console.print(table)


def schema(
    check: Annotated[Path | None, typer.Option("--check", help="Fail if this schema file is out of date.")] = None,
) -> None:
    """Print the entry JSON Schema generated from the model (or --check a checked-in copy)."""
    text = json.dumps(Entry.model_json_schema(), indent=2, ensure_ascii=False) + "\n"
    if check is not None:
        if not check.is_file() or check.read_text(encoding="utf-8") != text:
            print(f"{check}: out of date; regenerate with: rootcause schema > {check}", file=sys.stderr)
            raise typer.Exit(1)
        return
    sys.stdout.write(text)


def import_entries(
    paths: Annotated[list[Path], typer.Argument(help="JSON files or folders of them")],
    into: Annotated[Path, typer.Option("--into", help="Canon folder to write the converted entries to")],
    force: Annotated[bool, typer.Option("--force", help="Overwrite entries that already exist")] = False,
) -> None:
    """Convert errorcanon-style index.json and deadends.dev canon JSON into canon files."""
    import datetime as dt

    from rootcause.core.importers import detect_and_convert
    from rootcause.errors import RootcauseError

    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*.json") if p.is_file()))
        elif path.is_file():
            files.append(path)
        else:
            raise NotFoundError(f"{path}: no such file or directory")
    today = dt.date.today()
    written = refused = 0
    for file in files:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            print(f"{file}: refused: not JSON ({exc})")
            refused += 1
            continue
        try:
            imported = detect_and_convert(data, str(file), today)
        except RootcauseError as exc:
            print(f"{file}: refused: {exc}")
            refused += 1
            continue
        target = into / f"{imported.entry.id}.yaml"
        if target.exists() and not force:
            print(f"{file}: skipped: {target} exists (use --force)")
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, dump_entry(imported.entry))
        written += 1
        for note in imported.unmapped:
            print(f"{file}: not mapped: {note}")
    print(f"{written} imported, {refused} refused, {len(files)} files", file=sys.stderr)
    raise typer.Exit(1 if refused else 0)


def checks(
    markdown: Annotated[bool, typer.Option("--markdown", help="Print the docs/lint.md table.")] = False,
) -> None:
    """List the lint check codes."""
    if markdown:
        sys.stdout.write(lint_codes_markdown())
        return
    for code, (severity, text) in CHECKS.items():
        print(f"{code}  {severity:<7}  {text}")


def lint_codes_markdown() -> str:
    lines = [
        "# Lint check codes",
        "",
        "Generated by `rootcause lint-codes --markdown`; a test keeps this file in sync with the code.",
        "Output lines read `path: [CODE] message`; `--format json` gives the same as objects.",
        "Errors fail the run (exit 1); warnings do not.",
        "",
        "| code | severity | check |",
        "|---|---|---|",
    ]
    lines += [f"| {code} | {severity} | {text} |" for code, (severity, text) in CHECKS.items()]
    return "\n".join(lines) + "\n"


def register(app: typer.Typer) -> None:
    app.command()(show)
    app.command()(fmt)
    app.command()(lint)
    app.command()(stats)
    app.command()(schema)
    app.command("lint-codes")(checks)
    app.command("import")(import_entries)
