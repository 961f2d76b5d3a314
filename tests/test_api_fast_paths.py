"""The held `rootcause.diagnose` call's fast paths (issue 25): the environment read in one look-up, the shipped
canon served without the lock within a second of its last check, the shipped atlas looked up only when a line needs
locating, and the fleet's payload loaded lazily by a worker. Each answers as the slower path did."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import rootcause
from rootcause.adapters import loading
from rootcause.adapters.atlas import held as atlas_held
from rootcause.adapters.canon_files import builtin_canon_dir
from rootcause.adapters.canon_paths import env_value
from rootcause.adapters.loading import CachedEntries, forget_held, held_canon, load_index
from rootcause.core.diagnosis import diagnose_text
from rootcause.errors import UsageError

ENTRY_ID = "pytorch/nccl-communicator-aborted"
OTHER = "Zebra herd stampeded through rank 3"
UNKNOWN = "RuntimeError: the flux capacitor of rank 3 overheated while loading shard 7"


def _zebra_entry() -> str:
    text = (builtin_canon_dir() / f"{ENTRY_ID}.yaml").read_text(encoding="utf-8")
    zebra = text.replace(
        r"- regex: NCCL communicator was aborted on rank (?P<rank>\d+)\.?\s*$",
        r"- regex: Zebra herd stampeded through rank (?P<rank>\d+)",
        1,
    )
    assert zebra != text
    return zebra


def test_env_value_reads_what_os_environ_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ROOTCAUSE_TEST_VAR", raising=False)
    assert env_value("ROOTCAUSE_TEST_VAR") == os.environ.get("ROOTCAUSE_TEST_VAR", "") == ""
    for value in ("plain", "", "h\u00e9llo /tmp/\u00fcber:/x"):
        monkeypatch.setenv("ROOTCAUSE_TEST_VAR", value)
        assert env_value("ROOTCAUSE_TEST_VAR") == os.environ["ROOTCAUSE_TEST_VAR"] == value
    monkeypatch.delenv("ROOTCAUSE_TEST_VAR")
    assert env_value("ROOTCAUSE_TEST_VAR") == ""
    monkeypatch.setattr(os, "environ", {"ROOTCAUSE_TEST_VAR": "stand-in"})  # not os._Environ: asked the usual way
    assert env_value("ROOTCAUSE_TEST_VAR") == "stand-in"


def test_the_fast_path_serves_the_shipped_canon_within_a_second_only(monkeypatch: pytest.MonkeyPatch) -> None:
    forget_held()
    first = load_index()
    checks: list[bool] = []
    full_check = loading._unchanged

    def counted(held: loading.HeldCanon, now: float) -> bool:
        checks.append(True)
        return full_check(held, now)

    monkeypatch.setattr(loading, "_unchanged", counted)
    clock = [loading.time.monotonic()]
    monkeypatch.setattr(loading.time, "monotonic", lambda: clock[0])
    held = held_canon()  # (a full check when loading took over a second)
    held.files_checked = clock[0]
    checks.clear()
    assert load_index() is first and not checks  # within the second: served as held, nothing stat'ed
    clock[0] += loading.FILE_CHECK_SECONDS
    assert load_index() is first and checks == [True]  # a second later: the folders and files are compared again
    assert held.files_checked == clock[0]
    assert load_index() is first and checks == [True]


def test_a_canon_named_in_the_environment_is_seen_on_the_next_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    forget_held()
    assert ENTRY_ID not in [f.id for f in rootcause.diagnose(OTHER).findings]  # the shipped canon, now held
    (tmp_path / "pytorch").mkdir()
    (tmp_path / f"{ENTRY_ID}.yaml").write_text(_zebra_entry(), encoding="utf-8")
    monkeypatch.setenv("ROOTCAUSE_CANON", str(tmp_path))
    assert ENTRY_ID in [f.id for f in rootcause.diagnose(OTHER).findings]
    monkeypatch.delenv("ROOTCAUSE_CANON")
    assert ENTRY_ID not in [f.id for f in rootcause.diagnose(OTHER).findings]


def test_an_extra_folder_is_checked_on_every_call_edit_add_remove(tmp_path: Path) -> None:
    canon = [str(tmp_path)]
    (tmp_path / "pytorch").mkdir()
    ids = lambda: [f.id for f in rootcause.diagnose(OTHER, canon=canon).findings]  # noqa: E731
    assert ENTRY_ID not in ids()
    path = tmp_path / f"{ENTRY_ID}.yaml"
    path.write_text(_zebra_entry(), encoding="utf-8")  # added
    assert ENTRY_ID in ids()
    assert ENTRY_ID not in [f.id for f in rootcause.diagnose(OTHER).findings]  # the shipped canon alone, between
    path.write_text(_zebra_entry().replace("Zebra herd", "Gnu herd"), encoding="utf-8")  # edited in place
    assert ENTRY_ID not in ids()
    assert ENTRY_ID in [f.id for f in rootcause.diagnose(OTHER.replace("Zebra", "Gnu"), canon=canon).findings]
    path.unlink()  # removed
    assert ENTRY_ID not in [f.id for f in rootcause.diagnose(OTHER.replace("Zebra", "Gnu"), canon=canon).findings]


def test_the_shipped_atlas_is_looked_up_only_when_a_line_needs_locating(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (atlas_held.ATLAS_ENV, atlas_held.NO_ATLAS_ENV):
        monkeypatch.delenv(name, raising=False)
    looked: list[bool] = []
    monkeypatch.setattr(atlas_held, "default_atlas_path", lambda: looked.append(True))  # None: no atlas ships
    loader = atlas_held.atlas_loader()
    assert callable(loader) and not looked
    assert loader() is None and looked == [True]
    looked.clear()
    known = rootcause.diagnose("NCCL communicator was aborted on rank 3.")
    assert known.matched and not looked  # a known error never looks for the atlas
    unknown = rootcause.diagnose(UNKNOWN)
    assert unknown == rootcause.diagnose(UNKNOWN, use_atlas=False) and unknown.located == []
    monkeypatch.setenv(atlas_held.NO_ATLAS_ENV, "1")
    assert atlas_held.atlas_loader() is None
    monkeypatch.delenv(atlas_held.NO_ATLAS_ENV)
    monkeypatch.setenv(atlas_held.ATLAS_ENV, "/nonexistent/atlas.sqlite")
    with pytest.raises(UsageError, match="no atlas file there"):  # a named atlas is still checked up front
        atlas_held.atlas_loader()


def test_a_fleet_worker_loads_the_payload_lazily_and_diagnoses_alike() -> None:
    from rootcause.adapters.fleet import payload as fleet_payload

    driver = load_index()
    payload = fleet_payload.make_payload(driver)
    fleet_payload._LOADED.clear()
    worker = fleet_payload.index_from_payload(payload)
    assert fleet_payload.index_from_payload(payload) is worker  # once per process
    assert isinstance(worker.entries, CachedEntries) and not worker.entries._loaded
    assert list(worker.entries) == list(driver.entries) and worker.patterns == driver.patterns
    texts = [OTHER, UNKNOWN] + [e.examples[0].text for e in list(driver.entries.values())[::25]]
    for text in texts:
        assert diagnose_text(text, worker) == diagnose_text(text, driver), text
    assert 0 < len(worker.entries._loaded) < len(worker.entries)  # only the matched entries were unpickled
    fleet_payload._LOADED.clear()
