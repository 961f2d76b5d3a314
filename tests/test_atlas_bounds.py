"""The canon's bounds read from the message atlas: lint RC509-RC511 and `rootcause atlas link`, on a tiny atlas.

The atlas here is hand-made (tests/atlas_support.py's way): its templates and releases are the fixture's own, for
testing how generations are linked and compared; they are not claims about torch.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from testkit import run_cli

from rootcause.adapters.atlas.store import write_atlas
from rootcause.core.atlas.bounds import AtlasBounds, corrected, disagreement, hull, template_key
from rootcause.core.atlas.extract import build_pattern, printf_parts
from rootcause.core.atlas.link import PackageTemplates, candidate, link_generation
from rootcause.core.atlas.model import AtlasManifest, ReleaseInterval, Template, TemplateKind
from rootcause.core.lint_atlas import check_atlas_bounds
from rootcause.core.model import Entry

RELEASES = ["1.0.1", "2.0.1", "2.1.2", "2.2.2", "2.3.1"]
NEW = "Frobnicator failed to initialise the flux capacitor on device %s"
OLD = "Frobnicator could not initialise the flux capacitor on device %s"
SHORT = "Frobnicator failed to initialise the flux capacitor"


def _template(message: str, first: str, last: str) -> Template:
    built = build_pattern(printf_parts(message))
    assert built is not None
    pattern, literal = built
    return Template(
        package="torch",
        module="torch/frob.py",
        line=10,
        exception="RuntimeError",
        kind=TemplateKind.RAISE,
        message=message,
        pattern=pattern,
        literal=literal,
        releases=(ReleaseInterval(first=first, last=last),),
        source_url=f"https://github.com/pytorch/pytorch/blob/v{last}/torch/frob.py#L10",
    )


TEMPLATES = [_template(NEW, "2.1.2", "2.3.1"), _template(OLD, "1.0.1", "2.0.1"), _template(SHORT, "1.0.1", "2.3.1")]


def _key(t: Template) -> str:
    return template_key(t.package, str(t.kind), t.exception, t.pattern)


NEW_KEY, OLD_KEY, SHORT_KEY = (_key(t) for t in TEMPLATES)
BOUNDS = AtlasBounds(
    releases={"torch": RELEASES},
    intervals={_key(t): tuple((r.first, r.last) for r in t.releases) for t in TEMPLATES},
)

SEED = (Path(__file__).parent / "data" / "lint-template-entry.yaml").read_text(encoding="utf-8")


def _entry_data(generations: list[dict]) -> dict:
    data = yaml.safe_load(SEED)
    data["id"] = "pytorch/atlas-bounds-fixture"
    data["generations"] = generations
    return data


def _generation(
    versions: str, wording: str = "Frobnicator failed to initialise the flux capacitor on device {d}", **extra
):
    return {"wording": wording, "versions": versions, "bounds_source": "unchecked", "examples": [0], **extra}


def _lint(*generations: dict) -> list[str]:
    entry = Entry.model_validate(_entry_data(list(generations)))
    return [f"{path}: [{code}] {message}" for path, code, message in check_atlas_bounds(entry, "e.yaml", BOUNDS)]


# -- RC509: the stated bounds against the atlas's releases ----------------------------------------------------


@pytest.mark.parametrize("versions", ["torch>=2.1", "torch>=2.0.5", "torch>=2.1.0"])
def test_bounds_that_agree_with_the_releases_read_pass(versions: str) -> None:
    # 2.0.1 lacks the wording and 2.1.2 has it: any lower bound between them agrees (compared by minor release)
    assert _lint(_generation(versions, atlas=[NEW_KEY])) == []


def test_a_closed_interval_needs_its_upper_bound() -> None:
    old = "Frobnicator could not initialise the flux capacitor on device {d}"
    assert _lint(_generation("torch<2.1", old, atlas=[OLD_KEY])) == []
    [finding] = _lint(_generation("torch<2.2", old, atlas=[OLD_KEY]))
    assert finding.startswith("e.yaml: [RC509] generations.0 (torch<2.2) includes 2.1.2 that do not")
    assert "torch 1.0.1..2.0.1, not 2.1.2" in finding and finding.endswith("by minor release: torch<2.1")


def test_a_wrong_lower_bound_names_the_generation_and_the_atlas_interval() -> None:
    [finding] = _lint(_generation("torch<2.1", atlas=[OLD_KEY]), _generation("torch>=2.2", atlas=[NEW_KEY]))
    assert finding.startswith("e.yaml: [RC509] generations.1 (torch>=2.2) excludes 2.1.2 that print it")
    assert "the atlas reads the wording in torch 2.1.2..2.3.1 (the newest release read); not 2.0.1" in finding
    assert finding.endswith("by minor release: torch>=2.1")


def test_an_upper_bound_is_wrong_while_the_newest_release_read_prints_it() -> None:
    [finding] = _lint(_generation("torch>=2.1,<2.4", atlas=[NEW_KEY]))
    assert "[RC509]" in finding and "has an upper bound, but the newest release read still prints it" in finding


def test_several_templates_bound_the_wording_together() -> None:
    found = hull(BOUNDS, "torch", [OLD_KEY, NEW_KEY])
    assert found is not None and found.suggested() == "torch"
    assert disagreement("", found) is None
    assert disagreement("<2.1", found) is not None


def test_a_release_in_a_gap_between_intervals_may_be_left_out() -> None:
    # transformers' doubled "with with" rope message: printed in 4.33-4.39 and again from 4.43, in no module of 4.40-4.42
    releases = tuple(f"4.{m}.0" for m in range(38, 46))
    gapped = AtlasBounds(
        releases={"transformers": releases},
        intervals={"transformers:aaaaaaaaaaaa": (("4.38.0", "4.39.0"), ("4.43.0", "4.45.0"))},
    )
    found = hull(gapped, "transformers", ["transformers:aaaaaaaaaaaa"])
    assert found is not None and not found.prints(3) and found.prints(5)
    # before: "excludes 4.40.0 ... that print it"
    assert disagreement(">=4.38,!=4.40.*,!=4.41.*,!=4.42.*", found) is None
    assert disagreement(">=4.38", found) is None  # a gap is checked neither way
    assert "excludes 4.43.0" in (disagreement(">=4.38,!=4.43.*", found) or "")


@pytest.mark.parametrize(
    ("specifier", "keys", "fixed"),
    [
        (">=2.2", [NEW_KEY], "torch>=2.1"),  # the wrong side is replaced by minor release
        (">=2.0.5,<2.4", [NEW_KEY], "torch>=2.0.5"),  # the side that agrees is kept as written
        (">=1.0,<2.2", [OLD_KEY], "torch>=1.0,<2.1"),
        ("==2.2.*", [NEW_KEY], "torch>=2.1"),
    ],
)
def test_write_bounds_corrects_only_the_side_that_disagrees(specifier: str, keys: list[str], fixed: str) -> None:
    found = hull(BOUNDS, "torch", keys)
    assert found is not None
    assert corrected(specifier, found) == fixed
    assert disagreement(fixed.removeprefix("torch"), found) is None


def test_a_package_whose_minor_does_not_tell_its_releases_apart_is_bounded_by_more_parts() -> None:
    """xformers numbers its releases 0.0.N: by minor, 0.0.13..0.0.16 would be written `>=0.0,<0.0` (nothing)."""
    releases = ("0.0.12", "0.0.13", "0.0.16", "0.0.20")
    bounds = AtlasBounds(releases={"xformers": releases}, intervals={"xformers:aaaaaaaaaaaa": (("0.0.13", "0.0.13"),)})
    found = hull(bounds, "xformers", ["xformers:aaaaaaaaaaaa"])
    assert found is not None
    assert found.suggested() == "xformers>=0.0.13,<0.0.16"
    assert corrected(">=0.0,<0.0", found, "xformers") == "xformers>=0.0.13,<0.0.16"
    assert disagreement(">=0.0.13,<0.0.16", found) is None
    calendar = AtlasBounds(
        releases={"unsloth": ("2024.10.5", "2024.11.7", "2025.3.17")},
        intervals={"unsloth:bbbbbbbbbbbb": (("2024.11.7", "2024.11.7"),)},
    )
    dated = hull(calendar, "unsloth", ["unsloth:bbbbbbbbbbbb"])
    assert dated is not None and dated.suggested() == "unsloth>=2024.11,<2025.3"


# -- RC510 and RC511 ---------------------------------------------------------------------------------------------


def test_unchecked_for_a_covered_package_warns_until_it_says_why() -> None:
    [finding] = _lint(_generation("torch"))
    assert "[RC510] generations.0 (torch): bounds unchecked, but the atlas reads torch (1.0.1..2.3.1)" in finding
    assert _lint(_generation("torch", atlas_unlinked="printed by native code the atlas keeps in fragments")) == []
    # a package the atlas does not read is not checked
    assert _lint(_generation("deepspeed", "DeepSpeed could not frobnicate the flux capacitor")) == []


def test_a_key_the_atlas_does_not_hold_or_of_another_package_is_an_error() -> None:
    findings = _lint(_generation("torch>=2.1", atlas=["torch:000000000000", "vllm:" + NEW_KEY.split(":")[1]]))
    assert [f.split("] ")[0] for f in findings] == ["e.yaml: [RC511", "e.yaml: [RC511", "e.yaml: [RC511"]
    assert any("torch:000000000000 is not in the atlas" in f for f in findings)
    assert any("is not one of torch's" in f for f in findings)


# -- linking -----------------------------------------------------------------------------------------------------


def _templates() -> PackageTemplates:
    rows = [
        candidate(
            (t.package, str(t.kind), t.exception, t.pattern, t.literal, t.message, t.module, t.source_url),
            [(r.first, r.last) for r in t.releases],
        )
        for t in TEMPLATES
    ]
    return PackageTemplates(rows)


def _linked(wording: str) -> list[str]:
    return [link.key for link in link_generation(_templates(), wording)]


def test_a_wording_links_the_template_that_prints_it_whole() -> None:
    assert _linked("RuntimeError: Frobnicator failed to initialise the flux capacitor on device {device}.") == [NEW_KEY]
    assert _linked("Frobnicator could not initialise the flux capacitor on device cuda:0") == [OLD_KEY]


def test_a_shorter_or_longer_message_is_another_message() -> None:
    # the SHORT template's text is the head of the wording, which goes on: not linked
    assert SHORT_KEY not in _linked("Frobnicator failed to initialise the flux capacitor on device {d}")
    assert _linked("Frobnicator failed to initialise the flux capacitor") == [SHORT_KEY]
    # the wording is the head of longer templates: linked only when the wording says it was cut ('...')
    assert _linked("Frobnicator failed to initialise") == []
    assert _linked("Frobnicator failed to initialise ...") == sorted([NEW_KEY, SHORT_KEY])


def test_a_wording_that_names_its_class_links_only_the_raises_of_that_class() -> None:
    # torch raised "trying to initialize the default process group twice!" as a RuntimeError before 2.2, a ValueError
    # since: two templates of one text; before, each generation linked both and RC509 accepted `torch` for each
    text = "Default process group twice on device %s"
    as_runtime = _template(text, "1.0.1", "2.1.2")
    as_value = _template(text, "2.2.2", "2.3.1").model_copy(update={"exception": "torch.distributed.DistValueError"})
    native = _template(text, "1.0.1", "2.3.1").model_copy(update={"exception": "", "kind": TemplateKind.NATIVE})
    rows = [
        candidate(
            (t.package, str(t.kind), t.exception, t.pattern, t.literal, t.message, t.module, t.source_url),
            [(r.first, r.last) for r in t.releases],
        )
        for t in (as_runtime, as_value, native)
    ]
    keys = {t.exception or "native": _key(t) for t in (as_runtime, as_value, native)}
    templates = PackageTemplates(rows)

    def linked(wording: str) -> set[str]:
        return {link.key for link in link_generation(templates, wording)}

    assert linked("RuntimeError: Default process group twice on device {d}") == {keys["RuntimeError"], keys["native"]}
    assert linked("DistValueError: Default process group twice on device {d}") == {
        keys["torch.distributed.DistValueError"],
        keys["native"],
    }
    assert linked("Default process group twice on device {d}") == set(keys.values())  # no class named: all of them


def test_a_wording_over_several_lines_links_nothing() -> None:
    assert _linked("Frobnicator failed to initialise the flux capacitor on device {d}\nTry another flux.") == []


# -- the command, end to end -------------------------------------------------------------------------------------


@pytest.fixture
def tiny_atlas(tmp_path: Path) -> Path:
    path = tmp_path / "atlas.sqlite"
    write_atlas(path, AtlasManifest(packages={"torch": RELEASES}), TEMPLATES)
    return path


def _canon(tmp_path: Path, generations: list[dict]) -> Path:
    canon = tmp_path / "canon"
    entry_file = canon / "pytorch" / "atlas-bounds-fixture.yaml"
    entry_file.parent.mkdir(parents=True)
    entry_file.write_text(yaml.safe_dump(_entry_data(generations), allow_unicode=True, sort_keys=False), "utf-8")
    return entry_file


def test_link_writes_keys_and_bounds_and_lint_then_passes(tmp_path: Path, tiny_atlas: Path) -> None:
    entry_file = _canon(
        tmp_path,
        [
            _generation("torch>=2.2"),  # wrong lower bound, unchecked
            _generation("torch", "An unrelated wording that no template of the atlas prints at all"),
        ],
    )
    canon = entry_file.parent.parent
    before = run_cli("lint", str(canon), "--atlas", str(tiny_atlas), "--format", "json")
    assert [f["code"] for f in json.loads(before.stdout)["findings"] if f["code"] >= "RC509"] == ["RC510", "RC510"]

    result = run_cli("atlas", "link", str(canon), "--atlas", str(tiny_atlas), "--write-bounds")
    assert result.returncode == 0, result.stderr
    assert "generations.0 (torch>=2.2) -> torch>=2.1" in result.stdout
    written = yaml.safe_load(entry_file.read_text(encoding="utf-8"))["generations"]
    assert written[0]["atlas"] == [NEW_KEY] and written[0]["versions"] == "torch>=2.1"
    assert written[0]["bounds_source"]["ref"] == TEMPLATES[0].source_url
    assert "torch 2.1.2..2.3.1" in written[0]["bounds_source"]["note"]
    assert "atlas" not in written[1] and written[1]["atlas_unlinked"].startswith("no atlas template matches")
    assert run_cli("fmt", "--check", str(entry_file)).returncode == 0

    after = run_cli("lint", str(canon), "--atlas", str(tiny_atlas), "--format", "json")
    assert [f for f in json.loads(after.stdout)["findings"] if f["code"] >= "RC509"] == []
    again = run_cli("atlas", "link", str(canon), "--atlas", str(tiny_atlas), "--write-bounds")
    assert "0 files written" in again.stderr


def test_link_keeps_a_maintainers_reason(tmp_path: Path, tiny_atlas: Path) -> None:
    why = "printed by native code that the atlas keeps only in fragments"
    entry_file = _canon(tmp_path, [_generation("torch>=2.2", atlas_unlinked=why)])
    run_cli("atlas", "link", str(entry_file.parent.parent), "--atlas", str(tiny_atlas), "--write-bounds")
    [generation] = yaml.safe_load(entry_file.read_text(encoding="utf-8"))["generations"]
    assert generation["atlas_unlinked"] == why and generation["versions"] == "torch>=2.2" and "atlas" not in generation


def test_link_keeps_what_a_maintainer_appended_to_its_own_reason(tmp_path: Path, tiny_atlas: Path) -> None:
    """Link rewrites its own reason with the releases it read, but not the words a maintainer added after it."""
    wording = "An unrelated wording that no template of the atlas prints at all"
    added = "; the atlas reads the macOS wheels, which have no cuDNN code"
    stale = "no atlas template matches the wording (torch 1.0.1..1.2.0, 2 releases read)" + added
    entry_file = _canon(tmp_path, [_generation("torch", wording, atlas_unlinked=stale)])
    result = run_cli("atlas", "link", str(entry_file.parent.parent), "--atlas", str(tiny_atlas))
    assert result.returncode == 0, result.stderr
    [generation] = yaml.safe_load(entry_file.read_text(encoding="utf-8"))["generations"]
    assert generation["atlas_unlinked"].startswith("no atlas template matches the wording (torch ")
    assert generation["atlas_unlinked"].endswith(added) and generation["atlas_unlinked"] != stale
