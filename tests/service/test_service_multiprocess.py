"""Several server processes on one PostgreSQL database: they share the reports, and the
write limit (per token, per address) holds across them because the store keeps it."""

from __future__ import annotations

from pathlib import Path

import httpx
from service_support import SEED_ID, PgSchemas, assert_error, start_server

from rootcause.adapters.store import open_store
from rootcause.adapters.store.tokens import new_token


def test_two_servers_share_one_database_and_one_limit(tmp_path: Path, pg_schemas: PgSchemas, cache_dir: Path) -> None:
    url = pg_schemas.new("shared")
    a = start_server(url, tmp_path / "a", cache_dir, rate_limit="4/day")
    b = start_server(url, tmp_path / "b", cache_dir, rate_limit="4/day")
    store = open_store(url)
    first, first_hash = new_token()
    second, second_hash = new_token()
    store.create_token("first", first_hash)
    store.create_token("second", second_hash)
    body = {"index": 0, "result": "worked"}
    path = f"/api/v1/entries/{SEED_ID}/outcomes"
    try:
        with (
            httpx.Client(base_url=a.url, headers={"authorization": f"Bearer {first}"}) as ca,
            httpx.Client(base_url=b.url, headers={"authorization": f"Bearer {first}"}) as cb,
        ):
            created = [c.post(path, json=body) for c in (ca, cb, ca, cb)]
            assert [r.status_code for r in created] == [201] * 4
            # what one process wrote, the other reads
            assert cb.get(f"/api/v1/entries/{SEED_ID}/stats").json()["reports"] == 4
            listed = {o["id"] for o in ca.get(f"{path}?limit=10").json()["outcomes"]}
            assert listed == {r.json()["id"] for r in created}
            # the fifth write is refused, whichever process receives it
            for c in (ca, cb):
                r = c.post(path, json=body)
                assert_error(r, 429, "rate_limited")
                assert int(r.headers["retry-after"]) >= 1
        # a new token from the same address is held by the address limit
        with httpx.Client(base_url=b.url, headers={"authorization": f"Bearer {second}"}) as c:
            error = assert_error(c.post(path, json=body), 429, "rate_limited")
            assert "address" in str(error["message"])
        assert store.outcome_count() == 4
    finally:
        a.stop()
        b.stop()
        store.close()
