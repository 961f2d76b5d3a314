"""Diagnosis of a request body, streamed: bytes leave the socket, pass the size cap and go
to spooled temporary files chunk by chunk (as `rootcause diagnose` spools stdin; in memory
while small, on disk past 512 KiB), so memory never holds a whole large log and no worker
thread waits on a slow client; then the scanner reads them in a worker thread. Multi-rank
inputs get the CLI's triage, from named copies removed when the request ends.

A body is text (``text/plain`` or any other type), JSON (``{"text": ..., "env": ...}``),
a form (``application/x-www-form-urlencoded``) or a multipart upload with a ``text``
field, ``file`` parts (one per rank is fine; ``.gz`` is unpacked) and an ``env`` field.
"""

from __future__ import annotations

import json
import tempfile
import zlib
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import parse_qs

import anyio
import anyio.to_thread
from fastapi import Request
from python_multipart.exceptions import ParseError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import ClientDisconnect

from rootcause.adapters.inputs import rank_from_path
from rootcause.core.diagnosis import Diagnosis, SourceInput, diagnose_sources, holds_several_ranks
from rootcause.core.matching.index import CompiledIndex
from rootcause.core.versions import Environment, parse_env_spec
from rootcause.errors import InputTooLargeError, UsageError

SMALL_FIELD = 64 << 10  # env and other small form fields
CHUNK = 1 << 20
IN_MEMORY = 512 << 10  # a spooled input moves to disk past this size
FILE_FIELDS = frozenset({"file", "files", "log", "logs", "upload"})
GZIP_RATIO = 8  # unpacked .gz bytes allowed per byte of the cap, all .gz parts of a request together
MAX_PARTS = 512  # multipart parts per request (one per rank is fine; a fleet goes to `rootcause fleet`)
PARSED_BODY_MAX = 4 << 20  # JSON and form bodies are parsed whole: capped before parsing (text streams)
NAME_MAX = 200  # characters of an uploaded file's name that are kept


@dataclass(frozen=True)
class Msg:
    kind: str  # env / start / data / end
    name: str = ""
    data: bytes = b""
    env: Environment | None = None


def _too_large(cap: int) -> InputTooLargeError:
    return InputTooLargeError(f"the request body is larger than the limit of {cap} bytes (ROOTCAUSE_MAX_UPLOAD_BYTES)")


async def limited_body(request: Request, cap: int) -> AsyncIterator[bytes]:
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > cap:
        raise _too_large(cap)
    total = 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > cap:
            raise _too_large(cap)
        if chunk:
            yield chunk


async def _read_all(body: AsyncIterator[bytes]) -> bytes:
    return b"".join([chunk async for chunk in body])


def _env_value(value: Any) -> Environment:
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        return parse_env_spec(value)
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        return parse_env_spec(",".join(f"{k}=={v}" for k, v in value.items()))
    raise UsageError('env: expected "name==version,..." or an object of versions')


def _text_msgs(name: str, text: str) -> list[Msg]:
    data = text.encode("utf-8", "replace")
    return [Msg("start", name), Msg("data", data=data), Msg("end")] if data.strip() else []


def upload_name(filename: str) -> str:
    """The last part of an uploaded file's name, safe as a file name: never empty, '.', '..',
    a path, a NUL or longer than NAME_MAX (the triage writes named copies of the uploads)."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1].replace("\0", "").strip()
    if base in ("", ".", ".."):
        return "upload.log"
    return base[-NAME_MAX:]


class _UnpackBudget:
    """The unpacked bytes that every .gz part of one request may produce, together."""

    def __init__(self, cap: int) -> None:
        self.cap = cap * GZIP_RATIO
        self.left = self.cap

    def spend(self, n: int) -> None:
        self.left -= n
        if self.left < 0:
            raise InputTooLargeError(
                f"the .gz uploads unpack to more than {self.cap} bytes ({GZIP_RATIO}x ROOTCAUSE_MAX_UPLOAD_BYTES)"
            )


class _Gunzip:
    def __init__(self, budget: _UnpackBudget) -> None:
        self._z = zlib.decompressobj(wbits=47)  # gzip or zlib header
        self._budget = budget

    def feed(self, data: bytes) -> bytes:
        try:
            out = self._z.decompress(data, self._budget.left + 1)
        except zlib.error as exc:
            raise UsageError(f"cannot unpack the .gz upload: {exc}") from None
        self._budget.spend(len(out))  # past the budget (output cut at budget + 1): refused
        return out


class _Multipart:
    """Turns multipart bytes into messages, part by part, without buffering files."""

    def __init__(self, boundary: bytes, cap: int) -> None:
        self.out: list[Msg] = []
        self._unpacked = _UnpackBudget(cap)
        self._parts = 0
        self._headers: dict[str, bytes] = {}  # raw: names may be UTF-8, which latin-1 parsing keeps
        self._field = b""
        self._value = b""
        self._name = ""
        self._filename: str | None = None
        self._small = bytearray()
        self._started = False
        self._gunzip: _Gunzip | None = None
        self.parser = MultipartParser(
            boundary,
            {
                "on_part_begin": self._part_begin,
                "on_header_field": self._header_field,
                "on_header_value": self._header_value,
                "on_header_end": self._header_end,
                "on_headers_finished": self._headers_finished,
                "on_part_data": self._part_data,
                "on_part_end": self._part_end,
            },
        )

    def _part_begin(self) -> None:
        self._parts += 1
        if self._parts > MAX_PARTS:
            raise UsageError(f"a multipart body may hold at most {MAX_PARTS} parts")
        self._headers, self._small, self._started, self._gunzip = {}, bytearray(), False, None

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self._field += data[start:end]

    def _header_value(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def _header_end(self) -> None:
        self._headers[self._field.decode("latin-1").lower()] = self._value
        self._field, self._value = b"", b""

    def _headers_finished(self) -> None:
        _, options = parse_options_header(self._headers.get("content-disposition", b""))
        self._name = options.get(b"name", b"").decode("utf-8", "replace")
        filename = options.get(b"filename")
        self._filename = None if filename is None else filename.decode("utf-8", "replace")
        if self._streams and (self._filename or "").endswith(".gz"):
            self._gunzip = _Gunzip(self._unpacked)

    @property
    def _streams(self) -> bool:
        return self._name == "text" or (self._name in FILE_FIELDS and bool(self._filename))

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        chunk = data[start:end]
        if not self._streams:
            if len(self._small) + len(chunk) > SMALL_FIELD:
                raise UsageError(f"form field {self._name!r} is too long")
            self._small += chunk
            return
        if self._gunzip is not None:
            chunk = self._gunzip.feed(chunk)
        if not chunk:
            return
        if not self._started:
            name = "<text>" if self._name == "text" else upload_name(self._filename or "")
            self.out.append(Msg("start", name))
            self._started = True
        self.out.append(Msg("data", data=chunk))

    def _part_end(self) -> None:
        if self._started:
            self.out.append(Msg("end"))
        elif self._name == "env":
            self.out.append(Msg("env", env=_env_value(self._small.decode("utf-8", "replace").strip())))

    def feed(self, chunk: bytes) -> list[Msg]:
        try:
            self.parser.write(chunk)
        except ParseError as exc:
            raise UsageError(f"malformed multipart body: {exc}") from None
        out, self.out = self.out, []
        return out

    def finish(self) -> list[Msg]:
        try:
            self.parser.finalize()
        except ParseError as exc:
            raise UsageError(f"malformed multipart body: {exc}") from None
        out, self.out = self.out, []
        return out


def _json_fields(raw: bytes) -> tuple[str, Any]:
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, bad UTF-8, a 5,000-digit number, deep nesting
        reason = "nested too deep" if isinstance(exc, RecursionError) else str(exc)[:200]
        raise UsageError(f"the body is not valid JSON: {reason}") from None
    if not isinstance(data, dict) or not isinstance(data.get("text"), str):
        raise UsageError('expected a JSON object {"text": "...", "env": {...}}')
    return data["text"], data.get("env")


def _form_fields(raw: bytes) -> tuple[str, Any]:
    try:
        form = parse_qs(raw.decode("utf-8", "replace"), max_num_fields=64)
    except ValueError:
        raise UsageError("a form body may hold at most 64 fields") from None
    return (form.get("text") or form.get("q") or [""])[0], (form.get("env") or [""])[0]


async def body_messages(request: Request, cap: int) -> AsyncIterator[Msg]:
    """The request body as a stream of messages: env first, then each input's bytes."""
    mime_b, options = parse_options_header(request.headers.get("content-type", ""))
    mime = mime_b.decode("latin-1").lower()
    query_env = request.query_params.get("env")
    if query_env:
        yield Msg("env", env=_env_value(query_env))
    if mime == "multipart/form-data":
        body = limited_body(request, cap)
        boundary = options.get(b"boundary")
        if not boundary:
            raise UsageError("multipart body without a boundary")
        parser = _Multipart(boundary, cap)
        async for chunk in body:  # parsed and unpacked (.gz) in a worker thread, never on the event loop
            for msg in await anyio.to_thread.run_sync(parser.feed, chunk):
                yield msg
        for msg in parser.finish():
            yield msg
    elif mime in ("application/json", "application/x-www-form-urlencoded"):
        raw = await _read_all(limited_body(request, min(cap, PARSED_BODY_MAX)))
        parse = _json_fields if mime == "application/json" else _form_fields
        text, env = await anyio.to_thread.run_sync(parse, raw)  # never on the event loop
        yield Msg("env", env=_env_value(env))
        for msg in _text_msgs("<text>", text):
            yield msg
    else:
        name = (request.query_params.get("name") or ("<text>" if mime.startswith("text/") else "<upload>"))[:200]
        started = False
        async for chunk in limited_body(request, cap):
            if not started:
                yield Msg("start", name)
                started = True
            yield Msg("data", data=chunk)
        if started:
            yield Msg("end")


@dataclass
class Spooled:
    """A request body, each input in its own spooled file (in memory while small, then on
    disk), and the versions sent with it."""

    env: Environment = field(default_factory=dict)
    inputs: list[tuple[str, IO[bytes]]] = field(default_factory=list)

    def close(self) -> None:
        for _, fh in self.inputs:
            fh.close()


async def spool_request(request: Request, cap: int) -> Spooled:
    """Stream the body to spooled files (never whole in memory), enforcing the cap."""
    spooled = Spooled()
    out: IO[bytes] | None = None
    try:
        async for msg in body_messages(request, cap):
            if msg.kind == "env":
                spooled.env.update(msg.env or {})
            elif msg.kind == "start":
                out = tempfile.SpooledTemporaryFile(max_size=IN_MEMORY)  # noqa: SIM115 - closed by Spooled
                spooled.inputs.append((msg.name, out))
            elif msg.kind == "data" and out is not None:
                out.write(msg.data)
    except ClientDisconnect:
        spooled.close()
        raise UsageError("the client went away before the body was complete") from None
    except BaseException:
        spooled.close()
        raise
    return spooled


def _read(fh: IO[bytes]) -> Iterator[bytes]:
    fh.seek(0)
    while chunk := fh.read(CHUNK):
        yield chunk


def _files_for_triage(spooled: Spooled, folder: Path) -> list[str]:
    """Named copies of the inputs: the triage reads them again, as the CLI reads its files."""
    paths: list[str] = []
    for n, (name, fh) in enumerate(spooled.inputs):
        base = "stdin.log" if name.startswith("<") else upload_name(name)
        path = folder / f"in{n}" / (upload_name(base.removesuffix(".gz")))  # stored unpacked
        path.parent.mkdir()
        with path.open("wb") as out:
            for chunk in _read(fh):
                out.write(chunk)
        paths.append(str(path))
    return paths


def diagnose_spooled(spooled: Spooled, index: CompiledIndex) -> Diagnosis:
    """What `rootcause diagnose -f json` computes for these inputs (triage included)."""
    if not spooled.inputs:
        raise UsageError("nothing to diagnose: send an error message, a log or a file")
    sources = [
        SourceInput(name, _read(fh), None if name.startswith("<") else rank_from_path(Path(name)))
        for name, fh in spooled.inputs
    ]
    from rootcause.adapters.atlas.held import atlas_loader
    from rootcause.adapters.atlas.names_held import names_loader

    d = diagnose_sources(sources, index, spooled.env, atlas=atlas_loader(), names=names_loader())
    if holds_several_ranks(d):
        from rootcause.adapters.triage_runner import attach_triage

        with tempfile.TemporaryDirectory(prefix="rootcause-upload-") as folder:
            attach_triage(d, _files_for_triage(spooled, Path(folder)))
    return d


async def diagnose_request(request: Request, index_for_thread: Callable[[], CompiledIndex], cap: int) -> Diagnosis:
    """Spool the body (async, no thread held while a slow client sends), then scan it in a
    worker thread with that thread's own index (hyperscan scratch space is per thread)."""
    spooled = await spool_request(request, cap)
    try:
        return await anyio.to_thread.run_sync(lambda: diagnose_spooled(spooled, index_for_thread()))
    finally:
        spooled.close()
