"""`rootcause atlas names`: the names index (which APIs, keywords, env vars and scripts each release defines).

It reads the same artifacts as `atlas build` (adapters/atlas/pypi.py, archive.py, and their disk cache):
the Python sources and shared objects of a wheel or sdist, plus its metadata (a wheel's
`entry_points.txt`; an sdist's `pyproject.toml` and `setup.py`). Each release's names are cached under
`<cache>/names/`, so a rebuild reads only new releases. Packages not named in a build are kept from the
existing output file. The shipped file is `data/atlas/names.json.xz`; `lint` reads it (RC602, RC603).
"""

from __future__ import annotations

import json
import lzma
import tarfile
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from packaging.version import Version

from rootcause.adapters.atlas import archive, pypi
from rootcause.core.atlas.names import (
    KINDS,
    MAX_ENV,
    NamesIndex,
    PackageNames,
    ReleaseNames,
    names_from_files,
    native_env_names,
    python_names,
)
from rootcause.errors import RootcauseError, StoreError

SHIPPED = Path(__file__).resolve().parent.parent.parent / "data" / "atlas" / "names.json.xz"
FORMAT = 1
# The packages whose names the canon's advice uses (see docs/atlas.md).
PACKAGES = (
    "torch", "transformers", "accelerate", "huggingface_hub", "datasets", "peft", "trl", "vllm", "deepspeed",
    "bitsandbytes", "lightning", "pytorch-lightning", "safetensors", "torchvision", "torchaudio",
)  # fmt: skip
METADATA_MAX = 1 << 20
# env vars read only by CUDA builds (TORCH_NCCL_*) are in the Linux wheels' libraries, not the macOS ones
LINUX_WHEEL = {"torch": pypi.linux_first}
# minors read besides the newest and each major's last: both sides of where the audit of issue 20 found names
# appearing (torch: TORCH_NCCL_TRACE_BUFFER_SIZE in 2.2, torchfrtrace in 2.5; huggingface_hub: `hf` in 0.34,
# `huggingface-cli` gone in 1.0), so lint can give their first release (RC603) exactly
DEFAULT_ALSO = {"torch": ("2.1", "2.2", "2.4", "2.5"), "huggingface_hub": ("0.33", "0.34", "1.0")}
CHUNK = 16 << 20  # shared objects are scanned in blocks of this size
OVERLAP = MAX_ENV + 2  # ... overlapping by the longest name kept

Progress = Callable[[str], None]


@dataclass
class NamesReport:
    read: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    unread: dict[str, str] = field(default_factory=dict)


def _metadata_members(path: Path) -> Iterator[tuple[str, bytes]]:
    """A wheel's `*.dist-info/entry_points.txt`; an sdist's top-level `pyproject.toml` (its setup.py is a .py)."""
    if path.name.endswith(".whl"):
        with zipfile.ZipFile(path) as wheel:
            for info in wheel.infolist():
                name = archive.clean_name(info.filename)
                if name and name.endswith(".dist-info/entry_points.txt") and info.file_size <= METADATA_MAX:
                    with wheel.open(info) as stream:
                        yield name, stream.read(METADATA_MAX)
    elif path.name.endswith((".tar.gz", ".tgz")):
        with tarfile.open(path, "r:*") as sdist:
            for member in sdist:
                name = archive.clean_name(member.name)
                if member.isfile() and name and name.count("/") == 1 and name.endswith("/pyproject.toml"):
                    found = sdist.extractfile(member)
                    if found is not None and member.size <= METADATA_MAX:
                        yield "pyproject.toml", found.read(METADATA_MAX)
                    return


# (member path, CRC-32, size) -> its names: most files of a release are unchanged in the next one
_SOURCE_NAMES: dict[tuple[str, int, int], ReleaseNames] = {}


def _wheel_members(path: Path, found: ReleaseNames, skipped: archive.Skipped) -> Iterator[tuple[str, bytes]]:
    """A wheel's metadata-free members; its .py files are read here with a per-file memo, and its shared
    objects scanned as streams (libtorch_cuda.so is ~1 GB)."""
    with zipfile.ZipFile(path) as wheel:
        for info in wheel.infolist()[: archive.MAX_MEMBERS]:
            name = archive.clean_name(info.filename)
            if info.is_dir() or name is None or not archive.wanted(name, sdist=False):
                continue
            if archive.is_native(name):
                with wheel.open(info) as stream:
                    found.env |= _streamed_env_names(stream)
            elif (key := (name, info.CRC, info.file_size)) in _SOURCE_NAMES:
                found.update(_SOURCE_NAMES[key])
            elif info.file_size <= archive.MAX_SOURCE:
                with wheel.open(info) as stream:
                    data = stream.read(archive.MAX_SOURCE)
                if name.endswith(".py") and name != "setup.py":
                    _SOURCE_NAMES[key] = python_names(name, data.decode("utf-8", errors="replace"))
                    found.update(_SOURCE_NAMES[key])
                else:
                    yield name, data
            else:
                skipped.add(name, f"{info.file_size} bytes, over {archive.MAX_SOURCE}")


def _streamed_env_names(stream) -> set[str]:
    found: set[str] = set()
    tail = b""
    while block := stream.read(CHUNK):
        data = tail + block
        found |= native_env_names(data)
        tail = data[-OVERLAP:]
    return found


def read_artifact(path: Path) -> ReleaseNames:
    """Every name one wheel or sdist defines."""
    skipped = archive.Skipped()
    found = ReleaseNames()
    try:
        if path.name.endswith(".whl"):
            found.update(names_from_files(_wheel_members(path, found, skipped)))
        else:
            found.update(names_from_files(archive.members(path, skipped)))
        found.update(names_from_files(_metadata_members(path)))
    except (OSError, EOFError, tarfile.TarError, zipfile.BadZipFile, ValueError) as exc:
        raise StoreError(f"{path.name}: unreadable archive: {exc}") from exc
    return found


def _release_names(artifact: pypi.Artifact, cache: Path, report: NamesReport) -> ReleaseNames:
    tag = f"{artifact.package}=={artifact.version}"
    cached = cache / "names" / artifact.package / f"{artifact.version}-{artifact.sha256[:16]}.json.xz"
    if cached.is_file():
        try:
            doc = json.loads(lzma.decompress(cached.read_bytes()))
            if doc.get("format") == FORMAT:
                report.cached.append(tag)
                return ReleaseNames(**{k: set(doc[k]) for k in KINDS})
        except (ValueError, KeyError, TypeError, lzma.LZMAError):
            pass
        cached.unlink()
    found = read_artifact(pypi.fetch(artifact, cache))
    cached.parent.mkdir(parents=True, exist_ok=True)
    doc = {"format": FORMAT} | {k: sorted(found.of(k)) for k in KINDS}
    cached.write_bytes(lzma.compress(json.dumps(doc).encode()))
    report.read.append(tag)
    return found


def choose_releases(
    artifacts: list[pypi.Artifact], latest: int, also: Sequence[str] = (), since: str | None = None
) -> list[pypi.Artifact]:
    """The newest `latest` minors, the last minor of every earlier major release (what a major release removed is
    what advice most often still names), the minors named in `also` (`2.2`), and every minor from `since`."""
    newest = artifacts[-latest:]
    last_of_major: dict[int, pypi.Artifact] = {}
    newest_major = min((Version(a.version).major for a in newest), default=0)
    for a in artifacts[: len(artifacts) - len(newest)]:
        if Version(a.version).major < newest_major:
            last_of_major[Version(a.version).major] = a
    chosen = {a.version for a in [*last_of_major.values(), *newest]}
    for a in artifacts:
        v = Version(a.version)
        if f"{v.major}.{v.minor}" in also or (since and v >= Version(since)):
            chosen.add(a.version)
    return [a for a in artifacts if a.version in chosen]


def build_names(
    packages: list[str],
    cache: Path,
    out: Path,
    *,
    latest: int = 6,
    also: dict[str, tuple[str, ...]] | None = None,
    since: dict[str, str] | None = None,
    artifacts_dir: Path | None = None,
    progress: Progress = lambda line: None,
) -> NamesReport:
    """Build (or update) the names index at `out` for `packages`; other packages are kept from `out`."""
    report = NamesReport()
    index: dict[str, PackageNames] = dict(load_names(out)) if out.is_file() else {}
    for package in packages:
        try:
            if artifacts_dir is not None:
                listed = pypi.local_releases(artifacts_dir, package)
            else:
                listed = pypi.pypi_releases(package, 2000, LINUX_WHEEL.get(package, pypi.pick_artifact))
        except RootcauseError as exc:
            report.unread[package] = str(exc)
            progress(f"[{package}] not listed: {exc}")
            continue
        extra = (DEFAULT_ALSO | (also or {})).get(package, ())
        chosen = choose_releases(listed, latest, extra, (since or {}).get(package))
        read: list[str] = []
        by_release: list[ReleaseNames] = []
        for i, artifact in enumerate(chosen, 1):
            try:
                by_release.append(_release_names(artifact, cache, report))
            except (RootcauseError, OSError) as exc:
                report.unread[f"{package}=={artifact.version}"] = " ".join(str(exc).split())
                progress(f"[{package} {i}/{len(chosen)}] {artifact.version}: not read: {exc}")
                continue
            read.append(artifact.version)
            counts = ", ".join(f"{len(by_release[-1].of(k))} {k}" for k in KINDS)
            progress(f"[{package} {i}/{len(chosen)}] {artifact.version} ({artifact.filename}): {counts}")
        if read:
            index[package] = PackageNames.merge(read, by_release)
    write_names(out, index)
    return report


def write_names(out: Path, index: NamesIndex) -> None:
    doc = {
        "format": FORMAT,
        "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "packages": {p: index[p].to_json() for p in sorted(index)},
    }
    data = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".part")
    partial.write_bytes(lzma.compress(data, preset=9 | lzma.PRESET_EXTREME) if out.name.endswith(".xz") else data)
    partial.replace(out)


def load_names(path: Path | None = None) -> NamesIndex:
    """The names index (default: the shipped one); empty when there is none."""
    path = path or SHIPPED
    if not path.is_file():
        return {}
    try:
        data = path.read_bytes()
        doc = json.loads(lzma.decompress(data) if path.name.endswith(".xz") else data)
        if doc.get("format") != FORMAT:
            raise StoreError(f"{path}: names index format {doc.get('format')}, expected {FORMAT}")
        return {p: PackageNames.from_json(v) for p, v in doc["packages"].items()}
    except (OSError, ValueError, KeyError, TypeError, lzma.LZMAError) as exc:
        raise StoreError(f"{path}: unreadable names index: {exc}") from exc
