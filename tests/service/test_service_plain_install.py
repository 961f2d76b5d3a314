"""A plain install (no extras) serves every page: the server runs with the optional extras made
unimportable (a meta-path blocker in the server process, as if pip never installed them)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from service_support import SEED_ERROR, SEED_ID, Server, start_server

EXTRAS = ("pyarrow", "drain3", "pandas", "dask", "distributed", "pyspark", "ray")
BLOCKER = f'''
import sys

BLOCKED = {EXTRAS!r}


class _NotInstalled:
    """Refuses the optional extras, as on an install without them."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked: a plain install)", name=name)
        return None


sys.meta_path.insert(0, _NotInstalled)
'''


@pytest.fixture(scope="module")
def plain_server(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("plain")
    blocker = tmp / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(BLOCKER)
    path = os.pathsep.join(p for p in (str(blocker), os.environ.get("PYTHONPATH", "")) if p)
    previous = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = path  # the server subprocess inherits it
    try:
        server = start_server(f"sqlite:///{tmp / 'plain.db'}", tmp, cache_dir, via_cli=True)
    finally:
        if previous is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = previous
    yield server
    server.stop()


PAGES = [
    "/",
    "/index.html",
    f"/errors/{SEED_ID}/",
    f"/errors/{SEED_ID}/index.html",
    f"/errors/{SEED_ID}/zh.html",
    f"/errors/{SEED_ID}/index.json",
    f"/errors/{SEED_ID}/index.md",
    f"/errors/{SEED_ID}/zh.md",
    "/errors/",
    "/errors/pytorch/",
    "/search/?q=nccl",
    "/llms.txt",
    "/-/health",
    "/-/unknown",
    f"/api/v1/entries/{SEED_ID}",
    f"/api/v1/entries/{SEED_ID}/hits",
    "/api/v1/fleet/unknown",
]


def test_the_extras_are_really_blocked(plain_server: Server) -> None:
    assert "blocked: a plain install" not in plain_server.log.read_text()
    probe = subprocess.run(
        [sys.executable, "-c", "import pyarrow"],
        env={**os.environ, "PYTHONPATH": str(plain_server.log.parent / "blocker")},
        capture_output=True,
        text=True,
    )
    assert probe.returncode != 0 and "blocked: a plain install" in probe.stderr


@pytest.mark.parametrize("path", PAGES)
def test_every_page_answers_without_the_extras(plain_server: Server, path: str) -> None:
    with plain_server.client() as client:
        response = client.get(path)
    assert response.status_code == 200, (path, response.text[:300], plain_server.log.read_text()[-2000:])


def test_diagnose_answers_without_the_extras(plain_server: Server) -> None:
    with plain_server.client() as client:
        page = client.post("/diagnose", data={"text": SEED_ERROR})
        api = client.post("/api/v1/diagnose", content=SEED_ERROR, headers={"content-type": "text/plain"})
    assert page.status_code == 200 and SEED_ID in page.text
    assert api.status_code == 200 and api.json()["findings"][0]["id"] == SEED_ID
