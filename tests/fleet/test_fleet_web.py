"""Fleet results on the web service (real HTTP on loopback, SQLite): /-/unknown and rolling hit counts."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))

from fleetgen import Fleet
from service_support import run_cli, start_server

from rootcause.adapters.fleet import FleetOptions, scan_fleet
from rootcause.adapters.fleet.output import read_findings
from rootcause.adapters.fleet.templates import TemplateBook


def test_ingest_feeds_unknown_page_and_hit_counts(fleet: Fleet, tmp_path: Path) -> None:
    jobs = sorted(fleet.failures)[:25]
    paths = [str(p) for job in jobs for p in fleet.jobs[job]]
    out, state = tmp_path / "f.parquet", tmp_path / "state"
    scan_fleet(paths, FleetOptions(engine="local", triage=False), out)
    rows, _, _ = read_findings(out)
    book = TemplateBook(state)
    book.add_rows(r for r in rows if r["kind"] == "unknown")
    book.save()
    assert book.templates()
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    server = start_server(url, tmp_path / "data", tmp_path / "cache")
    try:
        entry = max(
            {r["entry_id"] for r in rows if r["kind"] == "known"}, key=lambda e: sum(r["entry_id"] == e for r in rows)
        )
        with server.client() as http:  # rendered and held before the ingest, by another process
            assert "Seen in fleet runs" not in http.get(f"/errors/{entry}/").text
        ingest = run_cli("fleet", "ingest", str(out), "--state", str(state), env=server.env)
        assert ingest.returncode == 0, ingest.stderr
        again = run_cli("fleet", "ingest", str(out), "--state", str(state), env=server.env)
        assert again.stderr.startswith("0 new hits")  # ingesting twice counts nothing twice
        expected = sum(r["entry_id"] == entry for r in rows)
        with server.client() as http:
            page = http.get("/-/unknown")
            assert page.status_code == 200
            assert book.templates()[0]["template"].split()[0] in page.text
            api = http.get("/api/v1/fleet/unknown").json()
            assert api["templates"][0]["count"] == book.templates()[0]["count"]
            hits = http.get(f"/api/v1/entries/{entry}/hits").json()["hits"]
            assert hits["30d"] == expected  # the fleet's logs were written over the last 20 days
            assert hits["24h"] <= hits["7d"] <= hits["30d"]
            html = http.get(f"/errors/{entry}/").text
            assert "Seen in fleet runs" in html and f"{hits['30d']} in 30 days" in html
            never = next(
                e for e in http.get("/api/v1/entries").json()["entries"] if e["id"] not in {r["entry_id"] for r in rows}
            )["id"]
            assert "Seen in fleet runs" not in http.get(f"/errors/{never}/").text
            assert http.get("/api/v1/entries/nope/nothing/hits").status_code == 404
    finally:
        server.stop()
