"""Each lint check fires on a deliberately bad entry; the shipped canon passes lint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testkit import SEED_ID, run_cli

# The seed entry as it was imported (no related links, generations or sourced bounds): a stable template
# that each case breaks in one way. The live seed has since gained links that name other canon entries.
SEED_TEXT = (Path(__file__).parent / "data" / "lint-template-entry.yaml").read_text(encoding="utf-8")
GOOD_ID = "pytorch/lint-fixture-good"


def entry_text(entry_id: str = GOOD_ID, **replace: str) -> str:
    text = SEED_TEXT.replace(f"id: {SEED_ID}", f"id: {entry_id}")
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def lint_folder(tmp_path: Path, files: dict[str, str]) -> dict[str, list[dict[str, str]]]:
    for entry_id, text in files.items():
        path = tmp_path / f"{entry_id}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    result = run_cli("lint", str(tmp_path), "--format", "json")
    data = json.loads(result.stdout)
    by_code: dict[str, list[dict[str, str]]] = {}
    for f in data["findings"]:
        by_code.setdefault(f["code"], []).append(f)
    assert result.returncode == (1 if data["errors"] else 0)
    return by_code


SEED_PATTERN = "- regex: NCCL communicator was aborted on rank (?P<rank>\\d+)\\.\\s+Original reason for failure was:.*(?P<collective>(?i:allreduce|all_reduce)).*timed out"

CASES = {
    "RC001": {"verification: ai_generated": "verification: trusted"},
    "RC101": {SEED_PATTERN: "- regex: (?=lookahead)NCCL"},
    "RC111": {
        "- regex: NCCL communicator was aborted on rank (?P<rank>": "- regex: NCCL communicator was aborted on[ \u2009]rank (?P<rank>"
    },  # a thin space inside a class
    "RC102": {SEED_PATTERN: "- regex: this matches nothing real\n  window: 1"},
    # a second pattern whose first line ends in $ before a line break: RE2's $ is the text's end, it never matches
    "RC113": {
        SEED_PATTERN: SEED_PATTERN + "\n  window: 1\n- regex: '^\\s*Downloading \\S+$\\n.*timed out'\n  window: 2"
    },
    # a top-level alternation has no stable head: "...aborted on rank 2." alone matches nothing of the entry
    "RC109": {
        SEED_PATTERN: SEED_PATTERN + "|went away on rank \\d+\\. Original",
        "- text: 'RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2.": "- text: 'RuntimeError: [Rank 0] "
        "NCCL communicator went away on rank 2.",  # a first sentence no other entry shares
    },
    "RC501": {
        "root_cause_zh: 由于网络拥塞、GPU挂起或分布式等级间工作负载不均衡，NCCL集合操作（AllReduce）超时。\n": ""
    },
    "RC502": {"  value: 0.75": "  value: 1.75"},
    "RC503": {"- requirement: torch>=1.10": "- requirement: torch=>1.10"},
    "RC504": {"- https://pytorch.org/docs/stable/distributed.html#common-environment-variables": "- pytorch dot org"},
    "RC505": {"- requirement: cuda>=11.3": "- requirement: a100>=1"},
    "RC506": {"  value: 0.8\n": "  value: 0.83\n"},
    "RC507": {},  # the seed's own 85% confidence on evidence 1
    "RC901": {"root_cause: NCCL collective": "root_cause: TODO(maintainer) NCCL collective"},
    "RC601": {
        "export NCCL_IB_TIMEOUT=22; export NCCL_SOCKET_IFNAME=eth0; torchrun --nproc_per_node=8 train.py'\n  success_rate": "export NCCL_MAGIC_SPEEDUP=1; torchrun --nproc_per_node=8 train.py'\n  success_rate"
    },
    "RC401": {"- action: torchrun --nproc_per_node=2\n": "- action: export NCCL_IB_TIMEOUT=22\n"},
    "RC701": {
        "sources:\n- kind: seed": "related:\n- id: pytorch/does-not-exist\n  type: leads-to\nsources:\n- kind: seed"
    },
    "RC702": {"- action: torchrun --nproc_per_node=2": "- action: ''"},
    "RC801": {"verification: ai_generated": "verification: verified"},
    "RC107": {},  # the seed lists no message generations
    "RC508": {"- requirement: torch>=1.10\n  status: active\n": "- requirement: torch>=1.10,<2.0\n  status: active\n"},
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_each_check_fires_on_a_bad_entry(tmp_path: Path, code: str) -> None:
    found = lint_folder(tmp_path, {GOOD_ID: entry_text(**CASES[code])})
    assert code in found, found
    assert all(f["path"].endswith(f"{GOOD_ID}.yaml") for f in found[code])


def test_non_ascii_in_class_names_the_character_and_spares_alternations() -> None:
    from rootcause.core.matching.patterns import non_ascii_in_class

    assert non_ascii_in_class("name ['\u2018\u2019](?P<name>\\w+)") == "\u2018"
    assert non_ascii_in_class("[^]\u2019]") == "\u2019"  # a leading ']' is a member, the class goes on
    assert non_ascii_in_class("name (?:'|\u2018|\u2019)x") is None
    assert non_ascii_in_class("\\[\u2018\\]") is None  # escaped brackets are literals
    assert non_ascii_in_class("\u9875\u9762[a-z]+") is None


def test_dead_anchor_names_anchors_no_text_can_satisfy() -> None:
    from rootcause.core.matching.patterns import dead_anchor

    assert dead_anchor("^\\s*Downloading \\S+\\s*$(?:\\n[^\\n]*){0,45}?\\nHTTPError") is not None  # auth1's draft
    assert dead_anchor("a\\n^b") is not None
    for alive in ("^abc$", "(?:^|\\n)x", "foo(?:$|\\n)", "[^x]$", "a\\$b", "[$]x", "(?:a$)?b", "(?m)^a$\\nb"):
        assert dead_anchor(alive) is None, alive


def test_rc002_id_must_equal_path(tmp_path: Path) -> None:
    found = lint_folder(tmp_path, {"pytorch/elsewhere": entry_text()})
    assert "RC002" in found


def test_rc104_needs_two_examples(tmp_path: Path) -> None:
    text = entry_text()
    start = text.index("examples:\n")
    end = text.index("sources:\n")
    one = (
        text[:start]
        + "examples:\n- text: 'RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2. Original reason for failure was: AllReduce timed out after 600000 ms'\n  source:\n    kind: seed\n    ref: x\n"
        + text[end:]
    )
    assert "RC104" in lint_folder(tmp_path, {GOOD_ID: one})


def test_rc103_example_not_matched(tmp_path: Path) -> None:
    bad = entry_text(
        **{
            "- text: 'RuntimeError: NCCL communicator was aborted on rank 0.": "- text: 'Completely unrelated text, rank 0."
        }
    )
    assert "RC103" in lint_folder(tmp_path, {GOOD_ID: bad})


def test_rc105_needs_sources(tmp_path: Path) -> None:
    text = entry_text()
    no_sources = text[: text.index("sources:\n")]
    assert "RC105" in lint_folder(tmp_path, {GOOD_ID: no_sources})


def test_rc201_collision_and_rc301_duplicate(tmp_path: Path) -> None:
    twin = entry_text("pytorch/lint-fixture-twin")
    found = lint_folder(tmp_path, {GOOD_ID: entry_text(), "pytorch/lint-fixture-twin": twin})
    assert "RC201" in found and "RC301" in found


def test_rc303_entries_matching_each_other_need_a_relation(tmp_path: Path) -> None:
    twin = entry_text("pytorch/lint-fixture-twin")
    found = lint_folder(tmp_path, {GOOD_ID: entry_text(), "pytorch/lint-fixture-twin": twin})
    assert len(found["RC303"]) == 1 and "lint-fixture-twin" in found["RC303"][0]["message"]
    relate = {
        "sources:\n- kind: seed": "related:\n- id: pytorch/lint-fixture-twin\n  type: confused-with\nsources:\n- kind: seed"
    }
    related = lint_folder(tmp_path, {GOOD_ID: entry_text(**relate), "pytorch/lint-fixture-twin": twin})
    assert "RC303" not in related


def test_rc508_bounds_with_a_source_or_unchecked_pass(tmp_path: Path) -> None:
    versions = "- requirement: torch>=1.10\n  status: active\n- requirement: cuda>=11.3\n  status: active\n- requirement: nccl>=2.9\n  status: active\n"
    sourced = (
        "- requirement: torch>=1.10\n  status: active\n  bounds_source:\n    kind: source\n"
        "    ref: pytorch/pytorch@v1.10.0:torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp\n"
        "- requirement: cuda>=11.3\n  status: active\n  bounds_source: unchecked\n"
        "- requirement: nccl>=2.9\n  status: active\n  bounds_source: unchecked\n"
    )
    assert "RC508" not in lint_folder(tmp_path, {GOOD_ID: entry_text(**{versions: sourced})})


def test_rc106_example_must_appear_in_the_fixture_it_cites(tmp_path: Path) -> None:
    fixture = tmp_path / "tests" / "fixtures" / "run.log"
    fixture.parent.mkdir(parents=True)
    cite = "    kind: thread\n    ref: https://github.com/NVIDIA/nccl/issues/1438"
    local = "    kind: output\n    ref: tests/fixtures/run.log"
    text = entry_text(**{cite: local})
    fixture.write_text("noise\nsomething else entirely\n", encoding="utf-8")
    canon = tmp_path / "canon"
    assert "RC106" in lint_folder(canon, {GOOD_ID: text})
    example = text.split("- text: '", 3)[2].split("'\n", 1)[0]
    fixture.write_text(f"noise\n{example}\n", encoding="utf-8")
    assert "RC106" not in lint_folder(canon, {GOOD_ID: text})


def test_generations_must_name_existing_examples(tmp_path: Path) -> None:
    generations = (
        "generations:\n- wording: 'NCCL communicator was aborted on rank %d.'\n  versions: torch>=1.10\n"
        "  bounds_source: unchecked\n  examples:\n  - 9\nhardware:"
    )
    text = entry_text()
    text = (
        text.replace("hardware:", generations, 1)
        if "hardware:" in text
        else text.replace("root_cause:", generations.replace("hardware:", "root_cause:"), 1)
    )
    found = lint_folder(tmp_path, {GOOD_ID: text})
    assert any("generations.0.examples names example 9" in f["message"] for f in found["RC001"]), found


def test_rc302_same_as_is_an_honest_duplicate(tmp_path: Path) -> None:
    relate = {
        "sources:\n- kind: seed": "related:\n- id: pytorch/lint-fixture-twin\n  type: same-as\nsources:\n- kind: seed"
    }
    found = lint_folder(
        tmp_path, {GOOD_ID: entry_text(**relate), "pytorch/lint-fixture-twin": entry_text("pytorch/lint-fixture-twin")}
    )
    assert "RC302" in found and "RC301" not in found


@pytest.mark.parametrize(("twin_verification", "code"), [("ai_generated", "RC402"), ("community", "RC403")])
def test_rc402_a_workaround_that_a_same_as_entry_calls_a_dead_end(
    tmp_path: Path, twin_verification: str, code: str
) -> None:
    """The good entry recommends NCCL_IB_TIMEOUT; its same-as twin lists raising it as a dead end. Between two
    AI-generated entries that is an error; against a grounded twin it is the documented exemption (a warning)."""
    relate = {
        "sources:\n- kind: seed": "related:\n- id: pytorch/lint-fixture-twin\n  type: same-as\nsources:\n- kind: seed"
    }
    twin = entry_text(
        "pytorch/lint-fixture-twin",
        **{
            "- action: torchrun --nproc_per_node=2\n": "- action: Raise NCCL_IB_TIMEOUT to wait longer\n",
            "verification: ai_generated": f"verification: {twin_verification}",
        },
    )
    found = lint_folder(tmp_path, {GOOD_ID: entry_text(**relate), "pytorch/lint-fixture-twin": twin})
    assert code in found, sorted(found)
    assert ({"RC402", "RC403"} - {code}).isdisjoint(found), sorted(found)
    assert any("NCCL_IB_TIMEOUT" in f["message"] and "lint-fixture-twin" in f["message"] for f in found[code])


def test_output_is_path_code_message(tmp_path: Path) -> None:
    path = tmp_path / f"{GOOD_ID}.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(entry_text(**CASES["RC506"]), encoding="utf-8")
    result = run_cli("lint", str(tmp_path))
    assert f"{path}: [RC506] workarounds.0.success_rate = 0.83 is an estimate with made-up precision" in result.stdout


def test_every_code_has_a_test() -> None:
    from rootcause.core.lint import CHECKS

    tested = set(CASES) | {"RC002", "RC103", "RC104", "RC105", "RC106", "RC201", "RC301", "RC302", "RC303"}
    tested |= {"RC402", "RC403"}  # test_rc402_a_workaround_that_a_same_as_entry_calls_a_dead_end
    tested |= {"RC802", "RC803"}  # tests/test_reproducers.py
    tested |= {"RC108"}  # test_rc108_the_normalisers_own_patterns_are_linear
    tested |= {"RC110"}  # test_rc110_a_test_split_thread_is_never_a_source
    tested |= {"RC112"}  # tests/test_prefilter_heal.py
    tested |= {"RC509", "RC510", "RC511"}  # tests/test_atlas_bounds.py
    tested |= {"RC602", "RC603"}  # tests/test_advice_freshness.py
    assert set(CHECKS) <= tested, set(CHECKS) - tested


def test_the_shipped_canon_passes_lint() -> None:
    result = run_cli("lint")
    errors = [line for line in result.stdout.splitlines() if "[RC" in line and "RC50" not in line[:0]]
    assert result.returncode == 0, "\n".join(errors[:40])


def test_rc108_the_normalisers_own_patterns_are_linear() -> None:
    """The lint covers the code's own normalisers too, not only the canon's patterns."""
    import re

    import re2

    from rootcause.core.lint import check_normalisers

    assert check_normalisers() == []  # normalize.py as shipped
    namespace = {
        "OLD_PATH": re.compile(r"(?:[A-Za-z]:)?(?:[\w.\-~]*/)+[\w.\-]+"),  # tried at every position, backtracks
        "NESTED": re.compile(r"^(?:\w+\s*)+:"),  # anchored, but a repeat inside a repeat
        "FRAMING": re.compile(r"^\[rank(?P<rank>\d+)\]:\s?"),  # anchored, one repeat level: fine
        "TABLE": [("path", re2.compile(r"(?:[\w.\-~]*/)+[\w.\-]+"))],  # RE2: fine
        # token scanners, tried at every position: linear only when a branch's one unbounded repeat ends it
        "TOKENS": re.compile(r"<[A-Za-z0-9_]{1,32}>|[A-Za-z_][A-Za-z0-9_]*"),
        "TOKENS_OPEN": re.compile(r"<[A-Za-z0-9_]+>|[A-Za-z_][A-Za-z0-9_]*"),  # not provable by the rule: refused
        "SCAN_THEN_LITERAL": re.compile(r"a+b"),  # 'aaaa…' rescans the run from every position: refused
    }
    found = check_normalisers({"src/x.py": namespace})
    assert sorted(f.message.split(":")[0] for f in found) == ["NESTED", "OLD_PATH", "SCAN_THEN_LITERAL", "TOKENS_OPEN"]
    assert all(f.code == "RC108" and f.path == "src/x.py" for f in found)


def test_rc109_is_quiet_when_a_cut_paste_still_matches(tmp_path: Path) -> None:
    from rootcause.core.lint_heads import first_sentence_cut

    line = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"
    assert first_sentence_cut(line, 14, len(line)) == "RuntimeError: CUDA out of memory."
    assert first_sentence_cut("Could not load library libcudnn_cnn_infer.so.8. Error", 0, 48) is None, "a version"
    assert "RC109" not in lint_folder(tmp_path, {GOOD_ID: entry_text()}), "the seed's stable head matches the cut"


def test_rc110_a_test_split_thread_is_never_a_source(tmp_path: Path) -> None:
    """An entry citing a thread of the corpus's test split fails lint; a dev thread of the same corpus does not."""
    corpus = tmp_path / "corpus"
    (corpus / "cases").mkdir(parents=True)
    (corpus / "cases" / "x.yaml").write_text(
        "- id: a\n  url: https://github.com/NVIDIA/nccl/issues/1438/\n  split: test\n  kind: positive\n"
        "- id: b\n  url: https://github.com/open-mmlab/mmdetection/issues/12392\n  split: dev\n  kind: positive\n",
        encoding="utf-8",
    )
    canon = tmp_path / "canon"
    path = canon / f"{GOOD_ID}.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(entry_text(), encoding="utf-8")
    result = run_cli("lint", str(canon), "--corpus", str(corpus), "--format", "json")
    found = [f for f in json.loads(result.stdout)["findings"] if f["code"] == "RC110"]
    assert result.returncode == 1
    assert sorted(f["message"].split()[0] for f in found) == ["examples.1", "sources.2"], found
    assert all("nccl/issues/1438" in f["message"] for f in found)


def test_rc110_thread_keys_ignore_anchors_and_case() -> None:
    from rootcause.core.lint_split import thread_key

    same = thread_key("https://github.com/a/b/issues/12/")
    assert thread_key("https://GitHub.com/a/b/issues/12#issuecomment-3") == same
    assert thread_key("https://github.com/a/b/issues/12") != thread_key("https://github.com/a/b/issues/123")
