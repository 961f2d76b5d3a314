"""Helpers of the service tests: real servers (uvicorn in a subprocess, on a free
loopback port), the CLI in a subprocess, and PostgreSQL schemas for one test run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import httpx
from testkit import launch_server

PG_ADMIN = os.environ.get("ROOTCAUSE_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
RUN_ID = uuid.uuid4().hex[:8]
SEED_ID = "pytorch/nccl-timeout-allreduce"
SEED_ERROR = (
    "RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2. "
    "Original reason for failure was: AllReduce timed out after 600000 ms"
)
STORES = ["sqlite", "postgresql"]


def pg_available() -> bool:
    try:
        import psycopg

        with psycopg.connect(PG_ADMIN, connect_timeout=3):
            return True
    except Exception:
        return False


class PgSchemas:
    """Creates schemas named rc_test_<run>_<name> and drops them all at the end."""

    def __init__(self) -> None:
        self.created: list[str] = []

    def new(self, name: str) -> str:
        import psycopg

        schema = f"rc_test_{RUN_ID}_{name}"
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            conn.execute(f'CREATE SCHEMA "{schema}"')
        self.created.append(schema)
        sep = "&" if "?" in PG_ADMIN else "?"
        return f"{PG_ADMIN}{sep}options={quote(f'-csearch_path={schema}')}"

    def drop_all(self) -> None:
        import psycopg

        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            for schema in self.created:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@dataclass
class Server:
    url: str
    database_url: str
    proc: subprocess.Popen[bytes]
    log: Path
    env: dict[str, str] = field(default_factory=dict)

    def client(self, **kwargs: object) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=30.0, **kwargs)  # type: ignore[arg-type]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def kill9(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


def cli_env(database_url: str, data_dir: Path, cache: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOTCAUSE_")}
    env |= {
        "ROOTCAUSE_DATABASE_URL": database_url,
        "ROOTCAUSE_DATA_DIR": str(data_dir),
        "ROOTCAUSE_CACHE_DIR": str(cache),
        "PYTHONUNBUFFERED": "1",
    }
    return env | extra


def run_cli(*args: str, env: dict[str, str], input: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rootcause.adapters.cli.main", *args],
        env={**os.environ, **env},
        input=input,
        capture_output=True,
        text=True,
        timeout=120,
    )


def start_server(
    database_url: str,
    data_dir: Path,
    cache: Path,
    *,
    rate_limit: str = "1000000/minute",
    max_upload: str = "262144",
    via_cli: bool = False,
) -> Server:
    data_dir.mkdir(parents=True, exist_ok=True)
    env = cli_env(
        database_url,
        data_dir,
        cache,
        ROOTCAUSE_RATE_LIMIT=rate_limit,
        ROOTCAUSE_MAX_UPLOAD_BYTES=max_upload,
    )
    log = data_dir / f"server-{len(list(data_dir.glob('server-*.log')))}.log"
    proc, url = launch_server(env, log, via_cli=via_cli)
    return Server(url, database_url, proc, log, env)


def database_url_for(store: str, name: str, tmp: Path, pg: PgSchemas) -> str:
    if store == "sqlite":
        return f"sqlite:///{tmp / f'{name}.db'}"
    return pg.new(name)


ERROR_KEYS = {"status", "code", "message", "details"}


def assert_error(response: httpx.Response, status: int, code: str) -> dict[str, object]:
    """The one error shape, pinned."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    error = body["error"]
    assert set(error) == ERROR_KEYS
    assert error["status"] == status
    assert error["code"] == code
    assert isinstance(error["message"], str) and error["message"]
    return error
