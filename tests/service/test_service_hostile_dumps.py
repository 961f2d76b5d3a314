"""Hostile Flight Recorder dumps through the service's upload (which runs the CLI's triage on multi-rank
input): each gets a bounded answer, and a service flooded with them still answers /-/health."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import httpx
from service_support import Server

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "triage"))
from hostile_dumps import memo_bomb, shared_references, shared_tuple_keys, span_pair

SPAN = span_pair()
UPLOADS: list[tuple[str, list[tuple[str, bytes]], int]] = [
    ("span", [("rank0.json", SPAN[0]), ("rank1.json", SPAN[1])], 200),
    ("memo", [("rank0.pkl", memo_bomb()), ("rank1.log", b"RuntimeError: boom\n")], 400),
    ("shared", [("rank0.pkl", shared_references()), ("rank1.log", b"RuntimeError: boom\n")], 200),
    ("keys", [("rank0.pkl", shared_tuple_keys()), ("rank1.log", b"RuntimeError: boom\n")], 400),
]


def _upload(c: httpx.Client, files: list[tuple[str, bytes]]) -> httpx.Response:
    return c.post(
        "/api/v1/diagnose", files=[("file", (name, data, "application/octet-stream")) for name, data in files]
    )


def test_each_hostile_dump_gets_a_bounded_answer(servers: dict[str, Server]) -> None:
    with servers["sqlite"].client() as c:
        for name, files, status in UPLOADS:
            r = _upload(c, files)
            assert r.status_code == status, (name, r.text[:300])
            if status == 200:
                assert r.json()["triage"] is not None, name
            else:
                assert "rank0.pkl" in r.json()["error"]["message"], r.text[:300]


def test_a_flood_of_hostile_dumps_leaves_health_answering(servers: dict[str, Server]) -> None:
    server = servers["sqlite"]
    answers: list[int] = []
    lock = threading.Lock()

    def client(n: int) -> None:
        with server.client() as c:
            status = _upload(c, UPLOADS[n % len(UPLOADS)][1]).status_code
        with lock:
            answers.append(status)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(48)]
    for t in threads:
        t.start()
    with server.client() as c:
        during = c.get("/-/health")
    for t in threads:
        t.join(timeout=120)
    assert during.status_code == 200
    assert sorted(set(answers)) == [200, 400] and len(answers) == 48
    with server.client() as c:
        assert c.get("/-/health").status_code == 200
