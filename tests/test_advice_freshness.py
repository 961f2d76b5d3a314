"""Advice freshness (issue 20, item 4): the names index, what advice names, and lint RC602/RC603.

The builder runs offline on the two real semver wheels in tests/data/atlas (2.13.0 and 3.0.2):
3.0 renamed `VersionInfo.isvalid` to `is_valid`, moved the code into `semver.version`, and added
`Version.parse(..., optional_minor_and_patch=...)`; both ship the `pysemver` console script.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from testkit import run_cli

from rootcause.adapters.atlas.names_build import load_names
from rootcause.adapters.canon_files import parse_entry
from rootcause.core.advice_names import NamedItem, named_items
from rootcause.core.atlas.names import (
    PackageNames,
    ReleaseNames,
    entry_point_scripts,
    intervals_of,
    native_env_names,
    python_names,
)
from rootcause.core.lint_fresh import check_freshness
from rootcause.core.model import Entry, VersionRange

DATA = Path(__file__).parent / "data" / "atlas"
LINT_TEMPLATE = (Path(__file__).parent / "data" / "lint-template-entry.yaml").read_text(encoding="utf-8")


# --- what advice names ---------------------------------------------------------------------------------


def test_named_items_reads_env_vars_apis_kwargs_and_commands() -> None:
    text = (
        "export TORCH_NCCL_TRACE_BUFFER_SIZE=2000\n"
        "model = AutoModel.from_pretrained(name, torchscript=True, dtype=torch.float16)\n"
        "from huggingface_hub import snapshot_download\n"
        "huggingface-cli download org/model --local-dir ./m\n"
        "python -m torch.distributed.run --nproc_per_node=2 train.py\n"
        "print(len(x))"
    )
    items = set(named_items(text))
    assert NamedItem("env", "TORCH_NCCL_TRACE_BUFFER_SIZE") in items
    assert NamedItem("api", "AutoModel.from_pretrained") in items
    assert NamedItem("kwarg", "torchscript", "AutoModel.from_pretrained") in items
    assert NamedItem("kwarg", "dtype", "AutoModel.from_pretrained") in items
    assert NamedItem("api", "huggingface_hub.snapshot_download") in items
    assert NamedItem("script", "huggingface-cli") in items
    assert NamedItem("api", "torch.distributed.run") in items
    # builtins and a nested call's keywords are not the outer call's
    assert not {i for i in items if i.name in ("print", "len")}
    nested = set(named_items("f.g(a, h(k=1), m=2)"))
    assert NamedItem("kwarg", "m", "f.g") in nested
    assert NamedItem("kwarg", "k", "f.g") not in nested


def test_named_items_ignores_string_contents_and_python_keywords() -> None:
    items = named_items("from x import y\nlog.info('retry(count=3)')")
    assert NamedItem("script", "from") not in items
    assert not [i for i in items if i.name == "count"]


# --- what a release defines ----------------------------------------------------------------------------


def test_python_names_reads_definitions_keywords_kwargs_keys_and_env_literals() -> None:
    source = (
        "import os\n"
        "class PretrainedConfig:\n"
        "    def __init__(self, *, return_dict=True, _private=None, **kwargs):\n"
        "        self.torchscript = kwargs.pop('torchscript', False)\n"
        "        self._hidden = 1\n"
        "def _helper(x):\n"
        "    return os.environ.get('TRANSFORMERS_CACHE')\n"
    )
    found = python_names("transformers/configuration_utils.py", source)
    assert found.module == {"transformers.configuration_utils"}
    assert {"PretrainedConfig", "__init__", "torchscript"} <= found.symbol
    assert "_helper" not in found.symbol and "_hidden" not in found.symbol
    assert {"return_dict", "torchscript", "x"} <= found.kwarg and "_private" not in found.kwarg
    assert found.env == {"TRANSFORMERS_CACHE"}
    assert python_names("pkg/__init__.py", "").module == {"pkg"}
    assert python_names("pkg/not-a-module.py", "x = 1").module == set()


def test_native_env_names_are_whole_c_strings() -> None:
    data = b"\x00TORCH_NCCL_DUMP_ON_TIMEOUT\x00some TORCH_NOT_A_NAME text\x00NCCL_DEBUG\x00lower_case\x00"
    assert native_env_names(data) == {"TORCH_NCCL_DUMP_ON_TIMEOUT", "NCCL_DEBUG"}


def test_entry_point_scripts() -> None:
    text = "[console_scripts]\nhf = huggingface_hub.cli.hf:main\n\n[fsspec.specs]\nhf2 = x:y\n"
    assert entry_point_scripts(text) == {"hf"}


def test_intervals_of() -> None:
    assert intervals_of([True, True, False, True]) == [(0, 1), (3, 3)]
    assert intervals_of([False]) == []


# --- the builder on two real wheels ----------------------------------------------------------------------


def _build(tmp_path: Path) -> Path:
    out = tmp_path / "names.json.xz"
    argv = ["atlas", "names", "--packages", "semver", "--artifacts", str(DATA), "--cache", str(tmp_path / "c")]
    result = run_cli(*argv, "--out", str(out))
    assert result.returncode == 0, result.stderr
    return out


def test_names_builder_reads_two_real_releases(tmp_path: Path) -> None:
    semver = load_names(_build(tmp_path))["semver"]
    assert semver.releases == ("2.13.0", "3.0.2")
    assert semver.span("symbol", "isvalid") == ("2.13.0", "2.13.0")
    assert semver.span("symbol", "is_valid") == ("3.0.2", "3.0.2")
    assert semver.span("module", "semver.version") == ("3.0.2", "3.0.2")
    assert semver.span("kwarg", "optional_minor_and_patch") == ("3.0.2", "3.0.2")
    assert semver.span("script", "pysemver") == ("2.13.0", "3.0.2")
    assert semver.span("symbol", "no_such_name") is None
    # a second build reads the extraction cache, and keeps the same data
    again = load_names(_build(tmp_path))["semver"]
    assert again == semver


# --- the lint -------------------------------------------------------------------------------------------


def _entry_with_workaround(how: str, requires: str | None = None) -> str:
    """The lint template entry, its first workaround's `how` replaced (and a `requires` added)."""
    new = f"  how: {json.dumps(how)}\n" + (f"  requires: {json.dumps(requires)}\n" if requires else "")
    text, count = re.subn(r"(?m)^  how: .*\n", lambda _: new, LINT_TEMPLATE, count=1)
    assert count == 1
    return text.replace("id: pytorch/nccl-timeout-allreduce", "id: pytorch/fresh-fixture")


def _lint(tmp_path: Path, text: str, names: Path) -> list[str]:
    folder = tmp_path / "canon"
    (folder / "pytorch").mkdir(parents=True)
    path = folder / "pytorch" / "fresh-fixture.yaml"
    path.write_text(text, encoding="utf-8")
    result = run_cli("lint", str(folder), "--names", str(names))
    return [line for line in result.stdout.splitlines() if "[RC60" in line and line.startswith(str(path))]


def test_lint_warns_when_a_named_api_is_gone_from_the_latest_release(tmp_path: Path) -> None:
    names = _build(tmp_path)
    lines = _lint(tmp_path, _entry_with_workaround("semver.VersionInfo.isvalid('1.2.3')"), names)
    path = tmp_path / "canon" / "pytorch" / "fresh-fixture.yaml"
    assert lines == [
        f"{path}: [RC602] workarounds.0 names semver.VersionInfo.isvalid (an API), which semver 3.0.2 no longer has "
        "(last in 2.13.0, absent from 3.0.2): bound the advice (requires: semver<3.0) or name what replaced it"
    ]


def test_lint_is_quiet_when_the_name_exists_or_the_advice_is_bounded(tmp_path: Path) -> None:
    names = _build(tmp_path)
    present = _entry_with_workaround("semver.Version.is_valid('1.2.3'); pysemver check 1.2.3")
    assert _lint(tmp_path, present, names) == []
    bounded = _entry_with_workaround("semver.VersionInfo.isvalid('1.2.3')", requires="semver<3")
    assert _lint(tmp_path / "b", bounded, names) == []


def _parse(text: str) -> Entry:
    return parse_entry(text, "pytorch/fresh-fixture.yaml", expected_id="pytorch/fresh-fixture")


def _index(releases: tuple[str, ...], *present: set[str], kind: str = "env") -> dict[str, PackageNames]:
    by_release = [ReleaseNames(**{kind: names}) for names in present]  # type: ignore[arg-type]
    return {"torch": PackageNames.merge(releases, by_release)}


@pytest.mark.parametrize(
    ("requires", "codes"),
    [(None, ["RC603"]), ("torch>=2.2", []), ("torch>=2.1", ["RC603"])],
)
def test_rc603_a_name_newer_than_the_minor_before_needs_a_lower_bound(requires: str | None, codes: list[str]) -> None:
    index = _index(("2.1.2", "2.2.2", "2.3.1"), set(), {"TORCH_NCCL_DUMP_ON_TIMEOUT"}, {"TORCH_NCCL_DUMP_ON_TIMEOUT"})
    entry = _parse(_entry_with_workaround("export TORCH_NCCL_DUMP_ON_TIMEOUT=1", requires))
    found = check_freshness([(entry, "e.yaml")], index)
    assert [code for _, code, _ in found] == codes
    if codes:
        assert "torch has only from 2.2 (2.2.2 has it, 2.1.2 does not): say so (requires: torch>=2.2)" in found[0][2]


def test_rc603_is_silent_across_a_gap_of_releases_not_read() -> None:
    index = _index(("1.13.1", "2.2.2"), set(), {"TORCH_NCCL_DUMP_ON_TIMEOUT"})
    entry = _parse(_entry_with_workaround("export TORCH_NCCL_DUMP_ON_TIMEOUT=1"))
    assert check_freshness([(entry, "e.yaml")], index) == []


def test_rc603_is_silent_when_the_advice_text_states_the_boundary() -> None:
    index = {"huggingface_hub": PackageNames.merge(("0.33.5", "0.34.6"), [ReleaseNames(), ReleaseNames(script={"hf"})])}
    plain = _parse(_entry_with_workaround("hf auth login"))
    assert [code for _, code, _ in check_freshness([(plain, "e.yaml")], index)] == ["RC603"]
    stated = _parse(_entry_with_workaround("hf auth login   # huggingface_hub < 0.34: huggingface-cli login"))
    assert check_freshness([(stated, "e.yaml")], index) == []
    both = "hf auth login   # huggingface_hub >= 0.34 (huggingface_hub < 0.34: huggingface-cli login)"
    assert check_freshness([(_parse(_entry_with_workaround(both)), "e.yaml")], index) == []  # both sides stated
    other = _parse(_entry_with_workaround("hf auth login   # huggingface_hub >= 0.20"))  # a bound, not this one
    assert [code for _, code, _ in check_freshness([(other, "e.yaml")], index)] == ["RC603"]


def test_rc602_reads_a_kwarg_of_a_class_method_and_its_bound() -> None:
    releases = ("4.57.6", "5.0.0")
    by_release = [
        ReleaseNames(symbol={"AutoModel", "from_pretrained"}, kwarg={"torchscript", "dtype"}),
        ReleaseNames(symbol={"AutoModel", "from_pretrained"}, kwarg={"dtype"}),
    ]
    index = {"transformers": PackageNames.merge(releases, by_release)}
    how = "AutoModel.from_pretrained(name, torchscript=True, dtype='auto')"
    found = check_freshness([(_parse(_entry_with_workaround(how)), "e.yaml")], index)
    assert [(code, message.split(",")[0]) for _, code, message in found] == [
        ("RC602", "workarounds.0 names torchscript= (a keyword argument of AutoModel.from_pretrained)")
    ]
    assert "requires: transformers<5.0" in found[0][2]
    bounded = _parse(_entry_with_workaround(how, requires="transformers<5"))
    assert check_freshness([(bounded, "e.yaml")], index) == []


# --- the shipped index and the audit of issue 20 ----------------------------------------------------------


def _shipped() -> dict[str, PackageNames]:
    index = dict(load_names())
    assert index, "src/rootcause/data/atlas/names.json.xz is missing: run `rootcause atlas names`"
    return index


def test_shipped_names_index_holds_the_audit_facts() -> None:
    index = _shipped()
    transformers, hub, torch = index["transformers"], index["huggingface_hub"], index["torch"]
    # torchscript: a config keyword of transformers 4, absent from 5
    assert transformers.span("kwarg", "torchscript")[1].startswith("4.")  # type: ignore[index]
    assert transformers.latest not in transformers.releases_with("kwarg", "torchscript")
    # huggingface-cli: in 0.x, gone from 1.0 (1.33 briefly shipped a stub that only says it is deprecated)
    one_oh = next(r for r in hub.releases if r.startswith("1.0."))
    assert one_oh not in hub.releases_with("script", "huggingface-cli")
    assert hub.latest not in hub.releases_with("script", "huggingface-cli")
    assert hub.span("script", "hf")[0].startswith("0.34.")  # type: ignore[index]
    # torch: the flight recorder's variables from 2.2, torchfrtrace from 2.5
    for name in ("TORCH_NCCL_TRACE_BUFFER_SIZE", "TORCH_NCCL_DUMP_ON_TIMEOUT"):
        assert torch.span("env", name)[0].startswith("2.2."), name  # type: ignore[index]
    assert torch.span("script", "torchfrtrace")[0].startswith("2.5.")  # type: ignore[index]


def _canon_entry(entry_id: str) -> Entry:
    from rootcause.adapters.loading import load_entries

    return next(e for e in load_entries([]) if e.id == entry_id)


def test_audit_workarounds_warn_once_their_bounds_are_removed() -> None:
    index = _shipped()
    for entry_id, needle, code in [
        ("pytorch/jit-trace-unsupported-io-type", "torchscript=True", "RC602"),
        ("pytorch/nccl-watchdog-failure-detected", "TORCH_NCCL_TRACE_BUFFER_SIZE", "RC603"),
    ]:
        entry = _canon_entry(entry_id)
        assert check_freshness([(entry, entry_id)], index) == []
        n = next(i for i, w in enumerate(entry.workarounds) if needle in w.how)
        # the entry's own bounds reduced to the bare package name (it still says which package it is about)
        package = Requirement(entry.versions[0].requirement).name
        bare = entry.model_copy(update={"versions": [VersionRange(requirement=package)]})
        workarounds = list(bare.workarounds)
        workarounds[n] = workarounds[n].model_copy(update={"requires": None, "condition": None})
        found = check_freshness([(bare.model_copy(update={"workarounds": workarounds}), entry_id)], index)
        assert any(c == code and needle.split("=")[0] in m for _, c, m in found), found


def test_shipped_canon_has_no_stale_advice() -> None:
    from rootcause.adapters.cli.entries import undated_env_vars
    from rootcause.adapters.loading import load_entries

    assert check_freshness([(e, e.id) for e in load_entries([])], _shipped(), undated_env_vars()) == []


def test_choose_releases_newest_minors_last_of_earlier_majors_and_named_minors() -> None:
    from rootcause.adapters.atlas.names_build import choose_releases
    from rootcause.adapters.atlas.pypi import Artifact

    versions = ["0.36.2", "1.0.0", "1.33.0", "2.0.0", "2.1.1", "2.2.0", "2.3.0"]
    artifacts = [Artifact("p", v, f"p-{v}.whl", "", "0" * 64, 1) for v in versions]
    chosen = [a.version for a in choose_releases(artifacts, 2, also=("1.0",))]
    assert chosen == ["0.36.2", "1.0.0", "1.33.0", "2.2.0", "2.3.0"]
    assert [a.version for a in choose_releases(artifacts, 1, since="2.1")] == [
        "0.36.2",
        "1.33.0",
        "2.1.1",
        "2.2.0",
        "2.3.0",
    ]


def test_rc603_skips_env_vars_listed_as_undated() -> None:
    """HSA_OVERRIDE_GFX_VERSION is read by ROCm's thunk: torch first mentioning it in a release does not date it."""
    index = _index(("2.1.2", "2.2.2", "2.3.1"), set(), {"HSA_OVERRIDE_GFX_VERSION"}, {"HSA_OVERRIDE_GFX_VERSION"})
    entry = _parse(_entry_with_workaround("export HSA_OVERRIDE_GFX_VERSION=10.3.0"))
    assert [code for _, code, _ in check_freshness([(entry, "e.yaml")], index)] == ["RC603"]
    assert check_freshness([(entry, "e.yaml")], index, frozenset({"HSA_OVERRIDE_GFX_VERSION"})) == []
