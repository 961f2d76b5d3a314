"""Reading a wheel or sdist without extracting it: bounded, hostile-archive safe.

Only regular members with a clean relative name are read; a member over its size cap, or one whose
compression ratio says zip bomb, is skipped and reported, and no read trusts a header's size.
"""

from __future__ import annotations

import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

MAX_SOURCE = 4 << 20  # a .py file over 4 MiB is generated data, not code
MAX_NATIVE = 768 << 20  # a shared object over 768 MiB is skipped
MAX_RATIO = 200  # uncompressed / compressed above this (for members over 1 MiB): a zip bomb
MAX_MEMBERS = 200_000
SKIP_DIRS = {"tests", "test", "examples", "benchmarks", "benchmark", "docs", "third_party", "_vendor"}
NATIVE_SUFFIXES = (".so", ".dylib")


@dataclass
class Skipped:
    """What an archive read left out, and why (for the build report)."""

    members: list[str] = field(default_factory=list)

    def add(self, name: str, why: str) -> None:
        self.members.append(f"{name} ({why})")


def clean_name(name: str) -> str | None:
    """The member's path if it is relative and stays inside the archive, else None."""
    if "\\" in name or "\x00" in name:
        return None
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts:
        return None
    return str(path)


def is_native(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return base.endswith(NATIVE_SUFFIXES) or ".so." in base


def wanted(name: str, *, sdist: bool) -> bool:
    parts = name.split("/")
    inner = parts[1:] if sdist else parts  # an sdist's top folder is `<name>-<version>`
    if any(p in SKIP_DIRS for p in inner[:-1]):
        return False
    return name.endswith(".py") or (not sdist and is_native(name))


def _read(stream, limit: int) -> bytes | None:
    data = stream.read(limit + 1)
    return None if len(data) > limit else data


def members(path: Path, skipped: Skipped) -> Iterator[tuple[str, bytes]]:
    """(module path, bytes) of every wanted member: .py sources, and shared objects of wheels.

    Module paths of an sdist lose its top folder, so they are paths inside the project's repository.
    """
    name = path.name
    if name.endswith((".whl", ".zip")):
        yield from _zip_members(path, skipped, sdist=name.endswith(".zip"))
    elif name.endswith((".tar.gz", ".tgz", ".tar.bz2", ".tar")):
        yield from _tar_members(path, skipped)
    else:
        skipped.add(name, "not a wheel or sdist")


def _strip_top(name: str, sdist: bool) -> str:
    return name.split("/", 1)[1] if sdist and "/" in name else name


def _zip_members(path: Path, skipped: Skipped, *, sdist: bool) -> Iterator[tuple[str, bytes]]:
    with zipfile.ZipFile(path) as archive:
        infos = archive.infolist()
        if len(infos) > MAX_MEMBERS:
            skipped.add(path.name, f"{len(infos)} members, over {MAX_MEMBERS}")
            return
        for info in infos:
            name = clean_name(info.filename)
            if info.is_dir():
                continue
            if name is None:
                skipped.add(info.filename, "unsafe path")
                continue
            if not wanted(name, sdist=sdist):
                continue
            limit = MAX_NATIVE if is_native(name) else MAX_SOURCE
            if info.file_size > limit:
                skipped.add(name, f"{info.file_size} bytes, over {limit}")
                continue
            if info.file_size > 1 << 20 and info.file_size > MAX_RATIO * max(info.compress_size, 1):
                skipped.add(name, "compression ratio of a zip bomb")
                continue
            with archive.open(info) as stream:
                data = _read(stream, limit)
            if data is None:
                skipped.add(name, f"over {limit} bytes when read")
                continue
            yield _strip_top(name, sdist), data


def _tar_members(path: Path, skipped: Skipped) -> Iterator[tuple[str, bytes]]:
    with tarfile.open(path, "r:*") as archive:
        count = 0
        for info in archive:
            count += 1
            if count > MAX_MEMBERS:
                skipped.add(path.name, f"over {MAX_MEMBERS} members")
                return
            if not info.isfile():
                continue  # links, devices, folders: never followed
            name = clean_name(info.name)
            if name is None:
                skipped.add(info.name, "unsafe path")
                continue
            if not wanted(name, sdist=True):
                continue
            if info.size > MAX_SOURCE:
                skipped.add(name, f"{info.size} bytes, over {MAX_SOURCE}")
                continue
            stream = archive.extractfile(info)
            if stream is None:
                continue
            data = _read(stream, MAX_SOURCE)
            if data is None:
                skipped.add(name, f"over {MAX_SOURCE} bytes when read")
                continue
            yield _strip_top(name, True), data
