"""Slow clients cannot hold the server: a request head must be complete within the header timeout,
a body may not stall past the body timeout, and past the connection cap the longest-stalled
connection makes room. A real server (`rootcause serve`), real sockets on loopback, bounded: 150
connections for a few seconds."""

from __future__ import annotations

import contextlib
import select
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from service_support import Server, cli_env
from testkit import launch_server

HEADER_TIMEOUT = 1.5
BODY_TIMEOUT = 1.5
MAX_CONNECTIONS = 64
SLOW_CLIENTS = 150


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("slowloris")
    db = f"sqlite:///{tmp / 'slow.db'}"
    env = cli_env(
        db,
        tmp,
        cache_dir,
        ROOTCAUSE_HEADER_TIMEOUT=str(HEADER_TIMEOUT),
        ROOTCAUSE_BODY_TIMEOUT=str(BODY_TIMEOUT),
        ROOTCAUSE_MAX_CONNECTIONS=str(MAX_CONNECTIONS),
    )
    proc, url = launch_server(env, tmp / "server.log", via_cli=True)
    server = Server(url, db, proc, tmp / "server.log", env)
    yield server
    server.stop()


def _connect(server: Server) -> socket.socket:
    host, port = server.url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=5)
    sock.setblocking(False)
    return sock


def _closed_by_server(sock: socket.socket) -> bool:
    try:
        return sock.recv(65536) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True  # reset


def test_slow_headers_are_cut_and_health_still_answers(guarded: Server) -> None:
    started = time.monotonic()
    open_socks: dict[socket.socket, float] = {}
    closed_after: list[float] = []
    for n in range(SLOW_CLIENTS):
        sock = _connect(guarded)
        sock.send(f"GET /-/health HTTP/1.1\r\nHost: x\r\nX-Slow-{n}: 1\r\n".encode())
        open_socks[sock] = time.monotonic()
    health: list[float] = []
    line = 0
    while open_socks and time.monotonic() - started < HEADER_TIMEOUT + 6:
        line += 1
        for sock in list(open_socks):
            with contextlib.suppress(OSError):  # one header line at a time, never the end
                sock.send(f"X-More-{line}: {'a' * 10}\r\n".encode())
        if len(health) < 3:
            t0 = time.monotonic()
            r = httpx.get(f"{guarded.url}/-/health", timeout=5)
            assert r.status_code == 200
            health.append(time.monotonic() - t0)
        readable, _, _ = select.select(list(open_socks), [], [], 0.3)
        for sock in readable:
            if _closed_by_server(sock):
                closed_after.append(time.monotonic() - open_socks.pop(sock))
                sock.close()
    still_open = len(open_socks)
    for sock in open_socks:
        sock.close()
    assert still_open == 0, f"{still_open} of {SLOW_CLIENTS} slow clients still connected"
    assert max(closed_after) < HEADER_TIMEOUT + 3, max(closed_after)
    assert len(health) == 3  # health answered while they were connected


def test_an_idle_connection_is_closed(guarded: Server) -> None:
    sock = _connect(guarded)
    ready, _, _ = select.select([sock], [], [], HEADER_TIMEOUT + 4)
    assert ready and _closed_by_server(sock)
    sock.close()


def test_a_stalled_body_is_cut(guarded: Server) -> None:
    sock = _connect(guarded)
    head = "POST /api/v1/diagnose HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n"
    sock.send(head.encode() + b"RuntimeError: part of a body")
    t0 = time.monotonic()
    closed = False
    while time.monotonic() - t0 < BODY_TIMEOUT + 4 and not closed:
        ready, _, _ = select.select([sock], [], [], 0.5)
        closed = bool(ready) and _closed_by_server(sock)
    sock.close()
    assert closed, "the server still waits for a body that stopped arriving"
    # a request that keeps its pace is unaffected
    r = httpx.post(f"{guarded.url}/api/v1/diagnose", content=b"noise\n" * 1000, headers={"content-type": "text/plain"})
    assert r.status_code == 200
