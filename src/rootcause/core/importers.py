"""Convert entries in the two public formats of this kind into canon entries.

- errorcanon-style ``index.json`` (the same field names rootcause's own JSON keeps);
- deadends.dev canon JSON (``schema_version``, ``error``, ``environment``, ``verdict``,
  ``dead_ends``, ``workarounds``, ``transition_graph``, ``metadata``).

Pure: a parsed JSON object in, an ``Entry`` and the list of what could not be mapped out.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from pydantic import ValidationError

from rootcause.core.lint import HARDWARE_OR_OS
from rootcause.core.matching.patterns import compile_re2
from rootcause.core.model import Entry
from rootcause.errors import PatternError, UsageError

PACKAGE_ALIASES = {"pytorch": "torch", "tensorflow-gpu": "tensorflow", "hf-transformers": "transformers"}
_OS_WORDS = re.compile(r"^(ubuntu|debian|centos|rhel|windows|macos|osx|linux|wsl|alpine|fedora)\b", re.I)
_SLUG_BAD = re.compile(r"[^a-z0-9]+")
_COUNT = re.compile(r"[0-9]{1,9}")


class ImportFormatError(UsageError):
    """The input is not an entry in a format we import."""


@dataclass
class Imported:
    entry: Entry
    unmapped: list[str] = field(default_factory=list)


class _Shape:
    """Reads a peer's JSON by the shape it must have; any other shape is one clear error
    naming the field (peer files are hostile input, not trusted structure)."""

    def __init__(self, origin: str) -> None:
        self.origin = origin

    def _wrong(self, where: str, wanted: str, value: Any) -> ImportFormatError:
        return ImportFormatError(f"{self.origin}: {where}: expected {wanted}, got {type(value).__name__}")

    def obj(self, value: Any, where: str) -> dict[str, Any]:
        if value is None or value == "":
            return {}
        if not isinstance(value, dict):
            raise self._wrong(where, "an object", value)
        return value

    def objs(self, value: Any, where: str) -> list[dict[str, Any]]:
        return [self.obj(item, f"{where}.{n}") for n, item in enumerate(self.items(value, where))]

    def items(self, value: Any, where: str) -> list[Any]:
        if value is None or value == "":
            return []
        if not isinstance(value, list):
            raise self._wrong(where, "a list", value)
        return value

    def text(self, value: Any, where: str) -> str:
        if value is None:
            return ""
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise self._wrong(where, "a string", value)
        return str(value)

    def texts(self, value: Any, where: str) -> list[str]:
        return [self.text(item, f"{where}.{n}") for n, item in enumerate(self.items(value, where))]


def _slug(text: str) -> str:
    return _SLUG_BAD.sub("-", text.lower()).strip("-") or "entry"


def _rate(value: Any, what: str, unmapped: list[str]) -> dict[str, Any] | None:
    if value is None or value == "":
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        unmapped.append(f"{what}: {value!r} is not a number")
        return None
    if not 0.0 <= number <= 1.0:
        number = number / 100 if 1 < number <= 100 else number
    if not 0.0 <= number <= 1.0:
        unmapped.append(f"{what}: {value!r} is outside [0, 1]")
        return None
    return {"value": round(number, 2), "basis": "estimate"}


def _resolvable(value: Any) -> bool | str:
    text = str(value).strip().lower()
    return True if text == "true" else False if text == "false" else "partial"


def _patterns(regex: str, signature: str, unmapped: list[str]) -> list[dict[str, Any]]:
    if regex:
        try:
            compile_re2(regex)
            return [{"regex": regex, "note": "imported"}]
        except PatternError as exc:
            unmapped.append(f"regex: not linear-time, replaced by the escaped signature ({exc})")
    return [{"regex": re.escape(signature.strip())[:1900], "note": "escaped signature (import)"}]


def _version_item(
    text: str, unmapped: list[str], hardware: list[str], os_notes: dict[str, str]
) -> dict[str, Any] | None:
    raw = text.strip()
    candidate = raw
    m = re.match(r"^([A-Za-z][\w.\-]*)\s+v?(\d+(?:\.\d+)*)$", raw)  # "CUDA 12.0" → cuda==12.0
    if m:
        candidate = f"{m.group(1).lower()}=={m.group(2)}"
    name = re.split(r"[<>=!~ ]", candidate, maxsplit=1)[0]
    if _OS_WORDS.match(raw):
        os_notes[raw.split()[0].lower()] = raw
        unmapped.append(f"versions: {raw!r} is an operating system; moved to os_specific")
        return None
    if HARDWARE_OR_OS.match(name) or re.search(r"\b(A100|H100|V100|RTX|GTX|sm_\d+)\b", raw):
        hardware.append(raw)
        unmapped.append(f"versions: {raw!r} is hardware; moved to hardware")
        return None
    try:
        req = Requirement(candidate)
    except InvalidRequirement:
        unmapped.append(f"versions: {raw!r} is not a package requirement; dropped")
        return None
    pkg = PACKAGE_ALIASES.get(req.name.lower(), req.name)
    return {"requirement": f"{pkg}{req.specifier}"}


def _common_lists(data: dict[str, Any], unmapped: list[str], shape: _Shape) -> dict[str, Any]:
    workarounds = []
    for n, w in enumerate(shape.objs(data.get("workarounds"), "workarounds")):
        action = shape.text(w.get("action"), f"workarounds.{n}.action").strip()
        how = shape.text(w.get("how"), f"workarounds.{n}.how").strip() or action
        rate = _rate(w.get("success_rate"), f"workarounds.{n}.success_rate", unmapped)
        if not action or rate is None:
            unmapped.append(f"workarounds.{n}: empty action or no success rate; dropped")
            continue
        workarounds.append(
            {
                "action": action,
                "action_zh": w.get("action_zh") or None,
                "how": how,
                "success_rate": rate,
                "condition": w.get("condition") or None,
                "condition_zh": w.get("condition_zh") or None,
                "sources": shape.texts(w.get("sources"), f"workarounds.{n}.sources"),
            }
        )
    dead_ends = []
    for n, d in enumerate(shape.objs(data.get("dead_ends"), "dead_ends")):
        action = shape.text(d.get("action"), f"dead_ends.{n}.action").strip()
        why = shape.text(d.get("why_fails"), f"dead_ends.{n}.why_fails").strip()
        rate = _rate(d.get("fail_rate"), f"dead_ends.{n}.fail_rate", unmapped)
        if not action or not why or rate is None:
            unmapped.append(f"dead_ends.{n}: empty action or reason, or no fail rate; dropped")
            continue
        dead_ends.append(
            {
                "action": action,
                "why_fails": why,
                "why_fails_zh": d.get("why_fails_zh") or None,
                "fail_rate": rate,
                "condition": d.get("condition") or None,
                "sources": shape.texts(d.get("sources"), f"dead_ends.{n}.sources"),
            }
        )
    return {"workarounds": workarounds, "dead_ends": dead_ends}


def _validate(fields: dict[str, Any], origin: str, unmapped: list[str]) -> Imported:
    clean = {k: v for k, v in fields.items() if v not in (None, [], {}, "")}
    try:
        return Imported(Entry.model_validate(clean), unmapped)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise ImportFormatError(f"{origin}: {where}: {err['msg']}") from None


def from_errorcanon(data: dict[str, Any], origin: str, today: dt.date) -> Imported:
    """An errorcanon-style index.json object (rootcause's own JSON is a superset)."""
    shape = _Shape(origin)
    for key in ("id", "signature", "domain", "root_cause"):
        if not data.get(key):
            raise ImportFormatError(f"{origin}: {key}: missing; not an errorcanon-style entry")
        shape.text(data[key], key)
    unmapped: list[str] = []
    hardware: list[str] = shape.texts(data.get("hardware"), "hardware")
    os_notes = {
        str(k): shape.text(v, f"os_specific.{k}") for k, v in shape.obj(data.get("os_specific"), "os_specific").items()
    }
    versions = []
    for n, v in enumerate(shape.objs(data.get("versions"), "versions")):
        item = _version_item(shape.text(v.get("version"), f"versions.{n}.version"), unmapped, hardware, os_notes)
        if item is not None:
            item["status"] = (
                v.get("status") if v.get("status") in ("active", "fixed", "deprecated", "removed") else "active"
            )
            for key in ("introduced", "deprecated", "removed", "fixed"):
                if v.get(key):
                    item[key] = str(v[key])
            if v.get("behavior_change"):
                item["notes"] = str(v["behavior_change"])
            if v.get("bounds_source"):  # our own JSON says where the bounds were read
                item["bounds_source"] = v["bounds_source"]
            versions.append(item)
    domain, _, slug = str(data["id"]).partition("/")
    patterns = data.get("patterns") or _patterns(
        shape.text(data.get("regex"), "regex"), str(data["signature"]), unmapped
    )
    fields = {
        "id": f"{_slug(domain)}/{_slug(slug)}",
        "modified": data.get("modified") or today.isoformat(),
        "signature": data["signature"],
        "signature_zh": data.get("signature_zh"),
        "patterns": patterns,
        "domain": _slug(domain),
        "category": data.get("category") or "runtime_error",
        "subcategory": data.get("subcategory"),
        "error_code": data.get("error_code"),
        "verification": data.get("verification") or "ai_generated",
        "resolvable": _resolvable(data.get("resolvable", "partial")),
        "first_seen": data.get("first_seen"),
        "fix_rate": _rate(data.get("fix_rate"), "fix_rate", unmapped),
        "confidence": _rate(data.get("confidence"), "confidence", unmapped),
        "evidence": {"count": int(data["evidence"]), "basis": "estimate"}
        if _COUNT.fullmatch(str(data.get("evidence", "")))
        else None,
        "versions": versions,
        "generations": data.get("generations") or [],
        "related": data.get("related") or [],
        "hardware": hardware,
        "os_specific": os_notes,
        "root_cause": data["root_cause"],
        "root_cause_zh": data.get("root_cause_zh"),
        "root_cause_type": data.get("root_cause_type") or "generic",
        "official_docs": [data["official_docs"]]
        if isinstance(data.get("official_docs"), str)
        else data.get("official_docs"),
        "examples": data.get("examples") or [{"text": data["signature"], "source": {"kind": "import", "ref": origin}}],
        "sources": data.get("sources") or [{"kind": "import", "ref": origin, "note": "errorcanon-style index.json"}],
        **_common_lists(data, unmapped, shape),
    }
    return _validate(fields, origin, unmapped)


def from_deadends(data: dict[str, Any], origin: str, today: dt.date) -> Imported:
    """A deadends.dev canon JSON object."""
    shape = _Shape(origin)
    error = data.get("error")
    if not isinstance(error, dict) or not error.get("signature") or not data.get("id"):
        raise ImportFormatError(f"{origin}: error.signature: missing; not a deadends.dev canon")
    signature = shape.text(error["signature"], "error.signature")
    unmapped: list[str] = []
    parts = shape.text(data["id"], "id").split("/")
    domain = _slug(parts[0])
    slug = _slug("-".join(parts[1:]))
    verdict = shape.obj(data.get("verdict"), "verdict")
    env = shape.obj(data.get("environment"), "environment")
    versions: list[dict[str, Any]] = []
    os_notes: dict[str, str] = {}
    runtime = shape.obj(env.get("runtime"), "environment.runtime")
    if runtime.get("name"):
        name = PACKAGE_ALIASES.get(str(runtime["name"]).lower(), str(runtime["name"]).lower())
        spec = str(runtime.get("version_range") or "")
        try:
            versions.append({"requirement": str(Requirement(f"{_slug(name)}{spec}"))})
        except InvalidRequirement:
            unmapped.append(f"environment.runtime: {name}{spec!r} is not a requirement; dropped")
    if env.get("python"):
        try:
            versions.append({"requirement": str(Requirement(f"python{env['python']}"))})
        except InvalidRequirement:
            unmapped.append(f"environment.python: {env['python']!r} is not a specifier; dropped")
    if env.get("os"):
        os_notes[str(env["os"])] = "reported environment"
    graph = shape.obj(data.get("transition_graph"), "transition_graph")
    related: list[dict[str, str]] = []
    for key, kind in (
        ("leads_to", "leads-to"),
        ("preceded_by", "caused-by"),
        ("frequently_confused_with", "confused-with"),
    ):
        for item in shape.items(graph.get(key), f"transition_graph.{key}"):
            link = {} if isinstance(item, str) else shape.obj(item, f"transition_graph.{key}")
            target = item if isinstance(item, str) else (link.get("error_id") or link.get("id") or "")
            target_parts = str(target).split("/")
            if len(target_parts) >= 2:
                related.append({"id": f"{_slug(target_parts[0])}/{_slug('-'.join(target_parts[1:]))}", "type": kind})
            else:
                unmapped.append(f"transition_graph.{key}: {target!r} is not an id; dropped")
    meta = shape.obj(data.get("metadata"), "metadata")
    review = str(meta.get("review_status", ""))
    verification = "community" if review in ("human_reviewed", "community", "reviewed") else "ai_generated"
    fields = {
        "id": f"{domain}/{slug}",
        "modified": today.isoformat(),
        "signature": signature,
        "patterns": _patterns(shape.text(error.get("regex"), "error.regex"), signature, unmapped),
        "domain": domain,
        "category": error.get("category") or "runtime_error",
        "verification": verification,
        "resolvable": _resolvable(verdict.get("resolvable", "partial")),
        "first_seen": error.get("first_seen"),
        "last_seen": error.get("last_confirmed"),
        "fix_rate": _rate(verdict.get("fix_success_rate"), "verdict.fix_success_rate", unmapped),
        "confidence": _rate(verdict.get("confidence"), "verdict.confidence", unmapped),
        "evidence": {"count": int(meta["evidence_count"]), "basis": "estimate"}
        if isinstance(meta.get("evidence_count"), int)
        else None,
        "versions": versions,
        "os_specific": os_notes,
        "root_cause": verdict.get("summary") or signature,
        "related": related,
        "examples": [{"text": signature, "source": {"kind": "import", "ref": str(data.get("url") or origin)}}],
        "sources": [{"kind": "import", "ref": str(data.get("url") or origin), "note": "deadends.dev canon"}],
        "extra": {k: v for k, v in meta.items() if isinstance(v, str | int | float | bool)},
        **_common_lists(data, unmapped, shape),
    }
    if not verdict.get("summary"):
        unmapped.append("verdict.summary: missing; the signature stands in as the root cause")
    unmapped.append("Chinese text: none in the source; to be written")
    return _validate(fields, origin, unmapped)


def detect_and_convert(data: Any, origin: str, today: dt.date) -> Imported:
    if not isinstance(data, dict):
        raise ImportFormatError(f"{origin}: expected a JSON object, got {type(data).__name__}")
    if isinstance(data.get("error"), dict):
        return from_deadends(data, origin, today)
    if "signature" in data:
        return from_errorcanon(data, origin, today)
    raise ImportFormatError(f"{origin}: neither an errorcanon-style index.json nor a deadends.dev canon")
