"""Finding and reading reproducers (docs/reproducers.md): a reproducer's folder, its spec, its record
and its expected output, and the "Reproduce it" views of an entry."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from rootcause.adapters.canon_files import LoadedEntry
from rootcause.core.model import Entry
from rootcause.core.reproducers import (
    EXPECTED_FILE,
    RECORD_FILE,
    SPEC_FILE,
    Record,
    Reproducer,
    ReproducerView,
    Spec,
    reproducer_view,
)
from rootcause.core.stats import Tally


def reproducers_root(entry_file: str | Path) -> Path:
    """``<canon>/<domain>/<slug>.yaml`` -> ``<canon>/../reproducers``."""
    return Path(entry_file).resolve().parent.parent.parent / "reproducers"


def _read_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _problem(path: Path, exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "(top)"
    return f"{path}: {where}: {err['msg']}"


def load_reproducer(entry_id: str, folder: str, root: Path) -> Reproducer:
    base = root / folder
    spec_path = base / SPEC_FILE
    if not spec_path.is_file():
        return Reproducer(entry_id, folder, None, None, problem=f"{spec_path}: no such file")
    files = tuple(sorted(p.name for p in base.iterdir() if p.is_file()))
    try:
        spec = Spec.model_validate(_read_yaml(spec_path))
    except ValidationError as exc:
        return Reproducer(entry_id, folder, None, None, problem=_problem(spec_path, exc), files=files)
    except (yaml.YAMLError, OSError) as exc:
        return Reproducer(entry_id, folder, None, None, problem=f"{spec_path}: {' '.join(str(exc).split())}")
    record = None
    record_path = base / RECORD_FILE
    problem = None
    if record_path.is_file():
        try:
            record = Record.model_validate(_read_yaml(record_path))
        except (ValidationError, yaml.YAMLError) as exc:
            problem = f"{record_path}: invalid record ({' '.join(str(exc).split())[:200]})"
            return Reproducer(entry_id, folder, None, None, problem=problem, files=files)
    expected = base / EXPECTED_FILE
    text = expected.read_text(encoding="utf-8", errors="replace") if expected.is_file() else None
    return Reproducer(entry_id, folder, spec, record, expected_output=text, files=files)


def reproducer_views(entry: Entry, canon_roots: Sequence[Path], runs: Tally | None = None) -> list[ReproducerView]:
    """The "Reproduce it" views of an entry; a later canon folder's reproducers override earlier ones."""
    out = []
    for ref in entry.reproducers:
        found = None
        for canon in canon_roots:
            base = canon.parent / "reproducers"
            if (base / ref.folder / SPEC_FILE).is_file():
                found = base
        if found is None:
            continue
        rep = load_reproducer(entry.id, ref.folder, found)
        code = None
        if rep.spec is not None and rep.spec.program:
            program = found / ref.folder / rep.spec.program
            code = program.read_text(encoding="utf-8", errors="replace") if program.is_file() else None
        view = reproducer_view(rep, code, runs)
        if view is not None:
            out.append(view)
    return out


def reproducers_of(loaded: LoadedEntry) -> list[Reproducer]:
    root = reproducers_root(loaded.path)
    return [load_reproducer(loaded.entry.id, ref.folder, root) for ref in loaded.entry.reproducers]


def folder_path(loaded: LoadedEntry, folder: str) -> Path:
    return reproducers_root(loaded.path) / folder
