"""Where the canon's entry files are, and writing files whole: what reading the index from its cache needs.

Kept apart from `canon_files` (YAML parsing and entry validation), so that a diagnosis whose index comes from the
disk cache imports neither YAML nor the validators.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from importlib import resources
from pathlib import Path

CANON_ENV = "ROOTCAUSE_CANON"
SUFFIX = ".yaml"


_ENV_KEYS: dict[str, object] = {}  # a variable's name as os.environ keys its own mapping


def env_value(name: str) -> str:
    """``os.environ.get(name, "")`` as one look-up in the mapping os.environ keeps (CPython's ``_data``, kept in step
    by every write through os.environ): a held `rootcause.diagnose` call reads three variables, and the generic
    ``Mapping.get`` path through ``os.environ``'s frames cost about 25 us a call when other work had left the CPU's
    caches cold (bench/README.md). Any other environ (a test's stand-in) is asked the ordinary way."""
    environ = os.environ
    data = getattr(environ, "_data", None)
    encode = getattr(environ, "encodekey", None)
    if type(data) is not dict or encode is None:
        return environ.get(name, "")
    key = _ENV_KEYS.get(name)
    if key is None:
        key = _ENV_KEYS[name] = encode(name)
    value = data.get(key)
    return "" if value is None else environ.decodevalue(value)  # type: ignore[attr-defined]


def builtin_canon_dir() -> Path:
    return Path(str(resources.files("rootcause") / "canon"))


def checkout_canon_dir(start: Path | None = None) -> Path | None:
    """The canon of the source checkout that holds ``start`` (the working folder by default): the
    nearest folder above it with a pyproject.toml and src/rootcause/canon. None outside a checkout."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "src" / "rootcause" / "canon"
        if (folder / "pyproject.toml").is_file() and candidate.is_dir():
            return candidate
    return None


def canon_dirs(extra: Iterable[str | os.PathLike[str]] = ()) -> list[Path]:
    """The shipped canon first, then ROOTCAUSE_CANON folders, then --canon folders.

    Later folders override earlier ones for the same id.
    """
    dirs = [builtin_canon_dir()]
    env = env_value(CANON_ENV)
    dirs += [Path(p) for p in env.split(os.pathsep) if p]
    dirs += [Path(p) for p in extra]
    return dirs


def iter_entry_files(root: Path) -> Iterator[tuple[Path, str]]:
    """Yield (file, id) for every entry file below a canon folder."""
    for file in sorted(root.rglob(f"*{SUFFIX}")):
        rel = file.relative_to(root).with_suffix("")
        yield file, rel.as_posix()


def write_atomic_bytes(path: Path, data: bytes) -> None:
    """Write a file so that a crash never leaves it half-written."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def write_atomic(path: Path, text: str) -> None:
    write_atomic_bytes(path, text.encode("utf-8"))
