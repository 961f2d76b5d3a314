"""Hostile uploads and load on a real server: a streamed body past the cap is refused with a
413 at the cap (the server does not read on), and a hundred concurrent 1 MB diagnoses all
finish, each with the right finding. Latency and memory figures: bench/hostile_upload.py."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from hostile import stream_until_answer
from service_support import SEED_ERROR, SEED_ID, Server, start_server

CAP = 1 << 20
SLACK = 16 << 20  # what loopback socket buffers may hold beyond what the server read
CLIENTS = 100


@pytest.fixture(scope="module")
def big_server(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("load")
    server = start_server(f"sqlite:///{tmp / 'load.db'}", tmp, cache_dir, max_upload=str(2 * CAP))
    yield server
    server.stop()


def test_a_streamed_body_past_the_cap_is_refused_at_the_cap(servers: dict[str, Server]) -> None:
    server = servers["sqlite"]  # cap: 256 KiB
    streamed = stream_until_answer(server.url, "/api/v1/diagnose", 256 << 20)
    assert streamed.status == 413, streamed.body[:300]
    assert b'"code":"too_large"' in streamed.body
    assert streamed.sent < (256 << 10) + SLACK  # it stopped at the cap, not after 256 MiB


def one_megabyte_log(rng: random.Random) -> bytes:
    lines = [f"step {i} loss {rng.random():.4f} lr 3e-4 tokens/s {rng.randrange(10**5)}" for i in range(22_000)]
    lines.insert(rng.randrange(len(lines)), SEED_ERROR)
    return ("\n".join(lines) + "\n").encode()[:CAP]


def test_a_hundred_concurrent_1mb_diagnoses(big_server: Server) -> None:
    rng = random.Random(14)
    bodies = [one_megabyte_log(rng) for _ in range(CLIENTS)]
    assert all(SEED_ERROR.encode() in b and len(b) <= CAP for b in bodies)
    answers: list[tuple[int, list[str]]] = []
    lock = threading.Lock()
    go = threading.Barrier(CLIENTS)

    def diagnose(body: bytes) -> None:
        with httpx.Client(base_url=big_server.url, timeout=300) as c:
            go.wait()
            r = c.post("/api/v1/diagnose", content=body, headers={"content-type": "text/plain"})
            ids = [f["id"] for f in r.json().get("findings", [])] if r.status_code == 200 else [r.text[:200]]
            with lock:
                answers.append((r.status_code, ids))

    threads = [threading.Thread(target=diagnose, args=(b,)) for b in bodies]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=600)
    assert len(answers) == CLIENTS
    assert [status for status, _ in answers] == [200] * CLIENTS, answers[:3]
    assert all(ids[:1] == [SEED_ID] for _, ids in answers)
