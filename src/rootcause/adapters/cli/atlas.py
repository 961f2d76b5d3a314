"""`rootcause atlas`: the message atlas, built from released artifacts (a maintainers' command)."""

from __future__ import annotations

import time
from pathlib import Path

import click

from rootcause.errors import UsageError


@click.group()
def atlas() -> None:
    """The message atlas: every error and warning the ML stack can print, at every release."""


DIR = click.Path(path_type=Path, file_okay=False)


@atlas.command()
@click.option("--packages", default="", help="Comma-separated PyPI names, or nccl (default: the whole stack).")
@click.option("--cache", type=click.Path(path_type=Path), default=None, help="Download and extraction cache.")
@click.option("--out", type=click.Path(path_type=Path), help="Atlas file to write or update (.xz: compressed)")
@click.option("--nccl-repo", type=DIR, default=None, help="A clone of NVIDIA/nccl (its tags are read).")
@click.option("--since", type=int, default=2020, show_default=True, help="Minor releases uploaded since this year.")
@click.option("--artifacts", type=DIR, default=None, help="Read wheels/sdists from this folder, not PyPI.")
@click.option("--latest", type=click.IntRange(min=1), default=None, help="Only the newest N chosen releases of each.")
@click.option(
    "--cached-only",
    is_flag=True,
    help="Read only releases already extracted in the cache; list the others as unread (a later build reads them).",
)
def build(
    packages: str,
    cache: Path | None,
    out: Path | None,
    nccl_repo: Path | None,
    since: int,
    artifacts: Path | None,
    latest: int | None,
    cached_only: bool,
) -> None:
    """Download (once) and read every chosen release, and write the atlas.

    Exit 0 when every release was read, 1 when some could not be (listed on stderr and in the
    manifest's `unread`), 2 on bad arguments.
    """
    from rootcause.adapters.atlas import build as builder
    from rootcause.adapters.atlas import store
    from rootcause.adapters.loading import cache_dir

    names = [p.strip() for p in packages.split(",") if p.strip()] or list(builder.PACKAGES)
    if "nccl" in names:  # NCCL is read from a clone's tags, not from PyPI
        if nccl_repo is None:
            raise UsageError("--packages nccl needs --nccl-repo PATH (a clone of NVIDIA/nccl)")
        names.remove("nccl")
    elif packages.strip():
        nccl_repo = None  # named packages without nccl: NCCL's part of the atlas is kept as it is
    if nccl_repo is not None and not (nccl_repo / ".git").exists() and not (nccl_repo / "HEAD").is_file():
        raise UsageError(f"--nccl-repo {nccl_repo}: not a git clone")
    if artifacts is not None and not artifacts.is_dir():
        raise UsageError(f"--artifacts {artifacts}: no such folder")
    cache = cache or cache_dir() / "atlas"
    out = out or (store.SHIPPED_XZ if store.SHIPPED_XZ.is_file() else store.SHIPPED)
    started = time.monotonic()

    def progress(line: str) -> None:
        click.echo(line, err=True)

    report = builder.build(
        names,
        cache,
        out,
        since=since,
        artifacts_dir=artifacts,
        nccl_repo=nccl_repo,
        latest=latest,
        cached_only=cached_only,
        progress=progress,
    )
    elapsed = time.monotonic() - started
    _finish(
        f"atlas: {report.templates} templates -> {out} ({out.stat().st_size / 1e6:.1f} MB); "
        f"{len(report.read)} releases read, {len(report.cached)} from cache, {len(report.unread)} unread, "
        f"{report.skipped_members} archive members skipped, {elapsed:.0f} s",
        report.unread,
    )


def _finish(summary: str, unread: dict[str, str]) -> None:
    """The summary line, each release not read, and exit 1 when there was one."""
    click.echo(summary, err=True)
    for what, why in unread.items():
        click.echo(f"rootcause: unread: {what}: {why}", err=True)
    if unread:
        raise SystemExit(1)


@atlas.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option(
    "--atlas",
    "atlas_file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Atlas file (default: ROOTCAUSE_ATLAS, else the shipped one).",
)
@click.option(
    "--write-bounds",
    is_flag=True,
    help="Also write the atlas's bounds where lint RC509 finds them wrong "
    "or they say 'unchecked', with a bounds_source naming the template's line.",
)
@click.option("--dry-run", is_flag=True, help="Report what would change; write nothing.")
@click.option("-v", "--verbose", is_flag=True, help="One line per generation on stderr.")
def link(paths: tuple[Path, ...], atlas_file: Path | None, write_bounds: bool, dry_run: bool, verbose: bool) -> None:
    """Name each canon generation's atlas templates (`atlas:` keys), for the packages the atlas covers.

    Without PATH, the checkout's canon (src/rootcause/canon) is linked. Exit 0; 2 on bad arguments; 4 when the
    atlas cannot be read."""
    from rootcause.adapters.atlas.held import atlas_path
    from rootcause.adapters.atlas.link import link_canon
    from rootcause.adapters.canon_files import checkout_canon_dir

    roots = list(paths)
    if not roots:
        checkout = checkout_canon_dir()
        if checkout is None:
            raise UsageError("no canon folder named and no source checkout here: name the canon folder")
        roots = [checkout]
    path = atlas_path(str(atlas_file) if atlas_file else None)
    if path is None:
        raise UsageError("no atlas: name one with --atlas")

    def say(line: str) -> None:
        if verbose:
            click.echo(line, err=True)

    report = link_canon(roots, path, write_bounds=write_bounds, dry_run=dry_run, say=say)
    for line in report.bounds_changed:
        click.echo(f"bounds: {line}")
    click.echo(
        f"atlas link: {report.generations} generations of packages the atlas covers, {report.linked} linked, "
        f"{len(report.unlinked)} with no template; {report.keys_changed} keys changed, "
        f"{len(report.bounds_changed)} bounds and {report.sources_written} bounds sources written; "
        f"{len(report.files_written)} files {'would change' if dry_run else 'written'}",
        err=True,
    )


def _package_values(option: str, items: tuple[str, ...]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for item in items:
        package, _, value = item.partition("=")
        if not package.strip() or not value.strip():
            raise UsageError(f"{option} {item}: expected PKG=VALUE")
        out.append((package.strip(), value.strip()))
    return out


@atlas.command()
@click.option("--packages", default="", help="Comma-separated PyPI names (default: those the canon's advice names).")
@click.option("--cache", type=click.Path(path_type=Path), default=None, help="Download and extraction cache.")
@click.option("--out", type=click.Path(path_type=Path), help="Names index to write or update (.xz: compressed).")
@click.option("--latest", type=click.IntRange(min=1), default=6, show_default=True, help="Newest N minors of each.")
@click.option("--since", "since", multiple=True, metavar="PKG=VERSION", help="Every minor of PKG from VERSION on.")
@click.option("--also", "also", multiple=True, metavar="PKG=MINOR,…", help="These minors of PKG too (torch=2.1,2.2).")
@click.option("--artifacts", type=DIR, default=None, help="Read wheels/sdists from this folder, not PyPI.")
def names(
    packages: str,
    cache: Path | None,
    out: Path | None,
    latest: int,
    since: tuple[str, ...],
    also: tuple[str, ...],
    artifacts: Path | None,
) -> None:
    """Write the names index: the APIs, keywords, env vars and scripts each chosen release defines.

    Chosen releases: the newest --latest minors, the last minor of every earlier major, and the minors
    of --also (by default the ones around the names audited in issue 20: torch 2.1, 2.2, 2.4, 2.5;
    huggingface_hub 0.33, 0.34, 1.0). `lint` warns (RC602, RC603) when advice names something its
    package's latest release lacks. Exit 0 when every release was read, 1 when some could not be, 2 on bad arguments."""
    from rootcause.adapters.atlas import names_build
    from rootcause.adapters.loading import cache_dir

    chosen = [p.strip() for p in packages.split(",") if p.strip()] or list(names_build.PACKAGES)
    floors = dict(_package_values("--since", since))
    extra = {p: tuple(v.strip() for v in value.split(",") if v.strip()) for p, value in _package_values("--also", also)}
    if artifacts is not None and not artifacts.is_dir():
        raise UsageError(f"--artifacts {artifacts}: no such folder")
    out = out or names_build.SHIPPED
    started = time.monotonic()
    report = names_build.build_names(
        chosen,
        cache or cache_dir() / "atlas",
        out,
        latest=latest,
        since=floors,
        also=extra,
        artifacts_dir=artifacts,
        progress=lambda line: click.echo(line, err=True),
    )
    _finish(
        f"names: {out} ({out.stat().st_size / 1e6:.2f} MB); {len(report.read)} releases read, "
        f"{len(report.cached)} from cache, {len(report.unread)} unread, {time.monotonic() - started:.0f} s",
        report.unread,
    )
