"""`rootcause diagnose`: the main job."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from rootcause.core.diagnosis import AtlasSource, Diagnosis
    from rootcause.core.import_names import NamesSource
    from rootcause.core.triage.engine import Triage

Environment = dict[str, str]
EXIT_MATCHED, EXIT_NO_MATCH = 0, 1
DETECTED_PACKAGES = (
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
    # the rest of the message atlas's packages, for the located tier's `installed_has_it`
    "torchvision",
    "torchaudio",
    "huggingface-hub",
    "trl",
    "vllm",
    "xformers",
    "lightning",
    "pytorch-lightning",
    "onnx",
    "onnxruntime",
    "diffusers",
    "sentence-transformers",
    "optimum",
    "llamafactory",
    "transformer-engine",
    "megatron-core",
    "torchtune",
    "torchao",
    "timm",
    "torch-xla",
    "sglang",
    "unsloth",
    "unsloth-zoo",
    "axolotl",
    "verl",
    "openrlhf",
    "mmengine",
    "mmcv",
    "mmdet",
)


def installed_env() -> Environment:
    """Opt-in: versions of the relevant packages installed in this Python."""
    from importlib.metadata import PackageNotFoundError, version

    env: Environment = {}
    for name in DETECTED_PACKAGES:
        try:
            env[name] = version(name)
        except PackageNotFoundError:
            continue
    return env


def run_diagnosis(
    named: list[tuple[str, Path]],
    env: Environment,
    canon: list[str],
    show_progress: bool,
    triage: Triage | None = None,
    atlas: AtlasSource = None,
    names: NamesSource = None,
) -> Diagnosis:
    from rootcause.adapters.cli.progress import byte_progress
    from rootcause.adapters.inputs import open_sources
    from rootcause.adapters.loading import load_index
    from rootcause.core.diagnosis import diagnose_sources

    index = load_index(canon, lazy=True)  # one diagnosis: entries and RE2s loaded when a match needs them
    sources = open_sources(named)
    total = sum(path.stat().st_size for _, path in named)
    with byte_progress("scanning", total, show_progress) as advance:
        return diagnose_sources(sources, index, env, progress=advance, triage=triage, atlas=atlas, names=names)


@click.command()
@click.argument("paths", nargs=-1, metavar="[PATH]...")
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
@click.option(
    "--env",
    "env_spec",
    envvar="ROOTCAUSE_ENV",
    metavar="SPEC",
    help="Versions for the affected-versions verdict, e.g. torch==2.1.0,nccl==2.18.",
)
@click.option("--detect-env", is_flag=True, help="Also read the versions of packages installed in this Python.")
@click.option("--canon", multiple=True, metavar="PATH", help="Extra canon folder (repeatable).")
@click.option("--no-progress", is_flag=True, help="Never show a progress bar.")
@click.option(
    "--atlas",
    "atlas_file",
    metavar="PATH",
    help="Message atlas for locating lines no entry claims (default: ROOTCAUSE_ATLAS, else the shipped one).",
)
@click.option("--no-atlas", is_flag=True, help="Do not locate lines in the message atlas.")
def diagnose(
    paths: tuple[str, ...],
    output: str,
    env_spec: str | None,
    detect_env: bool,
    canon: tuple[str, ...],
    no_progress: bool,
    atlas_file: str | None,
    no_atlas: bool,
) -> None:
    """Diagnose an error message, a traceback, a whole log, or one log per rank.

    PATH may be a file (plain or .gz), a folder of rank logs, or '-' for stdin (the default).
    Exit status: 0 when a known error matched, 1 when none did (lines only located in the atlas included), 2 on
    a usage error or when nothing was read.
    """
    from rootcause.adapters.atlas.held import atlas_loader
    from rootcause.adapters.atlas.names_held import names_loader
    from rootcause.adapters.inputs import materialise
    from rootcause.adapters.triage_runner import finish_triage, start_triage
    from rootcause.core.diagnosis import holds_several_ranks
    from rootcause.core.versions import parse_env_spec
    from rootcause.errors import UsageError

    path_list = list(paths)
    if (not path_list or "-" in path_list) and sys.stdin.isatty():
        raise UsageError("nothing to diagnose: give a log file, or pipe text on stdin")
    env: Environment = installed_env() if detect_env else {}
    if env_spec:
        env.update(parse_env_spec(env_spec))
    notice = (lambda text: click.echo(f"rootcause: {text}", err=True)) if sys.stderr.isatty() else None
    atlas = atlas_loader(atlas_file, enabled=not no_atlas, notice=notice)
    given = materialise(path_list)
    if not given:
        raise UsageError("nothing read: no log files under " + ", ".join(path_list))
    # one pass: the scan feeds the triage the lines that hold its keywords; Flight Recorder dumps go to it alone
    triage, named = start_triage(given)
    show_progress = sys.stdout.isatty() and not no_progress
    names_index = names_loader(enabled=not no_atlas)
    d = run_diagnosis(named, env, list(canon), show_progress, triage=triage, atlas=atlas, names=names_index)
    if not triage.has_dumps and sum(i.bytes for i in d.inputs) == 0:
        names = ", ".join(name for name, _ in named)
        raise UsageError(f"nothing read: {names} held no bytes (nothing to read, nothing to diagnose)")
    if holds_several_ranks(d) or triage.has_dumps:
        finish_triage(d, triage, named)
    if output == "json":
        sys.stdout.write(d.model_dump_json(indent=2) + "\n")
    elif output == "md":
        from rootcause.core.render.diagnosis_view import diagnosis_markdown

        sys.stdout.write(diagnosis_markdown(d))
    else:
        from rootcause.adapters.cli.terminal import print_rich
        from rootcause.core.render.diagnosis_text import diagnosis_rich

        print_rich(diagnosis_rich(d))
    raise click.exceptions.Exit(EXIT_MATCHED if d.matched else EXIT_NO_MATCH)
