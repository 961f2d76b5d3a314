"""The `rootcause` command.

Commands load lazily: `rootcause diagnose` imports only what a diagnosis needs, so a cold
start stays close to bare Python. Errors become exit codes here, once.
"""

from __future__ import annotations

import importlib
import sys

import click

from rootcause import __version__
from rootcause.errors import RootcauseError

DISTRIBUTION = "rootcause-ml"  # the name on PyPI; the command and the import name stay rootcause
# a module that only an extra installs -> the extra that installs it
EXTRA_OF_MODULE = {
    "pyarrow": "fleet",
    "drain3": "fleet",
    "dask": "dask",
    "distributed": "dask",
    "pyspark": "spark",
    "ray": "ray",
    "pandas": "spark",
}

# command name -> "module:attribute" of a click command
COMMANDS: dict[str, str] = {
    "diagnose": "rootcause.adapters.cli.diagnose:diagnose",
    "triage": "rootcause.adapters.cli.triage:triage",
    "show": "rootcause.adapters.cli.entries:show",
    "lint": "rootcause.adapters.cli.entries:lint",
    "lint-codes": "rootcause.adapters.cli.entries:lint_codes",
    "fmt": "rootcause.adapters.cli.entries:fmt",
    "stats": "rootcause.adapters.cli.entries:stats",
    "schema": "rootcause.adapters.cli.entries:schema",
    "import": "rootcause.adapters.cli.entries:import_entries",
    "serve": "rootcause.adapters.cli.service:serve",
    "index": "rootcause.adapters.cli.service:index",
    "outcomes": "rootcause.adapters.cli.service:outcomes",
    "token": "rootcause.adapters.cli.service:token",
    "build-site": "rootcause.adapters.cli.service:build_site",
    "mcp": "rootcause.adapters.cli.agents:mcp",
    "verify": "rootcause.adapters.cli.verify:verify",
    "fleet": "rootcause.adapters.cli.fleet:fleet",
    "atlas": "rootcause.adapters.cli.atlas:atlas",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        return getattr(importlib.import_module(module_name), attr)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(version=__version__, prog_name="rootcause")
def app() -> None:
    """Known errors of the ML infrastructure stack: diagnose logs, browse and serve the canon."""


def _error(message: str) -> None:
    """Every error at the command's edge is one line on stderr."""
    click.echo(f"rootcause: error: {' '.join(message.split())}", err=True)


def run(argv: list[str] | None = None) -> None:
    """Entry point: run the app and map every error to its exit code."""
    try:
        code = app.main(args=argv, prog_name="rootcause", standalone_mode=False)
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.exceptions.Abort:
        click.echo("rootcause: aborted", err=True)
        code = 130
    except click.UsageError as exc:
        command = exc.ctx.command_path if exc.ctx is not None else "rootcause"
        _error(f"{exc.format_message()} (see '{command} --help')")
        code = exc.exit_code
    except click.ClickException as exc:
        _error(exc.format_message())
        code = exc.exit_code
    except RootcauseError as exc:
        _error(str(exc))
        code = exc.exit_code
    except ModuleNotFoundError as exc:
        extra = EXTRA_OF_MODULE.get((exc.name or "").split(".")[0])
        if extra is None:
            raise
        _error(f"this command needs the optional module {exc.name!r}: pip install '{DISTRIBUTION}[{extra}]'")
        code = 2
    except BrokenPipeError:
        code = 0
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    run()
