"""Releases and artifacts: PyPI's JSON API (or a local folder of artifacts), and a disk cache.

An artifact is downloaded once into the cache, its sha256 checked against PyPI's digest; a cached
file is re-hashed before it is trusted.
"""

from __future__ import annotations

import hashlib
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from rootcause.errors import NotFoundError, StoreError

PYPI = "https://pypi.org/pypi/{package}/json"
MAX_ARTIFACT = 1200 << 20  # bigger downloads are skipped and reported
MAX_INDEX = 64 << 20
TIMEOUT = 60
# packages whose wheels are CUDA builds of hundreds of MB: their sdist holds every Python source
SDIST_FIRST = {"deepspeed", "flash-attn", "vllm", "xformers"}
SINCE_OVERRIDE = {"torch": "1.0"}  # torch from 1.0, whatever --since says


@dataclass(frozen=True)
class Artifact:
    package: str
    version: str
    filename: str
    url: str  # "" for a local artifact
    sha256: str
    size: int


def _version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


def pick_artifact(package: str, files: list[dict]) -> dict | None:
    """The one file of a release to read: a pure wheel, else (for CUDA-heavy packages) the sdist,
    else the smallest macOS wheel (same Python sources, CPU library, a tenth of the size), else the
    smallest wheel, else the sdist."""
    files = [f for f in files if not f.get("yanked") and f.get("digests", {}).get("sha256")]
    wheels = [f for f in files if f["filename"].endswith(".whl")]
    sdists = [f for f in files if f.get("packagetype") == "sdist" and f["filename"].endswith((".tar.gz", ".zip"))]
    pure = [f for f in wheels if f["filename"].endswith("-none-any.whl")]
    mac = [f for f in wheels if "macosx" in f["filename"]]
    for group in (pure, sdists if package in SDIST_FIRST else [], mac, wheels, sdists):
        if group:
            return min(group, key=lambda f: f["size"])
    return None


def release_series(version: Version) -> tuple[int, ...]:
    """The series whose latest patch is read: (major, minor); a 0.0.N release is its own series
    (xformers numbers every release 0.0.N, so by minor it would have one release)."""
    if version.major == 0 and version.minor == 0:
        return (0, 0, version.micro)
    return (version.major, version.minor)


Picker = Callable[[str, list[dict]], dict | None]


def linux_first(package: str, files: list[dict]) -> dict | None:
    """The smallest Linux x86_64 wheel (CUDA builds: what only they compile in, such as NCCL's env vars),
    else pick_artifact's choice."""
    usable = [f for f in files if not f.get("yanked") and f.get("digests", {}).get("sha256")]
    linux = [f for f in usable if re.search(r"linux\w*_x86_64\.whl$", f["filename"])]
    return min(linux, key=lambda f: f["size"]) if linux else pick_artifact(package, files)


def latest_minors(package: str, data: dict, since: int, pick: Picker = pick_artifact) -> list[Artifact]:
    """The latest patch of every minor release (finals only), uploaded in `since` or later (torch: from 1.0)."""
    best: dict[tuple[int, ...], tuple[Version, str]] = {}
    for text, files in data.get("releases", {}).items():
        version = _version(text)
        if version is None or version.is_prerelease or version.is_devrelease or not files:
            continue
        if all(f.get("yanked") for f in files):
            continue
        minor = release_series(version)
        if minor not in best or version > best[minor][0]:
            best[minor] = (version, text)
    floor = SINCE_OVERRIDE.get(package)
    out: list[Artifact] = []
    for minor in sorted(best):
        version, text = best[minor]
        files = data["releases"][text]
        if floor is not None:
            if version < Version(floor):
                continue
        elif min(f.get("upload_time", "9999")[:4] for f in files) < str(since):
            continue
        chosen = pick(package, files)
        if chosen is not None:
            sha = chosen["digests"]["sha256"]
            out.append(Artifact(package, text, chosen["filename"], chosen["url"], sha, chosen["size"]))
    return out


def pypi_releases(package: str, since: int, pick: Picker = pick_artifact) -> list[Artifact]:
    """The releases of `package` to read, oldest first, from PyPI's JSON API."""
    url = PYPI.format(package=canonicalize_name(package))
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            data = json.loads(response.read(MAX_INDEX))
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            raise NotFoundError(f"{package}: not on PyPI ({url})") from exc
        raise StoreError(f"{url}: HTTP {exc.code}") from exc
    except (urllib.error.URLError, TimeoutError, OSError, ValueError) as exc:
        raise StoreError(f"{url}: {exc}") from exc
    found = latest_minors(package, data, since, pick)
    # a mirror may give file URLs relative to the JSON document
    return [replace(a, url=urllib.parse.urljoin(url, a.url)) for a in found]


_FILENAME = re.compile(r"^(?P<name>[A-Za-z0-9_.]+?)-(?P<version>\d[^-]*?)(?:-.+\.whl|\.tar\.gz|\.zip|\.tgz)$")


def local_releases(folder: Path, package: str) -> list[Artifact]:
    """The artifacts of `package` in a local folder (offline builds, tests), oldest first."""
    out: list[Artifact] = []
    for path in sorted(folder.iterdir()):
        m = _FILENAME.match(path.name)
        if not m or canonicalize_name(m.group("name")) != canonicalize_name(package):
            continue
        if _version(m.group("version")) is None:
            continue
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        out.append(Artifact(package, m.group("version"), path.name, path.as_uri(), digest, path.stat().st_size))
    return sorted(out, key=lambda a: Version(a.version))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fetch(artifact: Artifact, cache: Path) -> Path:
    """The artifact's file in the cache, downloaded once and checked against its sha256."""
    if artifact.url.startswith("file:"):
        return Path(urllib.request.url2pathname(artifact.url[5:]))
    if artifact.size > MAX_ARTIFACT:
        raise StoreError(f"{artifact.filename}: {artifact.size} bytes, over the {MAX_ARTIFACT} download cap")
    target = cache / "artifacts" / canonicalize_name(artifact.package) / artifact.filename
    if target.is_file() and _sha256(target) == artifact.sha256:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    h = hashlib.sha256()
    try:
        with urllib.request.urlopen(artifact.url, timeout=TIMEOUT) as response, partial.open("wb") as out:
            total = 0
            for block in iter(lambda: response.read(1 << 20), b""):
                total += len(block)
                if total > MAX_ARTIFACT:
                    raise StoreError(f"{artifact.filename}: over the {MAX_ARTIFACT} download cap")
                h.update(block)
                out.write(block)
    except (urllib.error.URLError, TimeoutError, OSError, ValueError) as exc:
        partial.unlink(missing_ok=True)
        raise StoreError(f"{artifact.url}: {exc}") from exc
    if h.hexdigest() != artifact.sha256:
        partial.unlink(missing_ok=True)
        raise StoreError(f"{artifact.filename}: sha256 {h.hexdigest()} is not PyPI's {artifact.sha256}")
    partial.replace(target)
    return target
