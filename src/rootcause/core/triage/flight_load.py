"""Reading a Flight Recorder dump, which is hostile input: bounded work and memory whatever its bytes.

A pickle is read by a pure-Python Unpickler (its memo is a dict, not the C unpickler's array that a
9-byte `LONG_BINPUT 0x0fffffff` grows to 2 GB) that refuses every global, so only plain dicts, lists,
tuples, strings, numbers, booleans and None can be built; it stops after `MAX_OPS` opcodes (every object
it builds costs at least one), after `MAX_MEMO` memo entries, and refuses a dict key or set member that
is not a plain scalar (hashing a tuple of shared references costs the size of the tree it unfolds to,
which grows exponentially with the pickle). Values are shown with `render`, which stops after a given
number of characters: shared references are never unfolded further than what is shown. Nothing here
recurses, so a million-deep list is no error of its own.
"""

from __future__ import annotations

import json
import pickle
import struct
from typing import Any, ClassVar

from rootcause.errors import UsageError

MAX_DUMP_BYTES = 64 << 20
MAX_OPS = 2_000_000  # a 2,000-entry dump (the usual ring buffer) is about 160,000
MAX_MEMO = 1_000_000
_SCALARS = (str, int, float, bool, bytes, type(None))


class DumpError(UsageError):
    """A file that is not a readable Flight Recorder dump (one line: what is wrong)."""


def looks_like_dump(head: bytes) -> bool:
    """The first bytes of a file: a pickle (protocol 2+) or a JSON object that names Flight Recorder keys."""
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return True
    text = head.lstrip()[:4096]
    keys = (b'"pg_config"', b'"version"', b'"collective_seq_id"', b'"pg_status"')
    return text[:1] == b"{" and b'"entries"' in text and any(k in text for k in keys)


class _Reader:
    """The file-like view of bytes the Unpickler reads from (read, readinto and readline)."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._pos = 0

    def read(self, n: int = -1) -> bytes:
        if n < 0:
            out = self._data[self._pos :]
            self._pos = len(self._data)
            return out
        pos = self._pos
        out = self._data[pos : pos + n]
        self._pos = pos + len(out)
        return out

    def readinto(self, buf: bytearray | memoryview) -> int:
        out = self.read(len(buf))
        buf[: len(out)] = out
        return len(out)

    def readline(self) -> bytes:
        nl = self._data.find(b"\n", self._pos)
        return self.read(-1 if nl < 0 else nl + 1 - self._pos)


class _Memo(dict[int, Any]):
    def __setitem__(self, key: int, value: Any) -> None:
        if len(self) >= MAX_MEMO and key not in self:
            raise DumpError(f"more than {MAX_MEMO} pickle memo entries: not a Flight Recorder dump")
        super().__setitem__(key, value)


def _plain_keys(items: list[Any], what: str) -> None:
    for key in items:
        if not isinstance(key, _SCALARS):
            raise DumpError(f"a {type(key).__name__} as a {what}: not a Flight Recorder dump")


class _NoGlobals(pickle._Unpickler):
    """Plain containers and scalars only: any global (a class, a function such as os.system) is refused."""

    dispatch: ClassVar[dict[int, Any]] = dict(pickle._Unpickler.dispatch)

    def __init__(self, reader: _Reader, framed: bool) -> None:
        super().__init__(reader)
        self._framed = framed

    def find_class(self, module: str, name: str) -> Any:
        raise DumpError(f"refused to load a pickle global ({module}.{name}): not a plain Flight Recorder dump")

    def persistent_load(self, pid: Any) -> Any:
        raise DumpError("refused a pickle persistent id: not a plain Flight Recorder dump")

    def load(self) -> Any:
        """`pickle._Unpickler.load`, counting the opcodes it runs."""
        self.memo = _Memo()
        self._unframer = pickle._Unframer(self._file_read, self._file_readline)  # type: ignore[attr-defined]
        if self._framed:
            self.read = self._unframer.read
            self.readinto = self._unframer.readinto
            self.readline = self._unframer.readline
        else:  # protocols 0-3 have no frames: read the bytes directly (the unframer is a call per opcode)
            self.read, self.readline = self._file_read, self._file_readline  # type: ignore[attr-defined]
        self.metastack: list[Any] = []
        self.stack: list[Any] = []
        self.append = self.stack.append
        self.proto = 0
        read, dispatch = self.read, self.dispatch
        try:
            for _ in range(MAX_OPS):
                key = read(1)
                if not key:
                    raise EOFError
                dispatch[key[0]](self)
        except pickle._Stop as stop:  # type: ignore[attr-defined]
            return stop.value
        raise DumpError(f"more than {MAX_OPS} pickle opcodes: too large to be a Flight Recorder dump")

    def _setitem(self) -> None:
        _plain_keys([self.stack[-2]], "dict key")
        pickle._Unpickler.load_setitem(self)  # type: ignore[attr-defined]

    def _setitems(self) -> None:
        _plain_keys(self.stack[0::2], "dict key")
        pickle._Unpickler.load_setitems(self)  # type: ignore[attr-defined]

    def _additems(self) -> None:
        _plain_keys(self.stack, "set member")
        pickle._Unpickler.load_additems(self)  # type: ignore[attr-defined]

    def _frozenset(self) -> None:
        _plain_keys(self.stack, "set member")
        pickle._Unpickler.load_frozenset(self)  # type: ignore[attr-defined]

    def _dict(self) -> None:
        _plain_keys(self.stack[0::2], "dict key")
        pickle._Unpickler.load_dict(self)  # type: ignore[attr-defined]

    dispatch[pickle.SETITEM[0]] = _setitem
    dispatch[pickle.SETITEMS[0]] = _setitems
    dispatch[pickle.ADDITEMS[0]] = _additems
    dispatch[pickle.FROZENSET[0]] = _frozenset
    dispatch[pickle.DICT[0]] = _dict


def load_object(data: bytes, name: str) -> Any:
    """Pickle or JSON into Python objects, or DumpError (one line naming the file)."""
    if len(data) > MAX_DUMP_BYTES:
        raise DumpError(f"{name}: {len(data)} bytes, more than the {MAX_DUMP_BYTES} a Flight Recorder dump may have")
    try:
        if data[:1] != b"\x80":
            return json.loads(data.decode("utf-8"))
        return _NoGlobals(_Reader(data), framed=data[1:2] not in (b"\x00", b"\x01", b"\x02", b"\x03")).load()
    except DumpError as exc:
        raise DumpError(f"{name}: {exc}") from None
    except RecursionError:
        raise DumpError(f"{name}: nested too deeply to be a Flight Recorder dump") from None
    except (
        pickle.UnpicklingError,
        struct.error,  # a truncated operand of the pure-Python unpickler
        ValueError,
        EOFError,
        TypeError,
        LookupError,
        AttributeError,
    ) as exc:
        raise DumpError(f"{name}: not a Flight Recorder dump ({type(exc).__name__}: {str(exc)[:200]})") from None
    except (MemoryError, ArithmeticError):
        raise DumpError(f"{name}: too large to read") from None


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value[:400])
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int | float):
        return str(value) if not isinstance(value, int) or value.bit_length() < 256 else "<big int>"
    return json.dumps(str(type(value).__name__))


def _shallow(value: Any) -> bool:
    """A list of at most 32 scalars or lists of at most 32 scalars (strings of at most 400 characters)."""
    if type(value) is not list or len(value) > 32:
        return False
    for item in value:
        inner = item if type(item) is list else [item]
        if len(inner) > 32:
            return False
        for v in inner:
            if not (v is None or type(v) in (int, float, bool) or (type(v) is str and len(v) <= 400)):
                return False
            if type(v) is int and v.bit_length() > 64:
                return False
    return True


class _Lit(str):
    """Text the renderer writes as it is (a bracket, a separator, a rendered key)."""


def render(value: Any, limit: int = 200) -> str:
    """JSON-like text of `value`, cut at `limit` characters (with "…"): the work is bounded by `limit`, not by
    the size, depth or sharing of `value` (a shared reference is shown again only as far as the limit goes)."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[: limit - 1] + "…"
    if _shallow(value):  # the usual sizes and dtypes ([[1024]], ["Float"]): C-speed, and small by construction
        text = json.dumps(value)
        return text if len(text) <= limit else text[: limit - 1] + "…"
    out: list[str] = []
    size = 0
    todo: list[Any] = [value]
    while todo and size <= limit:
        item = todo.pop()
        if type(item) is _Lit:
            text = str(item)
        elif isinstance(item, dict | list | tuple | set | frozenset):
            is_dict = isinstance(item, dict)
            parts: list[Any] = [_Lit("{" if is_dict else "[")]
            for n, v in enumerate(item.items() if isinstance(item, dict) else item):
                if n > limit:  # every part shows at least one character
                    break
                if n:
                    parts.append(_Lit(", "))
                parts += [_Lit(_scalar(v[0]) + ": "), v[1]] if is_dict else [v]
            parts.append(_Lit("}" if is_dict else "]"))
            todo += reversed(parts)
            continue
        else:
            text = _scalar(item)
        out.append(text)
        size += len(text)
    text = "".join(out)
    return text if size <= limit and not todo else text[: limit - 1] + "…"
