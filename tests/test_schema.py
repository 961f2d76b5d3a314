"""The published JSON Schema is generated from the model and must not drift."""

from __future__ import annotations

import json

import jsonschema
import yaml
from testkit import SEED_ID, run_cli

from rootcause.adapters.canon_files import builtin_canon_dir
from rootcause.core.model import Entry

SCHEMA_FILE = builtin_canon_dir().parent / "schema" / "entry.schema.json"


def test_checked_in_schema_is_current() -> None:
    result = run_cli("schema", "--check", str(SCHEMA_FILE))
    assert result.returncode == 0, result.stderr
    assert json.loads(SCHEMA_FILE.read_text(encoding="utf-8")) == Entry.model_json_schema()


def test_schema_check_fails_on_drift(tmp_path) -> None:
    stale = tmp_path / "entry.schema.json"
    stale.write_text("{}", encoding="utf-8")
    result = run_cli("schema", "--check", str(stale))
    assert result.returncode == 1 and "out of date" in result.stderr


def test_seed_file_validates_against_the_published_schema() -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    data = yaml.safe_load((builtin_canon_dir() / f"{SEED_ID}.yaml").read_text(encoding="utf-8"))
    data["modified"] = str(data["modified"])
    data["first_seen"] = str(data["first_seen"])
    jsonschema.validate(data, schema)
    data["colour"] = "red"
    try:
        jsonschema.validate(data, schema)
    except jsonschema.ValidationError as exc:
        assert "colour" in str(exc)
    else:
        raise AssertionError("unknown fields must be rejected by the schema")


def test_lint_codes_doc_is_generated_from_the_code() -> None:
    from pathlib import Path

    doc = Path(__file__).parent.parent / "docs" / "lint.md"
    result = run_cli("lint-codes", "--markdown")
    assert result.returncode == 0
    assert doc.read_text(encoding="utf-8") == result.stdout


def test_checked_in_diagnosis_schema_is_current() -> None:
    target = SCHEMA_FILE.parent / "diagnosis.schema.json"
    result = run_cli("schema", "--of", "diagnosis", "--check", str(target))
    assert result.returncode == 0, result.stderr


def test_cli_json_output_validates_against_the_diagnosis_schema() -> None:
    schema = json.loads((SCHEMA_FILE.parent / "diagnosis.schema.json").read_text(encoding="utf-8"))
    result = run_cli(
        "diagnose",
        "-f",
        "json",
        stdin="RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2. Original reason for failure was: AllReduce timed out after 600000 ms\n",
    )
    jsonschema.validate(json.loads(result.stdout), schema)
