"""Entries as files: validation with file/line/field errors, overrides, fmt."""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit import SEED_ID, run_cli

from rootcause.adapters.canon_files import builtin_canon_dir, dump_entry, load_canon, parse_entry
from rootcause.errors import CanonError

SEED_FILE = builtin_canon_dir() / f"{SEED_ID}.yaml"


def seed_text() -> str:
    return SEED_FILE.read_text(encoding="utf-8")


def write_entry(root: Path, entry_id: str, text: str) -> Path:
    path = root / f"{entry_id}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(
    ("old", "new", "field", "needle"),
    [
        ("  value: 0.75", "  value: high", "fix_rate.value", "value: high"),
        ("  value: 0.75", "  value: 1.5", "fix_rate.value", "value: 1.5"),
        ("category: network_error", "category: network_error\ncolour: red", "colour", "colour: red"),
        ("- requirement: torch>=1.10", "- requirement: torch>>1.10", "versions.0.requirement", "torch>>1.10"),
        (
            "- regex: NCCL communicator was aborted on rank (?P<rank>\\d+)",
            "- regex: (a)\\1 NCCL communicator was aborted on rank (?P<rank>\\d+)",
            "patterns.0.regex",
            "(a)\\1",
        ),
        (
            "- regex: NCCL communicator was aborted on rank (?P<rank>\\d+)",
            "- regex: (?=look)NCCL communicator was aborted on rank (?P<rank>\\d+)",
            "patterns.0.regex",
            "(?=look)",
        ),
        (
            "- regex: NCCL communicator was aborted on rank (?P<rank>\\d+)",
            "- regex: (unclosed NCCL communicator was aborted on rank (?P<rank>\\d+)",
            "patterns.0.regex",
            "(unclosed",
        ),
        ("- https://pytorch.org/docs", "- not a url pytorch.org/docs", "official_docs.0", "not a url"),
        ("verification: ai_generated", "verification: trust_me", "verification", "trust_me"),
        ("modified: '2026-12-02'", "modified: '2026-13-45'", "modified", "2026-13-45"),
    ],
)
def test_bad_field_names_file_line_and_field(tmp_path: Path, old: str, new: str, field: str, needle: str) -> None:
    text = seed_text()
    assert old in text, old
    bad = text.replace(old, new, 1)
    path = write_entry(tmp_path, SEED_ID, bad)
    with pytest.raises(CanonError) as info:
        load_canon([tmp_path])
    err = info.value
    assert err.path == str(path)
    assert err.field == field
    assert err.line == line_of(bad, needle)
    assert str(err).startswith(f"{path}:{err.line}: {field}: ")
    assert "\n" not in str(err)


def test_bad_id_and_id_not_equal_to_path(tmp_path: Path) -> None:
    text = seed_text().replace(f"id: {SEED_ID}", "id: PyTorch/Bad_ID!")
    with pytest.raises(CanonError) as info:
        parse_entry(text, "x.yaml")
    assert info.value.field == "id" and "domain/slug" in str(info.value)
    write_entry(tmp_path, "pytorch/other-name", seed_text())
    with pytest.raises(CanonError) as info2:
        load_canon([tmp_path])
    assert info2.value.field == "id" and "does not equal the file's path" in str(info2.value)
    assert info2.value.line == line_of(seed_text(), "id: ")


def test_yaml_syntax_and_duplicate_keys(tmp_path: Path) -> None:
    with pytest.raises(CanonError) as info:
        parse_entry("id: a/b\nsignature: [unclosed\n", "bad.yaml")
    assert "invalid YAML" in str(info.value) and info.value.line is not None
    with pytest.raises(CanonError) as info2:
        parse_entry(seed_text() + "domain: pytorch\n", "dup.yaml")
    assert "duplicate key 'domain'" in str(info2.value)
    assert info2.value.line == len(seed_text().splitlines()) + 1


def test_a_bad_file_never_half_loads(tmp_path: Path) -> None:
    write_entry(tmp_path, "pytorch/aaa-good", seed_text().replace(SEED_ID, "pytorch/aaa-good"))
    write_entry(tmp_path, "pytorch/zzz-bad", "id: pytorch/zzz-bad\n")
    with pytest.raises(CanonError):
        load_canon([tmp_path])


def test_local_entry_overrides_shipped_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    local = seed_text().replace("value: 0.75", "value: 0.25")
    write_entry(tmp_path, SEED_ID, local)
    by_id = {le.entry.id: le for le in load_canon([tmp_path])}
    assert by_id[SEED_ID].entry.fix_rate.value == 0.25
    assert by_id[SEED_ID].path.startswith(str(tmp_path))
    monkeypatch.setenv("ROOTCAUSE_CANON", str(tmp_path))
    result = run_cli("show", SEED_ID, "--format", "json")
    assert '"fix_rate": 0.25' in result.stdout
    result2 = run_cli("show", SEED_ID, "--format", "json", "--canon", str(tmp_path), env={"ROOTCAUSE_CANON": ""})
    assert '"fix_rate": 0.25' in result2.stdout


def test_dump_is_canonical_and_stable() -> None:
    entry = parse_entry(seed_text(), "seed.yaml")
    text = dump_entry(entry)
    assert text == seed_text(), "the shipped seed file is in canonical form"
    assert dump_entry(parse_entry(text, "again.yaml")) == text
    keys = [line.split(":")[0] for line in text.splitlines() if line and not line.startswith((" ", "-"))]
    assert keys[:4] == ["schema_version", "id", "modified", "signature"]


def test_fmt_check_and_rewrite(tmp_path: Path) -> None:
    messy = seed_text().replace(
        "schema_version: 1\nid: pytorch/nccl-timeout-allreduce\n",
        "id: pytorch/nccl-timeout-allreduce\nschema_version: 1\n",
    )
    path = write_entry(tmp_path, SEED_ID, messy)
    check = run_cli("fmt", "--check", str(tmp_path))
    assert check.returncode == 1 and str(path) in check.stdout
    assert path.read_text(encoding="utf-8") == messy, "--check changes nothing"
    fixed = run_cli("fmt", str(tmp_path))
    assert fixed.returncode == 0, fixed.stderr
    assert path.read_text(encoding="utf-8") == seed_text()
    assert run_cli("fmt", "--check", str(tmp_path)).returncode == 0


def test_fmt_refuses_to_write_when_any_file_is_bad(tmp_path: Path) -> None:
    messy = seed_text().replace("schema_version: 1\n", "") + "schema_version: 1\n"
    good = write_entry(tmp_path, SEED_ID, messy)
    write_entry(tmp_path, "pytorch/zzz-bad", "id: pytorch/zzz-bad\n")
    result = run_cli("fmt", str(tmp_path))
    assert result.returncode == 3
    assert "zzz-bad.yaml" in result.stderr
    assert good.read_text(encoding="utf-8") == messy


def test_shipped_canon_loads_and_is_canonical() -> None:
    result = run_cli("fmt", "--check")
    assert result.returncode == 0, result.stdout + result.stderr


LAUGHS = "extra:\n  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"  l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 10)}]\n" for n in range(1, 11)
)  # ten levels: 10^10 strings from 1.4 KB


def _serve_exit(tmp_path: Path, canon: Path) -> tuple[int, list[str]]:
    """`rootcause serve` with this extra canon: it must exit 3 with one line, before it listens."""
    from testkit import free_port

    result = run_cli(
        "serve",
        "--canon",
        str(canon),
        "--port",
        str(free_port()),
        "--database-url",
        f"sqlite:///{tmp_path / 'serve.db'}",
        env={"ROOTCAUSE_CACHE_DIR": str(tmp_path / "cache")},
    )
    return result.returncode, result.stderr.strip().splitlines()


def test_yaml_aliases_are_refused_in_one_line(tmp_path: Path) -> None:
    text = seed_text() + LAUGHS
    with pytest.raises(CanonError) as info:
        parse_entry(text, "laughs.yaml")
    assert "aliases" in str(info.value) and info.value.line == line_of(text, "l0: &l0")
    merge = seed_text().replace("category: network_error", "category: &c network_error\nsubcategory: *c")
    with pytest.raises(CanonError, match="aliases"):
        parse_entry(merge, "merge.yaml")
    write_entry(tmp_path / "canon", SEED_ID, text)
    code, lines = _serve_exit(tmp_path, tmp_path / "canon")
    assert code == 3 and len(lines) == 1 and "aliases" in lines[0], lines


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("category", "../../../../tmp/escaped"),
        ("category", "c" * 65),
        ("category", "Network Error"),
        ("subcategory", "a/b"),
        ("domain", "x" * 65),
    ],
)
def test_domains_and_categories_are_slugs(field: str, value: str) -> None:
    old = {"category": "category: network_error", "subcategory": "category: network_error", "domain": "domain: pytorch"}
    new = {
        "category": f"category: '{value}'",
        "subcategory": f"category: network_error\nsubcategory: '{value}'",
        "domain": f"domain: '{value}'",
    }
    text = seed_text().replace(old[field], new[field])
    with pytest.raises(CanonError) as info:
        parse_entry(text, "bad.yaml")
    assert info.value.field == field and "slug" in str(info.value)


def test_a_long_id_is_refused() -> None:
    text = seed_text().replace(f"id: {SEED_ID}", f"id: pytorch/{'a' * 200}")
    with pytest.raises(CanonError) as info:
        parse_entry(text, "long.yaml")
    assert info.value.field == "id" and len(str(info.value)) < 400


def test_a_bad_category_stops_serve_in_one_line_and_lint_names_it(tmp_path: Path) -> None:
    write_entry(
        tmp_path / "canon",
        "pytorch/escape",
        seed_text().replace(SEED_ID, "pytorch/escape").replace("category: network_error", "category: " + "c" * 65),
    )
    code, lines = _serve_exit(tmp_path, tmp_path / "canon")
    assert code == 3 and len(lines) == 1 and "category" in lines[0] and "slug" in lines[0], lines
    lint = run_cli("lint", str(tmp_path / "canon"))
    assert lint.returncode != 0 and "category" in lint.stdout + lint.stderr
