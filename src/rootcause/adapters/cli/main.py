"""The `rootcause` command. Each command group lives in its own module; this file only
assembles them and translates errors into exit codes, once."""

from __future__ import annotations

import sys

import click
import typer
from rich.console import Console

from rootcause.errors import RootcauseError

app = typer.Typer(
    name="rootcause",
    help="Known errors of the ML infrastructure stack: diagnose logs, browse and serve the canon.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

_COMMAND_MODULES = ("entries", "diagnose", "triage", "service", "agents")


def _register() -> None:
    import importlib

    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(f"rootcause.adapters.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"rootcause.adapters.cli.{name}":
                continue  # a command group that is not part of this build
            raise
        module.register(app)


_register()


def run() -> None:
    """Entry point: run the app and map every error to its exit code."""
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    try:
        code = app(standalone_mode=False)
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.exceptions.Abort:
        err.print("rootcause: aborted")
        code = 130
    except click.ClickException as exc:
        exc.show()
        code = 2 if isinstance(exc, click.UsageError) else exc.exit_code
    except RootcauseError as exc:
        err.print(f"rootcause: error: {exc}", markup=False)
        code = exc.exit_code
    except BrokenPipeError:
        code = 0
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    run()
