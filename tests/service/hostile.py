"""A hostile client on a raw socket: it streams a huge chunked body and stops as soon as the
server answers. Shared by the service tests and bench/hostile_upload.py."""

from __future__ import annotations

import select
import socket
import time
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass
class Streamed:
    status: int
    sent: int  # body bytes the server let in before it answered
    seconds: float
    body: bytes


def _read_answer(sock: socket.socket, deadline: float) -> tuple[int, bytes]:
    data = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([sock], [], [], 1.0)
        if not ready:
            continue
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
        head, sep, rest = data.partition(b"\r\n\r\n")
        if sep:
            lengths = [
                int(h.split(b":", 1)[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:")
            ]
            if lengths and len(rest) >= lengths[0]:
                return int(head.split(b" ", 2)[1]), rest[: lengths[0]]
    head, _, rest = data.partition(b"\r\n\r\n")
    return (int(head.split(b" ", 2)[1]) if head else 0), rest


def stream_until_answer(
    url: str, path: str, total: int, *, chunk: int = 1 << 16, content_type: str = "text/plain", timeout: float = 600
) -> Streamed:
    """POST `total` bytes (chunked transfer encoding, no Content-Length) to url+path, stopping
    the moment an answer arrives; returns its status, and how much of the body went out."""
    parts = urlsplit(url)
    payload = (b"x" * (chunk - 1) + b"\n")[:chunk]
    framed = f"{len(payload):x}\r\n".encode() + payload + b"\r\n"
    started = time.monotonic()
    deadline = started + timeout
    sent = 0
    with socket.create_connection((parts.hostname, parts.port), timeout=timeout) as sock:
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: {content_type}\r\n"
            "Transfer-Encoding: chunked\r\n\r\n"
        )
        sock.sendall(head.encode())
        sock.setblocking(False)
        pending = b""
        while sent < total and time.monotonic() < deadline:
            readable, writable, _ = select.select([sock], [sock], [], 1.0)
            if readable:
                break  # the server answered (or closed) before the body ended
            if not writable:
                continue
            if not pending:
                pending = framed
                sent += len(payload)
            try:
                n = sock.send(pending)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                break  # the server closed the connection
            pending = pending[n:]
        else:
            if sent >= total:
                sock.setblocking(True)
                sock.sendall(pending + b"0\r\n\r\n")
        sock.setblocking(True)
        status, body = _read_answer(sock, deadline)
    return Streamed(status, sent, time.monotonic() - started, body)
