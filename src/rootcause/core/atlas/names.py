"""The names index: which public names each release of a package defines (pure, no I/O).

"Does `X` still exist?" is answered from the names a release's files define: module paths,
public classes, functions and methods, keyword parameters (and the keys read from `**kwargs`),
environment variable names (whole string literals in Python, whole C strings in shared objects),
and console scripts. The adapters hand over file contents; this module turns them into sets, and
sets over releases into intervals.
"""

from __future__ import annotations

import ast
import configparser
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

KINDS = ("module", "symbol", "kwarg", "env", "script")
ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A whole NUL-terminated C string that is an env-var-like name: getenv("TORCH_NCCL_...") keeps it so.
_NATIVE_ENV = re.compile(rb"(?<=\x00)([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])(?=\x00)")
_KWARGS_READS = {"pop", "get", "setdefault"}
MAX_ENV = 80
NATIVE = (".so", ".dylib", ".pyd", ".dll")


@dataclass
class ReleaseNames:
    """The names one release defines, by kind (see KINDS)."""

    module: set[str] = field(default_factory=set)
    symbol: set[str] = field(default_factory=set)
    kwarg: set[str] = field(default_factory=set)
    env: set[str] = field(default_factory=set)
    script: set[str] = field(default_factory=set)

    def of(self, kind: str) -> set[str]:
        return getattr(self, kind)

    def update(self, other: ReleaseNames) -> None:
        for kind in KINDS:
            self.of(kind).update(other.of(kind))


def module_name(path: str) -> str | None:
    """`torch/distributed/run.py` -> `torch.distributed.run`; `pkg/__init__.py` -> `pkg`; None when not importable."""
    if not path.endswith(".py"):
        return None
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if not parts or not all(_IDENT.fullmatch(p) for p in parts):
        return None
    return ".".join(parts)


def _public(name: str) -> bool:
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))


def _is_env_literal(node: ast.AST) -> str | None:
    text = node.value if isinstance(node, ast.Constant) else None
    return text if isinstance(text, str) and len(text) <= MAX_ENV and ENV_NAME.fullmatch(text) else None


def _kwargs_key(node: ast.AST) -> str | None:
    """`kwargs.pop("x", …)`, `kwargs.get("x")`, `kwargs["x"]`: the key read from a `**kwargs`-like mapping."""
    target: ast.AST | None = None
    key: ast.AST | None = None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _KWARGS_READS:
        target, key = node.func.value, node.args[0] if node.args else None
    elif isinstance(node, ast.Subscript):
        target, key = node.value, node.slice
    if not (isinstance(target, ast.Name) and target.id.endswith("kwargs") and isinstance(key, ast.Constant)):
        return None
    return key.value if isinstance(key.value, str) and _IDENT.fullmatch(key.value) else None


def _self_attribute(node: ast.AST) -> bool:
    """`self.x = …` with a public x (an attribute users may name)."""
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and not node.attr.startswith("_")
    )


def python_names(path: str, source: str) -> ReleaseNames:
    """The names one Python file defines: its module path, public definitions, keyword names, env literals."""
    found = ReleaseNames()
    module = module_name(path)
    if module is None:
        return found
    found.module.add(module)
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return found
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if _public(node.name):
                found.symbol.add(node.name)
            if not isinstance(node, ast.ClassDef):
                args = node.args
                for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                    if not arg.arg.startswith("_") and arg.arg not in ("self", "cls"):
                        found.kwarg.add(arg.arg)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and _public(target.id):
                    found.symbol.add(target.id)
                elif _self_attribute(target):
                    found.symbol.add(target.attr)  # type: ignore[attr-defined]
        elif (key := _kwargs_key(node)) is not None:
            found.kwarg.add(key)
        elif (env := _is_env_literal(node)) is not None:
            found.env.add(env)
    return found


def native_env_names(data: bytes) -> set[str]:
    """Env-var-like names stored as whole C strings in a shared object (what `getenv("X")` compiles to)."""
    return {m.decode("ascii") for m in _NATIVE_ENV.findall(data) if len(m) <= MAX_ENV}


def entry_point_scripts(text: str) -> set[str]:
    """Console and GUI scripts of a wheel's `entry_points.txt`."""
    parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    parser.optionxform = str  # type: ignore[assignment, method-assign]
    try:
        parser.read_string(text)
    except configparser.Error:
        return set()
    return {
        name.strip() for section in ("console_scripts", "gui_scripts") if parser.has_section(section)
        for name in parser.options(section)
    }  # fmt: skip


def pyproject_scripts(text: str) -> set[str]:
    """`[project.scripts]` of an sdist's pyproject.toml."""
    try:
        doc = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return set()
    project = doc.get("project", {})
    return {str(k) for key in ("scripts", "gui-scripts") for k in project.get(key, {})}


_SETUP_SCRIPT = re.compile(r"""["']\s*([A-Za-z0-9][\w.-]*)\s*=\s*[\w.]+\s*:\s*[\w.]+\s*["']""")


def setup_py_scripts(text: str) -> set[str]:
    """`"name = module:func"` strings of an sdist's setup.py (its console_scripts)."""
    return set(_SETUP_SCRIPT.findall(text)) if "console_scripts" in text else set()


Intervals = list[tuple[int, int]]


def intervals_of(present: Sequence[bool]) -> Intervals:
    """Runs of True as (first index, last index)."""
    out: Intervals = []
    start = None
    for i, here in enumerate([*present, False]):
        if here and start is None:
            start = i
        elif not here and start is not None:
            out.append((start, i - 1))
            start = None
    return out


@dataclass(frozen=True)
class PackageNames:
    """One package's names over the releases read (oldest first): name -> release index intervals."""

    releases: tuple[str, ...]
    names: Mapping[str, Mapping[str, Intervals]]  # kind -> name -> intervals

    @classmethod
    def merge(cls, releases: Sequence[str], by_release: Sequence[ReleaseNames]) -> PackageNames:
        names: dict[str, dict[str, Intervals]] = {}
        for kind in KINDS:
            every = sorted(set().union(*(r.of(kind) for r in by_release)))
            names[kind] = {n: intervals_of([n in r.of(kind) for r in by_release]) for n in every}
        return cls(tuple(releases), names)

    @property
    def latest(self) -> str:
        return self.releases[-1]

    def releases_with(self, kind: str, name: str) -> list[str]:
        return [self.releases[i] for a, b in self.names.get(kind, {}).get(name, []) for i in range(a, b + 1)]

    def span(self, kind: str, name: str) -> tuple[str, str] | None:
        """(first, last) release read that defines it, or None."""
        found = self.releases_with(kind, name)
        return (found[0], found[-1]) if found else None

    def to_json(self) -> dict:
        return {
            "releases": list(self.releases),
            "names": {k: {n: [list(iv) for iv in ivs] for n, ivs in v.items()} for k, v in self.names.items()},
        }

    @classmethod
    def from_json(cls, doc: Mapping) -> PackageNames:
        return cls(tuple(doc["releases"]), doc["names"])  # [first, last] lists, read as they are (300k names)


NamesIndex = Mapping[str, PackageNames]  # package -> its names


def names_from_files(files: Iterable[tuple[str, bytes]]) -> ReleaseNames:
    """The names of one release from its (path, bytes) members: .py sources, shared objects, metadata files."""
    found = ReleaseNames()
    for path, data in files:
        base = path.rsplit("/", 1)[-1]
        if base.endswith(NATIVE) or ".so." in base:
            found.env |= native_env_names(data)
            continue
        text = data.decode("utf-8", errors="replace")
        if path == "setup.py":  # an sdist's own (the top folder is stripped)
            found.script |= setup_py_scripts(text)
        elif path.endswith(".py"):
            found.update(python_names(path, text))
        elif path.endswith(".dist-info/entry_points.txt"):
            found.script |= entry_point_scripts(text)
        elif path == "pyproject.toml":
            found.script |= pyproject_scripts(text)
    return found
