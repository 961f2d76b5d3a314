"""The names that a piece of advice (a workaround's `how`, a dead end's action) tells the user to use.

Pure text reading, no I/O: environment variables (`export X=`, `X=1 cmd`, `os.environ["X"]`, `$X`),
Python APIs (`pkg.mod.func(`, `Class.method(`, `from pkg.mod import name`, `python -m pkg.mod`),
keyword arguments passed to those calls (`name=` at the call's own depth), and console scripts (the
first word of a shell command line). Whether each still exists is for core/lint_fresh.py to say.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Variables set or read in a workaround: export X=, X=val cmd, os.environ["X"], $X, env X
_NAME = r"(?P<name>[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])"
ENV_VAR_USES = [
    re.compile(r"\b(?:export|set)\s+" + _NAME + r"\b"),  # export X=1, set X=1
    re.compile(r"(?:^|[\s;(&|`'\"])" + _NAME + r"=(?=\S)"),  # X=1 cmd
    re.compile(r"os\.(?:environ(?:\.get|\.setdefault)?\(?\[?|getenv\()\s*['\"]" + _NAME + r"['\"]"),
    re.compile(r"\$\{?" + _NAME + r"\b"),  # $X, ${X}
]
_DOTTED = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_CALL = re.compile(r"(?<![\w.])(?P<callee>" + _DOTTED + r")\(")
_FROM_IMPORT = re.compile(r"\bfrom\s+(?P<module>" + _DOTTED + r")\s+import\s+(?P<names>[\w, ]+)")
_IMPORT = re.compile(r"(?:^|[;\n])\s*import\s+(?P<module>" + _DOTTED + r")")
_RUN_MODULE = re.compile(r"\bpython[0-9.]*\s+-m\s+(?P<module>" + _DOTTED + r")")
_KWARG = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)")
_SHELL_WORD = re.compile(r"^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$")
_SHELL_PREFIXES = ("$ ", "!", "sudo ", "env ")
_NOT_SCRIPTS = {
    "python", "python3", "pip", "pip3", "export", "set", "cd", "ls", "echo", "cat", "sudo", "env",
    "from", "import", "def", "class", "return", "with", "for", "if", "else", "try", "except", "raise", "assert",
}  # fmt: skip


def env_vars_in(text: str) -> set[str]:
    """Variables a text sets or reads: export X=, X=val cmd, os.environ["X"], $X."""
    return {m["name"] for rx in ENV_VAR_USES for m in rx.finditer(text)}


@dataclass(frozen=True)
class NamedItem:
    """One thing advice names: kind is env, api, kwarg or script; `call` is the API a kwarg is passed to."""

    kind: str
    name: str
    call: str | None = None


def _call_arguments(text: str, open_at: int) -> str:
    """The text between a call's parentheses (to its closing one, or the text's end), nested calls blanked."""
    depth = 0
    out: list[str] = []
    for ch in text[open_at:]:
        if ch in "([{":
            depth += 1
            if depth > 1:
                out.append(" ")
                continue
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                break
        if depth == 1 and ch not in "([{":
            out.append(ch)
    return "".join(out)


def _strip_strings(text: str) -> str:
    """String literals blanked (their contents are values, not names)."""
    return re.sub(r"\"[^\"\n]*\"|'[^'\n]*'", '""', text)


def api_items(text: str) -> list[NamedItem]:
    """Dotted call targets, imports and `python -m` modules, with the keyword names each call passes."""
    out: list[NamedItem] = []
    code = _strip_strings(text)
    for m in _CALL.finditer(code):
        callee = m["callee"]
        if "." not in callee and not callee[:1].isupper():
            continue  # print(, len(, a local helper: nothing a package defines by that name alone
        out.append(NamedItem("api", callee))
        args = _call_arguments(code, m.end() - 1)
        out += [NamedItem("kwarg", k["name"], callee) for k in _KWARG.finditer(args)]
    for m in _FROM_IMPORT.finditer(code):
        out.append(NamedItem("api", m["module"]))
        names = [n.strip().split(" ")[0] for n in m["names"].split(",") if n.strip()]
        out += [NamedItem("api", f"{m['module']}.{n}") for n in names if n]
    out += [NamedItem("api", m["module"]) for rx in (_IMPORT, _RUN_MODULE) for m in rx.finditer(text)]
    return out


def script_items(text: str) -> list[NamedItem]:
    """The first word of each shell command line (`huggingface-cli download …`, `torchrun …`)."""
    out: list[NamedItem] = []
    for line in re.split(r"[\n;|]|&&", text):
        line = line.strip().strip("`").strip()
        for prefix in _SHELL_PREFIXES:
            line = line.removeprefix(prefix)
        words = line.split()
        while words and re.fullmatch(r"[A-Z][A-Z0-9_]*=\S*", words[0]):
            words = words[1:]  # X=1 cmd
        if len(words) < 2 or words[1][:1] in ("=", "+", "*", "/", ":", "%"):
            continue  # `sample = (...)`: Python, not a command
        if _SHELL_WORD.match(words[0]) and words[0] not in _NOT_SCRIPTS:
            out.append(NamedItem("script", words[0]))
    return out


def named_items(text: str) -> list[NamedItem]:
    """Every env var, API, keyword argument and console script a piece of advice names (in order, once each)."""
    found = [NamedItem("env", n) for n in sorted(env_vars_in(text))] + api_items(text) + script_items(text)
    return list(dict.fromkeys(found))
