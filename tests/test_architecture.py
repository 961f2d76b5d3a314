"""The domain core does no I/O: it takes data in and gives data back.

Walks every module under rootcause/core and fails on imports of I/O modules or calls of
open(). The adapters (CLI, web, MCP, storage, files) are the only places that touch the world.
"""

from __future__ import annotations

import ast
from pathlib import Path

import rootcause.core

CORE = Path(rootcause.core.__file__).parent
FORBIDDEN = {
    "os",
    "pathlib",
    "io",
    "shutil",
    "socket",
    "subprocess",
    "sqlite3",
    "gzip",
    "tempfile",
    "urllib",
    "http",
    "httpx",
    "requests",
    "sqlalchemy",
    "psycopg",
    "fastapi",
    "uvicorn",
    "starlette",
    "mcp",
    "asyncio",
    "threading",
    "multiprocessing",
    "rootcause.adapters",
    # the fleet engines and their table libraries are optional extras, used by adapters only
    "pyspark",
    "dask",
    "distributed",
    "ray",
    "drain3",
    "pyarrow",
    "pandas",
}


def _imports(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_core_modules_import_no_io() -> None:
    offenders: list[str] = []
    files = sorted(CORE.rglob("*.py"))
    assert len(files) >= 10
    for file in files:
        tree = ast.parse(file.read_text(encoding="utf-8"))
        for name in _imports(tree):
            if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN):
                offenders.append(f"{file.relative_to(CORE)} imports {name}")
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in {"open", "print", "input"}
            ):
                offenders.append(f"{file.relative_to(CORE)}:{node.lineno} calls {node.func.id}()")
    assert offenders == []


def test_the_check_itself_catches_io(tmp_path: Path) -> None:
    tree = ast.parse("import os\nfrom pathlib import Path\nopen('x')\n")
    assert {"os", "pathlib"} <= _imports(tree)


def test_engines_load_only_when_asked() -> None:
    """`rootcause diagnose` and the CLI never import an engine (they are optional extras)."""
    import subprocess
    import sys

    code = (
        "import sys, rootcause, rootcause.core.diagnosis, rootcause.adapters.cli.main, rootcause.adapters.fleet;"
        "print(sorted(m for m in ('pyspark', 'dask', 'distributed', 'ray', 'drain3') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
