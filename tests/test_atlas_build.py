"""`rootcause atlas build` offline from two real releases of semver, plus the archive and download guards."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest
import re2

from rootcause.adapters.atlas import archive, pypi
from rootcause.adapters.atlas.store import load_manifest, load_templates, write_atlas
from rootcause.adapters.cli.main import run
from rootcause.core.atlas.model import AtlasManifest, ReleaseInterval, Template, TemplateKind
from rootcause.errors import StoreError

DATA = Path(__file__).parent / "data" / "atlas"  # semver 2.13.0 and 3.0.2 wheels, as on PyPI


def _build(tmp_path: Path, *extra: str) -> tuple[Path, int]:
    out = tmp_path / "atlas.sqlite"
    argv = ["atlas", "build", "--packages", "semver", "--artifacts", str(DATA), "--cache", str(tmp_path / "c")]
    with pytest.raises(SystemExit) as exit_info:
        run([*argv, "--out", str(out), *extra])
    return out, int(exit_info.value.code or 0)


def test_two_real_releases_give_templates_with_intervals_and_lines(tmp_path: Path) -> None:
    out, code = _build(tmp_path)
    assert code == 0
    manifest = load_manifest(out)
    assert manifest.packages == {"semver": ["2.13.0", "3.0.2"]}
    wheel = DATA / "semver-3.0.2-py3-none-any.whl"
    assert manifest.digests["semver==3.0.2"] == hashlib.sha256(wheel.read_bytes()).hexdigest()
    by_message = {t.message: t for t in load_templates(out)}
    # 3.0.2 reworded Version.compare's TypeError (2.13.0: "Expected str or {} instance, but got {}")
    new = by_message["Expected str, bytes, dict, tuple, list, or {cls.__name__} instance, but got {type(other)}"]
    assert (new.kind, new.exception, new.module, new.function) == (
        TemplateKind.RAISE,
        "TypeError",
        "semver/version.py",
        "Version.compare",
    )
    assert new.releases == (ReleaseInterval(first="3.0.2", last="3.0.2"),)
    source = zipfile.ZipFile(wheel).read("semver/version.py").decode().splitlines()
    assert "raise TypeError(" in source[new.line - 1]
    line = "TypeError: Expected str, bytes, dict, tuple, list, or Version instance, but got <class 'float'>"
    m = re2.search(new.pattern, line)
    assert m is not None and m.group("p0") == "Version"
    old = by_message["Expected str or {} instance, but got {}"]
    assert old.releases == (ReleaseInterval(first="2.13.0", last="2.13.0"),)
    kept = next(t for t in by_message.values() if t.message == "Version index cannot be negative")
    assert kept.releases == (ReleaseInterval(first="2.13.0", last="3.0.2"),)


def test_a_rebuild_reads_each_release_from_the_cache(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = _build(tmp_path)
    first = load_templates(out)
    capsys.readouterr()
    _, code = _build(tmp_path)
    assert code == 0
    assert "0 releases read, 2 from cache" in capsys.readouterr().err
    assert load_templates(out) == first


def test_cached_only_reads_no_release_that_is_not_extracted_yet(tmp_path: Path) -> None:
    _build(tmp_path)
    extracted = sorted((tmp_path / "c" / "extract" / "semver").glob("2.13.0-*.json.xz"))
    assert len(extracted) == 1
    extracted[0].unlink()
    for download in (tmp_path / "c").rglob("semver-2.13.0*"):
        download.unlink()
    out, code = _build(tmp_path, "--cached-only")
    assert code == 1
    manifest = load_manifest(out)
    assert manifest.packages == {"semver": ["3.0.2"]}
    assert "--cached-only" in manifest.unread["semver==2.13.0"]
    assert not list((tmp_path / "c").rglob("semver-2.13.0*"))  # nothing was read for it
    _, code = _build(tmp_path)  # a build without the flag reads it
    assert code == 0
    assert load_manifest(out).packages == {"semver": ["2.13.0", "3.0.2"]}


def test_a_build_into_a_compressed_atlas_keeps_the_other_packages(tmp_path: Path) -> None:
    other = Template(
        package="torch",
        module="torch/cuda/__init__.py",
        kind=TemplateKind.RAISE,
        exception="AssertionError",
        message="Torch not compiled with CUDA enabled",
        pattern=r"Torch not compiled with CUDA enabled",
        literal="Torch not compiled with CUDA enabled",
        releases=(ReleaseInterval(first="1.0.1", last="2.15.0"),),
    )
    out = tmp_path / "atlas.sqlite.xz"
    manifest = AtlasManifest(packages={"torch": ["1.0.1", "2.15.0"]}, digests={"torch==2.15.0": "ab" * 32})
    write_atlas(out, manifest, [other])
    argv = ["atlas", "build", "--packages", "semver", "--artifacts", str(DATA), "--cache", str(tmp_path / "c")]
    with pytest.raises(SystemExit) as exit_info:
        run([*argv, "--out", str(out)])
    assert exit_info.value.code in (0, None)
    templates = load_templates(out)
    assert other in templates
    assert {t.package for t in templates} == {"torch", "semver"}
    after = load_manifest(out)
    assert after.packages == {"torch": ["1.0.1", "2.15.0"], "semver": ["2.13.0", "3.0.2"]}
    assert after.digests["torch==2.15.0"] == "ab" * 32


def test_bad_arguments_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        run(["atlas", "build", "--packages", "nccl", "--out", str(tmp_path / "a.sqlite")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--nccl-repo" in err


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def test_hostile_zip_members_are_skipped_not_read(tmp_path: Path) -> None:
    wheel = _zip(
        tmp_path / "evil-1.0-py3-none-any.whl",
        {
            "../escape.py": b"raise ValueError('a path traversal member is never read')",
            "/abs/path.py": b"x = 1",
            "evil/bomb.py": b"#" * (3 << 20),  # 3 MiB of one byte: under the size cap, but a zip bomb's ratio
            "evil/huge.py": bytes(range(256)) * (5 << 12),  # 5 MiB: over the 4 MiB cap of a source file
            "evil/ok.py": b"raise ValueError('A good member is read as usual here')",
            "evil/tests/test_x.py": b"raise ValueError('test code is not part of the package')",
        },
    )
    skipped = archive.Skipped()
    got = dict(archive.members(wheel, skipped))
    assert list(got) == ["evil/ok.py"]
    reasons = " | ".join(skipped.members)
    assert "../escape.py (unsafe path)" in reasons and "/abs/path.py (unsafe path)" in reasons
    assert "evil/bomb.py (compression ratio of a zip bomb)" in reasons
    assert f"evil/huge.py ({5 << 20} bytes, over {archive.MAX_SOURCE})" in reasons


def test_tar_links_and_traversal_are_never_followed(tmp_path: Path) -> None:
    path = tmp_path / "evil-1.0.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for name, data in {"evil-1.0/evil/ok.py": b"x = 1", "evil-1.0/../../etc/x.py": b"y = 2"}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("evil-1.0/evil/link.py")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        tar.addfile(link)
    skipped = archive.Skipped()
    assert [name for name, _ in archive.members(path, skipped)] == ["evil/ok.py"]
    assert any("unsafe path" in s for s in skipped.members)


def _file(name: str, size: int, yanked: bool = False) -> dict:
    kind = "sdist" if name.endswith(".tar.gz") else "bdist_wheel"
    return {
        "filename": name,
        "size": size,
        "packagetype": kind,
        "yanked": yanked,
        "url": name,
        "digests": {"sha256": "0" * 64},
        "upload_time": "2023-01-02T00:00:00",
    }


def test_release_and_artifact_choice() -> None:
    data = {
        "releases": {
            "1.0.0": [_file("p-1.0.0.tar.gz", 10)],
            "1.0.1": [
                _file("p-1.0.1-cp311-cp311-manylinux_x86_64.whl", 900),
                _file("p-1.0.1-cp311-cp311-macosx_11_0_arm64.whl", 90),
                _file("p-1.0.1.tar.gz", 50),
            ],
            "1.1.0rc1": [_file("p-1.1.0rc1-py3-none-any.whl", 5)],
            "1.1.0": [_file("p-1.1.0-py3-none-any.whl", 5, yanked=True)],
            "2.0.0": [_file("p-2.0.0-py3-none-any.whl", 7), _file("p-2.0.0.tar.gz", 6)],
        }
    }
    chosen = pypi.latest_minors("p", data, 2020)
    assert [(a.version, a.filename) for a in chosen] == [
        ("1.0.1", "p-1.0.1-cp311-cp311-macosx_11_0_arm64.whl"),
        ("2.0.0", "p-2.0.0-py3-none-any.whl"),
    ]
    assert pypi.latest_minors("p", data, 2024) == []
    assert pypi.pick_artifact("vllm", data["releases"]["1.0.1"])["filename"] == "p-1.0.1.tar.gz"


def test_every_zero_zero_release_is_its_own_series() -> None:
    # xformers numbers every release 0.0.N: by (major, minor) alone it would have one release
    data = {
        "releases": {
            "0.0.20": [_file("x-0.0.20.tar.gz", 4)],
            "0.0.22": [_file("x-0.0.22.tar.gz", 4)],
            "0.0.22.post7": [_file("x-0.0.22.post7.tar.gz", 4)],
            "0.1.0": [_file("x-0.1.0.tar.gz", 4)],
            "0.1.3": [_file("x-0.1.3.tar.gz", 4)],
        }
    }
    assert [a.version for a in pypi.latest_minors("x", data, 2020)] == ["0.0.20", "0.0.22.post7", "0.1.3"]


class _Response(io.BytesIO):
    def __enter__(self) -> _Response:
        return self

    def __exit__(self, *args: object) -> None:
        self.close()


def test_downloads_are_checked_and_never_repeated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    body = b"wheel bytes"
    calls: list[str] = []

    def urlopen(url: str, timeout: int) -> _Response:
        calls.append(url)
        return _Response(body)

    monkeypatch.setattr(pypi.urllib.request, "urlopen", urlopen)
    good = pypi.Artifact(
        "p", "1.0", "p-1.0-py3-none-any.whl", "https://x/p.whl", hashlib.sha256(body).hexdigest(), len(body)
    )
    assert pypi.fetch(good, tmp_path).read_bytes() == body
    assert pypi.fetch(good, tmp_path).read_bytes() == body
    assert len(calls) == 1
    bad = pypi.Artifact("p", "1.1", "p-1.1-py3-none-any.whl", "https://x/q.whl", "f" * 64, len(body))
    with pytest.raises(StoreError, match="sha256"):
        pypi.fetch(bad, tmp_path)
    assert not list((tmp_path / "artifacts" / "p").glob("p-1.1*"))


def _git(repo: Path, *args: str) -> None:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env={**os.environ, **env})


def test_nccl_formats_are_read_at_each_minor_releases_last_tag(tmp_path: Path) -> None:
    repo = tmp_path / "nccl"
    (repo / "src").mkdir(parents=True)
    _git(repo, "init", "-q")
    versions = {
        "v2.18.1-1": 'WARN("NET/IB : Got completion with error %d, opcode %d", s, o);',
        "v2.18.3-1": 'WARN("NET/IB : Got completion from peer %s with error %d", p, s);',
        "v2.19.3-1": 'WARN("NET/IB : Got completion from peer %s with status=%d", p, s);',
    }
    for tag, call in versions.items():
        (repo / "src" / "net_ib.cc").write_text(f"void f() {{\n  {call}\n}}\n")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", tag)
        _git(repo, "tag", tag)
    out = tmp_path / "atlas.sqlite"
    with pytest.raises(SystemExit) as exit_info:
        run(
            [
                "atlas",
                "build",
                "--packages",
                "nccl",
                "--nccl-repo",
                str(repo),
                "--cache",
                str(tmp_path / "c"),
                "--out",
                str(out),
            ]
        )
    assert exit_info.value.code == 0
    assert load_manifest(out).packages == {"nccl": ["v2.18.3-1", "v2.19.3-1"]}  # 2.18.1 is not its minor's last
    by_message = {t.message: t for t in load_templates(out)}
    assert set(by_message) == {
        "NET/IB : Got completion from peer %s with error %d",
        "NET/IB : Got completion from peer %s with status=%d",
    }
    old = by_message["NET/IB : Got completion from peer %s with error %d"]
    assert old.releases == (ReleaseInterval(first="v2.18.3-1", last="v2.18.3-1"),)
    assert (old.module, old.line, old.exception) == ("src/net_ib.cc", 2, "WARN")
    assert old.source_url == "https://github.com/NVIDIA/nccl/blob/v2.18.3-1/src/net_ib.cc#L2"
