"""`rootcause atlas build`: read every chosen release, extract its templates, write the atlas.

Each release's extraction is cached as compressed JSON under `<cache>/extract/`, keyed by the
artifact's sha256, so a rebuild (or a resumed one) reads only releases it has not seen. Packages
not named in a build keep their templates from the existing atlas file.
"""

from __future__ import annotations

import io
import json
import lzma
import subprocess
import tarfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from packaging.version import InvalidVersion, Version

from rootcause.adapters.atlas import archive, pypi, store
from rootcause.adapters.atlas.sources import source_url
from rootcause.core.atlas.extract import MAX_PATTERN, Extracted, extract_python
from rootcause.core.atlas.intervals import merge_releases
from rootcause.core.atlas.model import AtlasManifest, Template, TemplateKind
from rootcause.core.atlas.native import native_strings, nccl_formats, renormalized
from rootcause.core.atlas.prune import is_generic, is_not_own
from rootcause.errors import NotFoundError, RootcauseError, StoreError

PACKAGES = (
    "torch", "transformers", "accelerate", "peft", "datasets", "huggingface_hub", "safetensors", "trl",
    "deepspeed", "vllm", "bitsandbytes", "lightning", "pytorch-lightning", "triton", "xformers", "flash-attn",
    "onnx", "onnxruntime", "torchvision", "torchaudio",
    "diffusers", "sentence-transformers", "optimum", "llamafactory", "transformer-engine", "megatron-core",
    "torchtune", "torchao", "timm", "torch-xla", "sglang", "unsloth", "unsloth-zoo", "axolotl", "verl", "openrlhf",
    "mmengine", "mmcv", "mmdet",
)  # fmt: skip
NCCL_SOURCES = (".cc", ".cu", ".h", ".cpp", ".c")
CACHE_FORMAT = 5  # 4: names read through their bindings, banner lines skipped, warning_advice; 5: trailing blanks

Progress = Callable[[str], None]


@dataclass
class BuildReport:
    read: list[str] = field(default_factory=list)  # "pkg==version" extracted now
    cached: list[str] = field(default_factory=list)  # "pkg==version" taken from the extraction cache
    unread: dict[str, str] = field(default_factory=dict)  # "pkg==version" (or "pkg") -> why
    skipped_members: int = 0
    templates: int = 0


def _to_json(found: list[Extracted], sdist: bool) -> bytes:
    rows = [[f.message, f.pattern, f.literal, f.exception, str(f.kind), f.function, f.line, f.module] for f in found]
    return lzma.compress(json.dumps({"format": CACHE_FORMAT, "sdist": sdist, "found": rows}).encode())


def _from_json(data: bytes) -> tuple[list[Extracted], bool]:
    doc = json.loads(lzma.decompress(data))
    if doc.get("format") != CACHE_FORMAT:
        raise ValueError("old cache format")
    found = [Extracted(m, p, lit, exc, TemplateKind(k), fn, ln, mod) for m, p, lit, exc, k, fn, ln, mod in doc["found"]]
    return [f for f in found if len(f.pattern) <= MAX_PATTERN], bool(doc["sdist"])


def extract_artifact(path: Path, skipped: archive.Skipped) -> tuple[list[Extracted], bool]:
    """Every template of one wheel or sdist (Python sources, and shared objects of a wheel)."""
    sdist = not path.name.endswith(".whl")
    found: list[Extracted] = []
    for module, data in archive.members(path, skipped):
        if archive.is_native(module):
            found += native_strings(data, module)
        else:
            text = data.decode("utf-8", errors="replace")
            found += [replace(f, module=module) for f in extract_python(text)]
    return found, sdist


def _release_templates(
    artifact: pypi.Artifact, cache: Path, report: BuildReport, progress: Progress, cached_only: bool = False
) -> tuple[list[Extracted], bool]:
    tag = f"{artifact.package}=={artifact.version}"
    cached = cache / "extract" / artifact.package / f"{artifact.version}-{artifact.sha256[:16]}.json.xz"
    if cached.is_file():
        try:
            found, sdist = _from_json(cached.read_bytes())
            report.cached.append(tag)
            kept = [f for f in map(renormalized, found) if f is not None and not is_generic(f)]
            return [f for f in kept if not is_not_own(artifact.package, f)], sdist
        except (ValueError, KeyError, TypeError, lzma.LZMAError):
            cached.unlink()
    if cached_only:
        raise NotFoundError("not in the extraction cache (--cached-only); a build without it reads it")
    path = pypi.fetch(artifact, cache)
    skipped = archive.Skipped()
    try:
        found, sdist = extract_artifact(path, skipped)
    except (OSError, EOFError, tarfile.TarError, zipfile.BadZipFile, ValueError) as exc:
        raise StoreError(f"{artifact.filename}: unreadable archive: {exc}") from exc
    report.skipped_members += len(skipped.members)
    for member in skipped.members[:5]:
        progress(f"  skipped {member}")
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(_to_json(found, sdist))
    report.read.append(tag)
    return [f for f in found if not is_generic(f) and not is_not_own(artifact.package, f)], sdist


def build_package(
    package: str,
    artifacts: list[pypi.Artifact],
    cache: Path,
    report: BuildReport,
    progress: Progress,
    cached_only: bool = False,
) -> tuple[list[Template], list[str], dict[str, str]]:
    """The templates of one package over its releases, the releases read and their digests (`cached_only`:
    only releases whose extraction is cached; the others are unread)."""
    found_by_release: dict[str, list[Extracted]] = {}
    sdist_of: dict[str, bool] = {}
    digests: dict[str, str] = {}
    for i, artifact in enumerate(artifacts, 1):
        tag = f"{package}=={artifact.version}"
        try:
            found, sdist = _release_templates(artifact, cache, report, progress, cached_only)
        except (RootcauseError, OSError) as exc:
            report.unread[tag] = " ".join(str(exc).split())
            progress(f"[{package} {i}/{len(artifacts)}] {artifact.version}: not read: {report.unread[tag]}")
            continue
        found_by_release[artifact.version] = found
        sdist_of[artifact.version] = sdist
        digests[tag] = artifact.sha256
        progress(f"[{package} {i}/{len(artifacts)}] {artifact.version} ({artifact.filename}): {len(found)} templates")
    releases = [a.version for a in artifacts if a.version in found_by_release]

    def url(release: str, found: Extracted) -> str:
        return source_url(package, release, found.module, found.line, sdist=sdist_of[release])

    return merge_releases(package, releases, found_by_release, url), releases, digests


def nccl_artifacts(repo: Path, since: int) -> list[tuple[str, str]]:
    """(version, commit) of the latest tag of every NCCL minor release dated `since` or later."""
    fmt = "--format=%(refname:short) %(*objectname)%(objectname) %(creatordate:short)"
    out = subprocess.run(
        ["git", "-C", str(repo), "for-each-ref", fmt, "refs/tags"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    best: dict[tuple[int, int], tuple[Version, str, str]] = {}
    for line in out.splitlines():
        name, commit, date = line.split()
        try:
            version = Version(name.lstrip("v"))
        except InvalidVersion:
            continue
        if date[:4] < str(since) or version.is_prerelease:
            continue
        minor = (version.major, version.minor)
        if minor not in best or version > best[minor][0]:
            best[minor] = (version, name, commit[:40])
    return [(name, commit) for _, (_, name, commit) in sorted(best.items())]


def build_nccl(
    repo: Path, since: int, cache: Path, report: BuildReport, progress: Progress
) -> tuple[list[Template], list[str], dict[str, str]]:
    """NCCL's WARN/INFO formats at each minor release's last tag (read with `git archive`)."""
    tags = nccl_artifacts(repo, since)
    found_by_release: dict[str, list[Extracted]] = {}
    digests: dict[str, str] = {}
    for i, (tag, commit) in enumerate(tags, 1):
        cached = cache / "extract" / "nccl" / f"{tag}-{commit[:16]}.json.xz"
        if cached.is_file():
            found, _ = _from_json(cached.read_bytes())
            found = [f for f in found if not is_generic(f)]
            report.cached.append(f"nccl=={tag}")
        else:
            data = subprocess.run(
                ["git", "-C", str(repo), "archive", "--format=tar", tag, "src"],
                capture_output=True,
                check=True,
                timeout=300,
            ).stdout
            found = []
            with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                for info in tar:
                    if info.isfile() and info.name.endswith(NCCL_SOURCES) and info.size <= archive.MAX_SOURCE:
                        stream = tar.extractfile(info)
                        if stream is not None:
                            found += nccl_formats(stream.read().decode("utf-8", errors="replace"), info.name)
            cached.parent.mkdir(parents=True, exist_ok=True)
            cached.write_bytes(_to_json(found, True))
            found = [f for f in found if not is_generic(f)]
            report.read.append(f"nccl=={tag}")
        found_by_release[tag] = found
        digests[f"nccl=={tag}"] = commit
        progress(f"[nccl {i}/{len(tags)}] {tag}: {len(found)} templates")

    def url(release: str, found: Extracted) -> str:
        return source_url("nccl", release, found.module, found.line, sdist=True)

    releases = [t for t, _ in tags]
    return merge_releases("nccl", releases, found_by_release, url), releases, digests


def build(
    packages: list[str],
    cache: Path,
    out: Path,
    *,
    since: int = 2020,
    artifacts_dir: Path | None = None,
    nccl_repo: Path | None = None,
    latest: int | None = None,
    cached_only: bool = False,
    progress: Progress = lambda line: None,
) -> BuildReport:
    """Build (or update) the atlas at `out` for `packages` (and NCCL when a clone is given). With `cached_only`,
    a release whose extraction is not cached is not downloaded: it is listed as unread (a time-boxed build)."""
    report = BuildReport()
    templates: list[Template] = []
    manifest_packages: dict[str, list[str]] = {}
    digests: dict[str, str] = {}
    unread: dict[str, str] = {}
    rebuilt = set(packages) | ({"nccl"} if nccl_repo else set())
    if out.is_file():  # keep what this build does not redo
        old = store.load_manifest(out)
        templates = [t for t in store.load_templates(out) if t.package not in rebuilt]
        manifest_packages = {p: r for p, r in old.packages.items() if p not in rebuilt}
        digests = {k: v for k, v in old.digests.items() if k.split("==")[0] not in rebuilt}
        unread = {k: v for k, v in old.unread.items() if k.split("==")[0] not in rebuilt}
    for package in packages:
        try:
            if artifacts_dir is not None:
                artifacts = pypi.local_releases(artifacts_dir, package)
            else:
                artifacts = pypi.pypi_releases(package, since)
        except RootcauseError as exc:
            report.unread[package] = str(exc)
            progress(f"[{package}] not listed: {exc}")
            continue
        artifacts = artifacts[-latest:] if latest else artifacts
        progress(f"[{package}] {len(artifacts)} releases: {', '.join(a.version for a in artifacts)}")
        got, releases, got_digests = build_package(package, artifacts, cache, report, progress, cached_only)
        templates += got
        manifest_packages[package] = releases
        digests |= got_digests
    if nccl_repo is not None:
        got, releases, got_digests = build_nccl(nccl_repo, since, cache, report, progress)
        templates += got
        manifest_packages["nccl"] = releases
        digests |= got_digests
    unread |= report.unread
    manifest = AtlasManifest(
        packages=manifest_packages,
        digests=digests,
        built_at=datetime.now(UTC).isoformat(timespec="seconds"),
        unread=unread,
    )
    report.templates = store.write_atlas(out, manifest, templates)
    return report
