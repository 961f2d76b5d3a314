"""`rootcause diagnose`: the main job."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Literal

import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

from rootcause.adapters.inputs import open_sources
from rootcause.adapters.loading import load_index
from rootcause.core.diagnosis import Diagnosis, diagnose_sources
from rootcause.core.render.diagnosis_view import diagnosis_markdown, diagnosis_rich
from rootcause.core.versions import Environment, parse_env_spec
from rootcause.errors import UsageError

PROGRESS_MIN_BYTES = 16 << 20
EXIT_MATCHED, EXIT_NO_MATCH = 0, 1


def _installed_env() -> Environment:
    """Opt-in: versions of the relevant packages installed in this Python."""
    from importlib.metadata import PackageNotFoundError, version

    env: Environment = {}
    for name in (
        "torch",
        "transformers",
        "accelerate",
        "datasets",
        "tokenizers",
        "safetensors",
        "peft",
        "bitsandbytes",
        "deepspeed",
        "numpy",
        "flash-attn",
        "triton",
    ):
        try:
            env[name] = version(name)
        except PackageNotFoundError:
            continue
    return env


def _total_size(paths: list[str]) -> int:
    total = 0
    for p in paths:
        if p != "-" and os.path.isfile(p):
            total += os.path.getsize(p)
    return total


def run_diagnosis(paths: list[str], env: Environment, canon: list[str], show_progress: bool) -> Diagnosis:
    index = load_index(canon)
    sources = open_sources(paths)
    total = _total_size(paths)
    if show_progress and total >= PROGRESS_MIN_BYTES:
        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            console=Console(stderr=True),
            transient=True,
        ) as progress:
            task = progress.add_task("scanning", total=total)
            return diagnose_sources(sources, index, env, progress=lambda n: progress.advance(task, n))
    return diagnose_sources(sources, index, env)


def diagnose(
    paths: Annotated[
        list[str] | None,
        typer.Argument(help="Log files (.gz too) or folders of rank logs; '-' or nothing reads stdin."),
    ] = None,
    output: Annotated[
        Literal["text", "json", "md"], typer.Option("--format", "-f", envvar="ROOTCAUSE_FORMAT", help="Output format.")
    ] = "text",
    env_spec: Annotated[
        str | None, typer.Option("--env", envvar="ROOTCAUSE_ENV", help="Versions, e.g. torch==2.1.0,nccl==2.18")
    ] = None,
    detect_env: Annotated[
        bool, typer.Option("--detect-env", help="Also read versions of packages installed in this Python.")
    ] = False,
    canon: Annotated[
        list[str] | None, typer.Option("--canon", metavar="PATH", help="Extra canon folder (repeatable).")
    ] = None,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="Never show a progress bar.")] = False,
) -> None:
    """Diagnose an error message, a traceback, a whole log, or one log per rank.

    Exit status: 0 when a known error matched, 1 when none did, 2 on a usage error.
    """
    paths = paths or []
    if not paths and sys.stdin.isatty():
        raise UsageError("nothing to diagnose: give a log file, or pipe text on stdin")
    env: Environment = _installed_env() if detect_env else {}
    if env_spec:
        env.update(parse_env_spec(env_spec))
    d = run_diagnosis(paths, env, canon or [], show_progress=sys.stdout.isatty() and not no_progress)
    if len(d.inputs) > 1 or any(i.rank is not None for i in d.inputs):
        _attach_triage(d, paths)
    if output == "json":
        sys.stdout.write(d.model_dump_json(indent=2) + "\n")
    elif output == "md":
        sys.stdout.write(diagnosis_markdown(d))
    else:
        Console().print(diagnosis_rich(d))
    raise typer.Exit(EXIT_MATCHED if d.matched else EXIT_NO_MATCH)


def _attach_triage(d: Diagnosis, paths: list[str]) -> None:
    """Multi-rank inputs also get the triage report (when the triage module is present)."""
    try:
        from rootcause.adapters.cli.triage import triage_for_diagnosis
    except ImportError:
        return
    triage_for_diagnosis(d, paths)


def register(app: typer.Typer) -> None:
    app.command()(diagnose)
