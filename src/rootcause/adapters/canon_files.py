"""Entries as files: one YAML file per entry, the id equal to its path.

Loading validates every file and never half-loads: the first bad file raises a
``CanonError`` naming the file, the line and the field. Dumping writes a fixed
key order, so diffs show content changes only (``rootcause fmt``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from rootcause.adapters.canon_paths import CANON_ENV as CANON_ENV  # re-exported: where the canon is
from rootcause.adapters.canon_paths import SUFFIX as SUFFIX
from rootcause.adapters.canon_paths import builtin_canon_dir as builtin_canon_dir
from rootcause.adapters.canon_paths import canon_dirs as canon_dirs
from rootcause.adapters.canon_paths import checkout_canon_dir as checkout_canon_dir
from rootcause.adapters.canon_paths import iter_entry_files as iter_entry_files
from rootcause.adapters.canon_paths import write_atomic as write_atomic
from rootcause.adapters.canon_paths import write_atomic_bytes as write_atomic_bytes
from rootcause.core.model import Entry
from rootcause.errors import CanonError

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):  # type: ignore[valid-type,misc]
    """SafeLoader without implicit timestamps (dates stay strings until pydantic) and without
    aliases: ``*name`` repeats a node without repeating its text, so a 1 KB file of nested aliases
    (a "billion laughs") expands to hundreds of MB once anything walks the data. An entry has no
    use for them; the first one is refused, at its anchor's line."""

    def get_single_data(self) -> Any:
        node = self.get_single_node()
        if node is None:
            return None
        _refuse_aliases(node)
        return self.construct_document(node)


def _refuse_aliases(root: yaml.Node) -> None:
    """Raise at the first node reached twice (an alias): linear in the nodes the text holds."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            raise yaml.constructor.ConstructorError(
                None, None, "YAML aliases (&anchor, *alias, <<: merges) are not allowed in an entry", node.start_mark
            )
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack += (key, value)
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _construct_mapping_no_duplicates(loader: _Loader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if not isinstance(key, str | int | float | bool | None):
            raise yaml.constructor.ConstructorError(None, None, "a key must be a plain value", key_node.start_mark)
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping_no_duplicates)


class _Dumper(yaml.SafeDumper):
    pass


def _str_representer(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str_representer)


@dataclass(frozen=True)
class LoadedEntry:
    entry: Entry
    path: str


def _line_of(node: yaml.Node | None, loc: tuple[int | str, ...]) -> int | None:
    """Follow a pydantic error location through the YAML node tree to a line."""
    line = node.start_mark.line + 1 if node is not None else None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            match = next((v for k, v in node.value if k.value == part), None)
            if match is None:
                key = next((k for k, _ in node.value if k.value == part), None)
                return key.start_mark.line + 1 if key is not None else line
            node = match
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if part >= len(node.value):
                return line
            node = node.value[part]
        else:
            return line
        line = node.start_mark.line + 1
    return line


def parse_entry(text: str, path: str, *, expected_id: str | None = None) -> Entry:
    """Parse and validate one entry file's text. Raises CanonError."""
    try:
        data = yaml.load(text, Loader=_Loader)
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow
        line = text.count("\n", 0, exc.position) + 1
        raise CanonError(path, f"invalid YAML: character {exc.character!r} is not allowed", line=line) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc)
        raise CanonError(path, f"invalid YAML: {problem}", line=line) from None
    except UnicodeEncodeError as exc:  # a lone surrogate: text that was never UTF-8
        line = text.count("\n", 0, exc.start) + 1
        raise CanonError(path, "invalid text: a lone surrogate character", line=line) from None
    except RecursionError:
        raise CanonError(path, "invalid YAML: nested too deeply", line=1) from None
    if not isinstance(data, dict):
        raise CanonError(path, "an entry file must hold a mapping", line=1)
    try:
        entry = Entry.model_validate(data)
    except ValidationError as exc:
        node = yaml.compose(text, Loader=_Loader)
        err = exc.errors()[0]
        loc = tuple(p for p in err["loc"] if not isinstance(p, str) or not p.startswith("function-"))
        field = ".".join(str(p) for p in loc) or None
        message = err["msg"]
        if err["type"] == "extra_forbidden":
            message = "unknown field"
        raise CanonError(path, message, line=_line_of(node, loc), field=field) from None
    if expected_id is not None and entry.id != expected_id:
        node = yaml.compose(text, Loader=_Loader)
        raise CanonError(
            path,
            f"id {entry.id!r} does not equal the file's path (expected {expected_id!r})",
            line=_line_of(node, ("id",)),
            field="id",
        )
    return entry


def load_file(file: Path, expected_id: str | None = None) -> Entry:
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CanonError(str(file), f"cannot read: {exc}") from None
    return parse_entry(text, str(file), expected_id=expected_id)


def load_canon(extra_dirs: Iterable[str | os.PathLike[str]] = ()) -> list[LoadedEntry]:
    """Load every entry of every canon folder, or raise on the first bad file."""
    by_id: dict[str, LoadedEntry] = {}
    for root in canon_dirs(extra_dirs):
        if not root.is_dir():
            raise CanonError(str(root), "canon folder does not exist")
        for file, entry_id in iter_entry_files(root):
            entry = load_file(file, expected_id=entry_id)
            by_id[entry.id] = LoadedEntry(entry, str(file))
    return sorted(by_id.values(), key=lambda loaded: loaded.entry.id)


def _prune(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _prune(v) for k, v in value.items() if v not in (None, [], {})}
    if isinstance(value, list):
        return [_prune(v) for v in value]
    return value


def _drop_defaults(entry: Entry) -> dict[str, Any]:
    data = entry.model_dump(mode="json")
    for key, default in {"generic": False, "family": False, "catch_all": False, "role": "cause"}.items():
        if data.get(key) == default:
            data.pop(key)
    evidence = data.get("evidence")
    if evidence == {"count": 0, "basis": "estimate"}:
        data.pop("evidence")
    for rate_holder in [data, *data.get("workarounds", []), *data.get("dead_ends", [])]:
        for key in ("fix_rate", "confidence", "success_rate", "fail_rate"):
            rate = rate_holder.get(key)
            if isinstance(rate, dict) and rate.get("reports") == 0:
                rate.pop("reports")
    for pattern in data.get("patterns", []):
        if pattern.get("window") == 1:
            pattern.pop("window")
        if pattern.get("consequence") is False:
            pattern.pop("consequence")
        if pattern.get("raised_in") == []:
            pattern.pop("raised_in")
    return _prune(data)


def dump_entry(entry: Entry) -> str:
    """The canonical text of an entry file (fixed key order)."""
    return yaml.dump(
        _drop_defaults(entry),
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=100_000,
        default_flow_style=False,
    )
