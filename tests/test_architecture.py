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


def _module_name(file: Path) -> str:
    parts = list(file.relative_to(CORE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return "rootcause." + ".".join(parts)


def _core_import_graph() -> dict[str, set[str]]:
    """Module -> the core modules it imports, wherever the import sits (top level, a function, `if
    TYPE_CHECKING:`): a circle that only type checking walks is still a circle for the reader."""
    files = {_module_name(f): f for f in CORE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, file in files.items():
        edges: set[str] = set()
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges |= {a.name for a in node.names if a.name in files}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    edges.add(sub if sub in files else node.module)
        graph[name] = {e for e in edges if e in files and e != name}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circle_in_the_core() -> None:
    graph = _core_import_graph()
    assert "rootcause.core.findings" in graph["rootcause.core.triage.kb"]
    triage = [m for m in graph if m.startswith("rootcause.core.triage")]
    assert not any("rootcause.core.diagnosis" in graph[m] for m in triage)
    assert _circles(graph) == []


def test_the_circle_check_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [["a", "b", "c"]]
