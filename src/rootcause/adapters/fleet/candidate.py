"""A candidate entry from a mined template: signature, RE2 pattern, examples and sources filled in;
the prose left to a maintainer, marked so that `rootcause lint` refuses the file (RC901) until it is
written."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import yaml

from rootcause.adapters.canon_files import write_atomic
from rootcause.core.fleet.masks import template_to_re2
from rootcause.core.lint import TODO_MARK
from rootcause.core.matching.patterns import compile_re2
from rootcause.core.model import Entry
from rootcause.errors import PatternError, UsageError

ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*/[a-z0-9]+(?:-[a-z0-9]+)*$")


def candidate_pattern(template: str, examples: list[str]) -> str:
    """The template's RE2 pattern; it must compile in RE2 and match every example."""
    pattern = template_to_re2(template)
    try:
        rx = compile_re2(pattern)
    except PatternError as exc:
        raise UsageError(f"template {template!r}: no valid RE2 pattern: {exc}") from None
    missed = [e for e in examples if rx.search(e) is None]
    if missed:
        raise UsageError(f"template {template!r}: its pattern does not match the example {missed[0]!r}")
    return pattern


def candidate_entry(entry_id: str, template: dict[str, Any], today: dt.date) -> dict[str, Any]:
    if not ID_RE.match(entry_id):
        raise UsageError(f"{entry_id!r} is not an entry id of the form domain/slug (lowercase, digits, dashes)")
    examples = list(template["examples"])
    pattern = candidate_pattern(template["template"], examples)
    sources = template.get("sources") or []

    def where(n: int) -> str:
        s = sources[n] if n < len(sources) else {}
        return f"fleet log {s.get('path')}:{s.get('line')} (job {s.get('job')}, host {s.get('host')})"

    todo = f"{TODO_MARK}: "
    data: dict[str, Any] = {
        "schema_version": 1,
        "id": entry_id,
        "modified": today.isoformat(),
        "signature": examples[0],
        "signature_zh": f"{todo}中文签名（Chinese signature）",
        "patterns": [{"regex": pattern, "note": f"from the fleet template: {template['template']}"}],
        "domain": entry_id.split("/")[0],
        "category": "runtime_error",
        "verification": "community",
        "root_cause": f"{todo}say in your own words why this happens, from the library's source or a public thread.",
        "root_cause_zh": f"{todo}用中文说明根本原因。",
        "examples": [{"text": text, "source": {"kind": "output", "ref": where(n)}} for n, text in enumerate(examples)],
        "sources": [
            {
                "kind": "output",
                "ref": where(n),
                "note": f"seen {template['count']} times in fleet runs, on {len(template['jobs'])} jobs",
            }
            for n in range(min(len(sources), 3) or 1)
        ],
    }
    Entry.model_validate(data)  # what we write is a valid entry, lint aside
    return data


def write_candidate(entry_id: str, template: dict[str, Any], folder: Path) -> Path:
    data = candidate_entry(entry_id, template, dt.date.today())
    path = folder / f"{entry_id}.yaml"
    if path.exists():
        raise UsageError(f"{path}: exists already; not overwritten")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120))
    return path
