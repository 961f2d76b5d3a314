"""Words for a located line: a known message with no reviewed entry (shared by every view)."""

from __future__ import annotations

from rootcause.core.atlas.located import Located

LOCATED_TITLE = "Known message, no reviewed entry"
LOCATED_TITLE_ZH = "已知消息,尚无审核条目"
LOCATED_NOTE = "found in the message atlas, the stack's released sources; not a diagnosis"
FAMILY_WORDS = {
    "version-skew": "version skew",
    "abi": "binary (ABI) mismatch",
    "native-crash": "native crash",
    "configuration": "configuration",
}
KIND_WORDS = {"raise": "raised", "warning": "warned", "log": "logged", "native": "compiled-library string"}


def located_where(item: Located) -> str:
    """`transformers 4.20.0–4.40.2: transformers/modeling_utils.py:3600 in from_pretrained (raised ImportError)`."""
    place = item.module + (f":{item.module_line}" if item.module_line else "")
    if item.function:
        place += f" in {item.function}"
    what = KIND_WORDS.get(item.kind, item.kind) + (f" {item.exception}" if item.exception else "")
    releases = f"{item.first}–{item.last}" if item.first != item.last else item.first
    return f"{item.package} {releases}: {place} ({what})"


def installed_words(item: Located) -> str:
    if item.installed is None:
        return ""
    if item.installed_has_it is None:
        return f"your {item.package} {item.installed}: not known whether it prints this wording"
    verb = "prints" if item.installed_has_it else "does not print"
    return f"your {item.package} {item.installed} {verb} this wording"


def located_facts(item: Located) -> list[str]:
    """The facts of a located line, one per line (the line itself comes first)."""
    more = f" (+{item.count - 1} more lines)" if item.count > 1 else ""
    out = [f"seen at {item.source}:{item.line}{more}: {item.text}", located_where(item)]
    if item.source_url:
        out.append(f"source: {item.source_url}")
    installed = installed_words(item)
    if installed:
        out.append(installed)
    if item.also:
        out.append(f"{item.also} further released line(s) print the same wording")
    if item.family:
        out.append(f"first checks ({FAMILY_WORDS.get(item.family, item.family)}):")
        out += [f"  - {c}" for c in item.checks]
    return out
