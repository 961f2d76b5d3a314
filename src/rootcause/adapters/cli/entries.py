"""Commands over the canon: show, fmt, lint, stats, schema, import.

Heavy modules are imported inside each command, so that `rootcause diagnose` does not pay
for the renderers and the linter at start-up.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import click

if TYPE_CHECKING:
    from rootcause.core.atlas.bounds import AtlasBounds
    from rootcause.core.model import Entry


def _entry(entry_id: str, canon: list[str] | None) -> Entry:
    from rootcause.adapters.canon_files import load_canon
    from rootcause.errors import NotFoundError

    for loaded in load_canon(list(canon or [])):
        if loaded.entry.id == entry_id:
            return loaded.entry
    raise NotFoundError(f"no entry with id {entry_id!r}")


def cited_fixture_reader(roots: list[Path]) -> Callable[[str], str | None] | None:
    """Reads the fixture files examples cite, relative to the checkout that holds the canon.

    None outside a checkout (an installed package ships no tests/): the check is then skipped.
    """
    folders = [folder for root in roots for folder in [root.resolve(), *root.resolve().parents]]
    checkout = next((f for f in folders if (f / "tests" / "fixtures").is_dir()), None)
    if checkout is None:
        return None

    def read(ref: str) -> str | None:
        target = (checkout / ref).resolve()
        if not target.is_relative_to(checkout):
            return None
        try:
            return target.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""  # a missing file contains nothing: the example is flagged

    return read


def _env_var_rows() -> list[dict]:
    from importlib import resources

    import yaml

    rows: list[dict] = []
    folder = resources.files("rootcause") / "data" / "env_vars"
    for item in folder.iterdir():
        if item.name.endswith(".yaml"):
            rows += yaml.safe_load(item.read_text(encoding="utf-8")) or []
    return rows


def known_env_vars() -> set[str]:
    return {row["name"] for row in _env_var_rows()}


def undated_env_vars() -> frozenset[str]:
    """Env vars listed with `dated: false`: read outside the packages the names index reads (RC602/RC603 skip them)."""
    return frozenset(row["name"] for row in _env_var_rows() if row.get("dated") is False)


@click.command()
@click.argument("entry_id", metavar="ID")
@click.option(
    "-f", "--format", "fmt", type=click.Choice(["text", "md", "json", "html"]), default="text", show_default=True
)
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True)
@click.option("--canon", multiple=True, metavar="PATH", help="Extra canon folder (repeatable); also $ROOTCAUSE_CANON.")
def show(
    entry_id: str, fmt: Literal["text", "md", "json", "html"], lang: Literal["en", "zh"], canon: tuple[str, ...]
) -> None:
    """Show one entry as text, Markdown, JSON or HTML, in English or Chinese."""
    from rootcause.adapters.canon_files import canon_dirs
    from rootcause.adapters.cli.terminal import print_rich
    from rootcause.adapters.reproducers import reproducer_views
    from rootcause.core.render import render_document
    from rootcause.core.render.text import render_text

    entry = _entry(entry_id, list(canon))
    views = reproducer_views(entry, canon_dirs(list(canon)))
    if fmt == "text":
        print_rich(render_text(entry, lang, views))
    else:
        sys.stdout.write(render_document(entry, fmt, lang, views))


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--check", is_flag=True, help="Report files that are not canonical; change nothing.")
@click.option("--canon", multiple=True, metavar="PATH", help="Extra canon folder (repeatable); also $ROOTCAUSE_CANON.")
def fmt(paths: tuple[Path, ...], check: bool, canon: tuple[str, ...]) -> None:
    """Rewrite entry files in canonical key order (or --check them)."""
    from rootcause.adapters.canon_files import canon_dirs, dump_entry, iter_entry_files, load_file, write_atomic

    files: list[tuple[Path, str | None]] = []
    roots = [Path(p) for p in paths] if paths else canon_dirs(list(canon))
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
        raise click.exceptions.Exit(1 if changed else 0)
    for file, old, new in rendered:
        if old != new:
            write_atomic(file, new)
    print(f"{len(changed)} file(s) reformatted, {len(rendered) - len(changed)} unchanged", file=sys.stderr)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("-f", "--format", "output", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--canon", multiple=True, metavar="PATH", help="Extra canon folder (repeatable); also $ROOTCAUSE_CANON.")
@click.option(
    "--atlas",
    "atlas_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Message atlas the generations' bounds are checked against (default: ROOTCAUSE_ATLAS, else the shipped one).",
)
@click.option("--no-atlas", is_flag=True, help="Do not check bounds against the message atlas (RC509-RC511).")
@click.option(
    "--names",
    "names_path",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="Names index for RC602/RC603 (default: the shipped data/atlas/names.json.xz).",
)
@click.option(
    "--corpus",
    "corpus_dir",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    default=None,
    help="Corpus whose test-split threads the canon must not cite (RC110; default: the checkout's corpus/, if any).",
)
def lint(
    paths: tuple[Path, ...],
    output: str,
    canon: tuple[str, ...],
    atlas_file: str | None,
    no_atlas: bool,
    names_path: Path | None,
    corpus_dir: Path | None = None,
) -> None:
    """Check the canon: schema, patterns, examples, collisions, duplicates, contradictions, content.

    Without PATH, inside a source checkout its src/rootcause/canon is checked (not the installed copy).
    Generations' bounds are checked against the message atlas when one is there (docs/lint.md, RC509-RC511)."""
    from rootcause.adapters.canon_files import canon_dirs, checkout_canon_dir, iter_entry_files, load_file
    from rootcause.core.lint import LintFinding, code_for_field, lint_entries
    from rootcause.errors import CanonError, UsageError

    roots = [Path(p) for p in paths] if paths else canon_dirs(list(canon))
    checkout = None if paths else checkout_canon_dir()
    if checkout is not None:
        roots[0] = checkout
        print(f"rootcause: linting the checkout's canon {checkout}", file=sys.stderr)
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
    from rootcause.adapters.reproducers import load_reproducer, reproducers_root

    found = {
        entry.id: [load_reproducer(entry.id, ref.folder, reproducers_root(path)) for ref in entry.reproducers]
        for entry, path in loaded.values()
    }
    from rootcause.adapters.atlas.names_build import load_names
    from rootcause.adapters.corpus_split import checkout_corpus_dir, corpus_test_threads

    corpus = corpus_dir or checkout_corpus_dir(checkout_canon_dir())
    problems += lint_entries(
        loaded.values(),
        known_env=known_env_vars(),
        reproducers=found,
        read_cited=cited_fixture_reader(roots),
        atlas=None if no_atlas else _atlas_bounds(atlas_file, [entry for entry, _ in loaded.values()]),
        names=load_names(names_path),
        test_threads=corpus_test_threads(corpus) if corpus is not None else frozenset(),
        undated_env=undated_env_vars(),
    )
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
    raise click.exceptions.Exit(1 if errors else 0)


def _atlas_bounds(explicit: str | None, entries: list[Entry]) -> AtlasBounds | None:
    """What lint needs of the message atlas (the intervals of the templates the entries name), or None when there is
    no atlas (the checks are then skipped)."""
    from rootcause.adapters.atlas.bounds import load_bounds
    from rootcause.adapters.atlas.held import atlas_path

    path = atlas_path(explicit)
    keys = {key for entry in entries for generation in entry.generations for key in generation.atlas}
    return None if path is None else load_bounds(path, keys)


@click.command()
@click.option("-f", "--format", "output", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--canon", multiple=True, metavar="PATH", help="Extra canon folder (repeatable); also $ROOTCAUSE_CANON.")
def stats(output: str, canon: tuple[str, ...]) -> None:
    """Counts by domain, category and verification, and measured versus estimated rates."""
    from collections import Counter

    from rich.console import Console
    from rich.table import Table

    from rootcause.adapters.canon_files import load_canon

    entries = [loaded.entry for loaded in load_canon(list(canon))]
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
        counts = data[key]
        assert isinstance(counts, dict)
        for name, count in counts.items():
            table.add_row(name, str(count))
        console.print(table)


@click.command()
@click.option("--check", type=click.Path(path_type=Path), help="Fail if this schema file is out of date.")
@click.option("--of", "of", type=click.Choice(["entry", "diagnosis"]), default="entry", show_default=True)
def schema(check: Path | None, of: str) -> None:
    """Print a JSON Schema generated from the model (or --check a checked-in copy)."""
    from pydantic import BaseModel

    from rootcause.core.diagnosis import Diagnosis
    from rootcause.core.model import Entry

    model: type[BaseModel] = Entry if of == "entry" else Diagnosis
    text = json.dumps(model.model_json_schema(), indent=2, ensure_ascii=False) + "\n"
    if check is not None:
        if not check.is_file() or check.read_text(encoding="utf-8") != text:
            print(f"{check}: out of date; regenerate with: rootcause schema --of {of} > {check}", file=sys.stderr)
            raise click.exceptions.Exit(1)
        return
    sys.stdout.write(text)


@click.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--into", required=True, type=click.Path(path_type=Path), help="Canon folder to write the entries to.")
@click.option("--force", is_flag=True, help="Overwrite entries that already exist.")
def import_entries(paths: tuple[Path, ...], into: Path, force: bool) -> None:
    """Convert errorcanon-style index.json and deadends.dev canon JSON into canon files."""
    import datetime as dt

    from rootcause.adapters.canon_files import dump_entry, write_atomic
    from rootcause.core.importers import detect_and_convert
    from rootcause.errors import NotFoundError, RootcauseError

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
    raise click.exceptions.Exit(1 if refused else 0)


@click.command("lint-codes")
@click.option("--markdown", is_flag=True, help="Print the docs/lint.md table.")
def lint_codes(markdown: bool) -> None:
    """List the lint check codes."""
    from rootcause.core.lint import CHECKS

    if markdown:
        sys.stdout.write(lint_codes_markdown())
        return
    for code, (severity, text) in CHECKS.items():
        print(f"{code}  {severity:<7}  {text}")


def lint_codes_markdown() -> str:
    from rootcause.core.lint import CHECKS
    from rootcause.core.lint_atlas import DOC as ATLAS_DOC

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
    return "\n".join(lines) + "\n\n" + ATLAS_DOC
