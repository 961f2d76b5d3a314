"""Message templates from Python source text: every raise, warning and log call with a readable message.

Pure: takes a module's source text and gives back templates; the adapters read the archives.

A message is split into parts, each a literal text or a placeholder (an f-string field, a `%s`,
a `{}`). Its RE2 pattern keeps a *required head*: the parts up to the word where MIN_HEAD literal
characters are reached; every later placeholder (with the literal after it) is nested optional, so
a paste cut anywhere past the head still matches, and the head alone is distinctive enough not to
fire on everything. The tail only adds captures and a longer match.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from rootcause.core.atlas.model import TemplateKind

MIN_LITERAL = 12  # fewer literal characters than this: not distinctive, skipped
MIN_HEAD = 24  # the required head: literal characters up to the word where this many are reached
MIN_WORDS = 2  # at least this many distinct words of >= 3 letters
CAPTURE = ".{0,200}"  # one placeholder: bounded, so a pattern's cost stays linear and small
MAX_MESSAGE = 800  # a longer first line is cut here (escaped, it still fits MAX_PATTERN)
MAX_PATTERN = 1800  # a pattern stays under the canon's 2,000-character cap: its optional tail is cut first
LOG_LEVELS = {"error", "warning", "warn", "critical", "exception", "fatal", "warning_once", "error_once"}
LOG_LEVELS |= {"warning_advice"}  # transformers' and diffusers' `logger.warning` that an env var can silence
MAX_BOUND = 4  # a message held in a name: at most this many assignments of it are read
LOGGER_HINTS = ("log",)  # a receiver whose name holds this is a logger (`logger`, `self._log`, `logging`)
_PRINTF = re.compile(
    r"%(?:\((?P<key>[^)]{1,40})\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?"
    r"(?:hh|ll|[hlLqjzt])?(?P<conv>[diouxXeEfFgGcrsap%])"
)
_BRACE = re.compile(r"\{\{|\}\}|\{(?P<field>[^{}]{0,80})\}")
_WORD = re.compile(r"[A-Za-z]{3,}")
_RE2_SPECIAL = re.compile(r"([\\.^$|?*+()\[\]{}])")


@dataclass(frozen=True)
class Part:
    """A literal run of text (`literal` True) or a placeholder shown as written (`{name}`, `%s`)."""

    text: str
    literal: bool


@dataclass(frozen=True)
class Extracted:
    message: str
    pattern: str
    literal: str
    exception: str
    kind: TemplateKind
    function: str
    line: int
    module: str = ""  # filled by the caller that knows the file


def _lit(text: str) -> list[Part]:
    return [Part(text, True)] if text else []


def printf_parts(fmt: str) -> list[Part]:
    parts: list[Part] = []
    pos = 0
    for m in _PRINTF.finditer(fmt):
        parts += _lit(fmt[pos : m.start()])
        parts += _lit("%") if m.group("conv") == "%" else [Part(m.group(0), False)]
        pos = m.end()
    return parts + _lit(fmt[pos:])


def _format_parts(fmt: str) -> list[Part]:
    parts: list[Part] = []
    pos = 0
    for m in _BRACE.finditer(fmt):
        parts += _lit(fmt[pos : m.start()])
        token = m.group(0)
        parts += _lit(token[0]) if token in ("{{", "}}") else [Part(token, False)]
        pos = m.end()
    return parts + _lit(fmt[pos:])


def message_parts(
    node: ast.expr, *, printf: bool = False, names: Mapping[str, ast.expr] | None = None
) -> list[Part] | None:
    """The parts of a message expression, or None when it is not a literal, f-string, `%`, `.format()`.

    `printf` says the string is a `%`-format even without a `%` operator (a logging call with args).
    `names` gives the one expression a name stands for (`msg = f"..."; raise ValueError(msg)`, a module's
    `WARNING = "..."` formatted later): a name is read through it, once (not through further names).
    """
    if isinstance(node, ast.Name) and names and node.id in names:
        return message_parts(names[node.id], printf=printf)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return printf_parts(node.value) if printf else _lit(node.value)
    if isinstance(node, ast.JoinedStr):
        parts: list[Part] = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts += _lit(value.value)
            elif isinstance(value, ast.FormattedValue):
                parts.append(Part("{" + ast.unparse(value.value)[:60] + "}", False))
        return parts
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        fmt = _string(node.left, names)
        return printf_parts(fmt) if fmt is not None else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = message_parts(node.left, names=names) or [Part("{" + ast.unparse(node.left)[:60] + "}", False)]
        right = message_parts(node.right, names=names) or [Part("{" + ast.unparse(node.right)[:60] + "}", False)]
        if not any(p.literal for p in left + right):
            return None
        return left + right
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        fmt = _string(node.func.value, names)
        return _format_parts(fmt) if fmt is not None else None
    return None


def _string(node: ast.expr, names: Mapping[str, ast.expr] | None) -> str | None:
    """A string literal, or a name bound to one."""
    if isinstance(node, ast.Name) and names and node.id in names:
        node = names[node.id]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def merge_parts(parts: list[Part]) -> list[Part]:
    """The message's first non-blank line: leading placeholders dropped, neighbours of a kind joined."""
    out: list[Part] = []
    for part in parts:
        if not part.literal:
            if out and not out[-1].literal:
                continue  # `{a}{b}`: one capture covers both
            if out:
                out.append(part)
            continue
        text = part.text if out else part.text.lstrip()
        stop = False
        while "\n" in text:
            line, text = text.split("\n", 1)
            _append(out, line)
            if out and any(_WORD.search(p.text) for p in out if p.literal):
                stop = True
                break
            out = []  # a line of no words (a banner of `*****`): the message is on the next line
            text = text.lstrip()
        if stop:
            break
        _append(out, text)
    if out and out[-1].literal:  # a line's trailing blanks are invisible, and a paste or a log drops them
        out[-1] = Part(out[-1].text.rstrip(), True)
        if not out[-1].text:
            out.pop()
    total = 0
    for i, part in enumerate(out):
        total += len(part.text)
        if total > MAX_MESSAGE:
            keep = len(part.text) - (total - MAX_MESSAGE)
            out = out[:i] + ([Part(part.text[:keep], True)] if part.literal and keep > 0 else [])
            break
    return out


def _append(out: list[Part], text: str) -> None:
    if text:
        if out and out[-1].literal:
            out[-1] = Part(out[-1].text + text, True)
        else:
            out.append(Part(text, True))


def escape(text: str) -> str:
    """RE2-escape literal text (only the metacharacters; RE2 rejects some needless escapes)."""
    return _RE2_SPECIAL.sub(r"\\\1", text).replace("\t", r"\t").replace("\r", r"\r")


def build_pattern(parts: list[Part]) -> tuple[str, str] | None:
    """(pattern, prefilter literal) of merged parts, or None when they are not distinctive.

    The prefilter literal is the longest literal run of the required head, so every line the pattern
    matches contains it.
    """
    literal_text = "".join(p.text for p in parts if p.literal)
    if len(literal_text.strip()) < MIN_LITERAL or len(set(_WORD.findall(literal_text.lower()))) < MIN_WORDS:
        return None
    head: list[str] = []
    seen = 0
    longest = ""
    captures = 0
    index = 0
    rest = ""  # the part of the literal that crosses MIN_HEAD, after the word where it does
    while index < len(parts) and seen < MIN_HEAD:
        part = parts[index]
        index += 1
        if part.literal:
            text = part.text
            lead = len(text) - len(text.lstrip())
            cut = text.find(" ", lead + MIN_HEAD - seen)
            while cut > 0 and seen + len(text[:cut].strip()) < MIN_HEAD:  # spaces before the cut do not count
                cut = text.find(" ", cut + 1)
            if cut > 0 and text[cut:].strip():
                text, rest = text[:cut], text[cut:]
            head.append(escape(text))
            seen += len(text.strip())
            longest = max(longest, text, key=len)
        else:
            head.append(f"(?P<p{captures}>{CAPTURE}?)")
            captures += 1
    if head and head[-1].startswith("(?P<"):  # the message ends in a placeholder within the head
        head[-1] = f"(?:{head[-1].removesuffix('?)')}))?"
    fragments: list[str] = []  # the tail: each placeholder with the literal after it
    tail = ([Part(rest, True)] if rest else []) + parts[index:]
    size = sum(len(h) for h in head)
    for part in tail:
        piece = escape(part.text) if part.literal else f"(?P<p{captures}>{CAPTURE}?)"
        size += len(piece) + (0 if part.literal else 6)  # 6: the `(?:` `)?` around each fragment
        if size > MAX_PATTERN:
            if part.literal:
                fragments.pop()  # the tail is optional: what does not fit is left out
            break
        if part.literal and fragments:
            fragments[-1] += piece
        else:
            fragments.append(piece)
            captures += 0 if part.literal else 1
    if fragments and fragments[-1].endswith("?)"):
        fragments[-1] = fragments[-1].removesuffix("?)") + ")"  # a last placeholder takes what is there
    optional = ""
    for fragment in reversed(fragments):
        optional = f"(?:{fragment}{optional})?"
    return "".join(head) + optional, longest.strip()


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call):
        return _name(node.func)
    return ""


def _shown(parts: list[Part]) -> str:
    return "".join(p.text for p in parts)[:MAX_MESSAGE]


def _own_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a scope's body, not those of the functions and classes defined in it."""
    todo: list[ast.AST] = list(body)
    while todo:
        node = todo.pop()
        yield node
        todo += [
            child
            for child in ast.iter_child_nodes(node)
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda)
        ]


def bound_messages(body: list[ast.stmt], *, strings_only: bool = False) -> dict[str, list[ast.expr]]:
    """The names a scope binds, each with the messages it holds: every binding of the name is a plain
    `name = <message>` that does not read the name itself (`name += ...` is allowed: the message still starts
    with what was bound), at most MAX_BOUND of them; any other name the scope binds (a loop variable, an
    unpacking, `with ... as`) holds none. `strings_only`: only string literals count (a module's constants)."""
    values: dict[str, list[ast.expr]] = {}
    spoiled: set[str] = set()
    read: set[int] = set()  # the target nodes of the bindings read above
    for node in _own_nodes(body):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name, value = node.targets[0].id, node.value
            read.add(id(node.targets[0]))
            reads_itself = any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(value))
            literal = isinstance(value, ast.Constant) and isinstance(value.value, str)
            if reads_itself or (strings_only and not literal) or message_parts(value) is None:
                spoiled.add(name)
            else:
                values.setdefault(name, []).append(value)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            read.add(id(node.target))
            if not isinstance(node.op, ast.Add):
                spoiled.add(node.target.id)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            spoiled.update(node.names)
    for node in _own_nodes(body):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del) and id(node) not in read:
            spoiled.add(node.id)
    bound: dict[str, list[ast.expr]] = {name: [] for name in spoiled}
    bound |= {name: exprs for name, exprs in values.items() if name not in spoiled and len(exprs) <= MAX_BOUND}
    return bound | {name: [] for name, exprs in values.items() if len(exprs) > MAX_BOUND}


def _message_names(node: ast.expr) -> list[str]:
    """The names a message expression is read through (see `message_parts`)."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _message_names(node.left) if isinstance(node.left, ast.Name) else []
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _message_names(node.left) + _message_names(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _message_names(node.func.value) if isinstance(node.func.value, ast.Name) else []
    return []


class _Visitor(ast.NodeVisitor):
    def __init__(self) -> None:
        self.scope: list[str] = []
        self.found: list[Extracted] = []
        self.bound: list[dict[str, list[ast.expr]]] = []  # per enclosing scope, innermost last

    def visit_Module(self, node: ast.Module) -> None:
        self.bound.append(bound_messages(node.body, strings_only=True))
        self.generic_visit(node)
        self.bound.pop()

    def _scoped(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.scope.append(node.name)
        if isinstance(node, ast.ClassDef):
            own: dict[str, list[ast.expr]] = {}  # a class body's names are not seen by its methods' code
        else:
            own = bound_messages(node.body)
            arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            arguments += [a for a in (node.args.vararg, node.args.kwarg) if a is not None]
            for arg in arguments:  # a parameter hides a module constant of its name
                own.setdefault(arg.arg, [])
        self.bound.append(own)
        self.generic_visit(node)
        self.bound.pop()
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

    def _bindings(self, node: ast.expr) -> list[dict[str, ast.expr]]:
        """One name -> expression map per reading of the names the message is read through (a name bound in
        two branches gives two readings), from the innermost scope that binds each name."""
        readings: list[dict[str, ast.expr]] = [{}]
        for name in dict.fromkeys(_message_names(node)):
            for scope in reversed(self.bound):
                if name in scope:
                    readings = [r | {name: e} for r in readings for e in scope[name]][:MAX_BOUND] or readings
                    break
        return readings

    def _add(self, node: ast.expr, kind: TemplateKind, exception: str, line: int, *, printf: bool = False) -> None:
        seen: set[str] = set()
        for names in self._bindings(node):
            raw = message_parts(node, printf=printf, names=names)
            if raw is None:
                continue
            parts = merge_parts(raw)
            built = build_pattern(parts) if parts else None
            if built is None:
                continue
            pattern, literal = built
            if pattern in seen:
                continue
            seen.add(pattern)
            function = ".".join(self.scope)
            self.found.append(Extracted(_shown(parts), pattern, literal, exception, kind, function, line))

    def visit_Raise(self, node: ast.Raise) -> None:
        exc = node.exc
        if isinstance(exc, ast.Call) and exc.args:
            self._add(exc.args[0], TemplateKind.RAISE, _name(exc.func), node.lineno)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if node.args:
            if _name(func) == "warn" and (
                isinstance(func, ast.Name) or (isinstance(func, ast.Attribute) and _name(func.value) == "warnings")
            ):
                category = next((kw.value for kw in node.keywords if kw.arg == "category"), None)
                if category is None and len(node.args) > 1:
                    category = node.args[1]
                exception = _name(category) if category is not None else "UserWarning"
                self._add(node.args[0], TemplateKind.WARNING, exception or "UserWarning", node.lineno)
            elif (
                isinstance(func, ast.Attribute)
                and func.attr in LOG_LEVELS
                and any(h in ast.unparse(func.value).lower() for h in LOGGER_HINTS)
            ):
                level = func.attr.removesuffix("_once").removesuffix("_advice")
                level = level.replace("warn", "warning").replace("warninging", "warning")
                self._add(node.args[0], TemplateKind.LOG, level, node.lineno, printf=len(node.args) > 1)
        self.generic_visit(node)


def extract_python(source: str) -> list[Extracted]:
    """Every distinctive raise/warning/log template of one module's source (empty if it does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    visitor = _Visitor()
    try:
        visitor.visit(tree)
    except RecursionError:
        return visitor.found
    return visitor.found
