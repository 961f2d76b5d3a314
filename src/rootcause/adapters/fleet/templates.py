"""Unknown error lines become templates: Drain3 with the ML masks, counted per day, job and node.

The state lives in one folder and survives runs: ``drain3.state`` (the miner's own snapshot,
written atomically) and ``templates.json`` (counts, examples and where they came from).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from drain3 import TemplateMiner
from drain3.masking import MaskingInstruction
from drain3.persistence_handler import PersistenceHandler
from drain3.template_miner_config import TemplateMinerConfig

from rootcause.adapters.canon_files import write_atomic_bytes
from rootcause.core.fleet.masks import ML_MASKS
from rootcause.core.fleet.rows import Row
from rootcause.core.fleet.summary import day_of
from rootcause.errors import UsageError

MAX_EXAMPLES = 5
MAX_KEYS = 500  # distinct days, jobs or nodes kept per template (the most frequent survive)


class _AtomicFile(PersistenceHandler):
    def __init__(self, path: Path) -> None:
        self.path = path

    def save_state(self, state: bytes) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic_bytes(self.path, state)

    def load_state(self) -> bytes | None:
        return self.path.read_bytes() if self.path.is_file() else None


def miner_config() -> TemplateMinerConfig:
    config = TemplateMinerConfig()
    config.masking_instructions = [MaskingInstruction(m.regex, m.name) for m in ML_MASKS]
    config.mask_prefix, config.mask_suffix = "<", ">"
    config.drain_sim_th = 0.4
    config.drain_depth = 4
    config.parametrize_numeric_tokens = True
    config.snapshot_interval_minutes = 10**6  # saved when we say so
    config.snapshot_compress_state = True
    return config


def _bump(counter: dict[str, int], key: str | None) -> None:
    if not key:
        return
    counter[key] = counter.get(key, 0) + 1
    if len(counter) > MAX_KEYS:
        smallest = min(counter, key=lambda k: counter[k])
        del counter[smallest]


class TemplateBook:
    """The templates of every unknown line seen so far, with their counts."""

    def __init__(self, state_dir: Path | None = None) -> None:
        self.state_dir = state_dir
        persistence = _AtomicFile(state_dir / "drain3.state") if state_dir else None
        try:
            self.miner = TemplateMiner(persistence, miner_config())
        except Exception as exc:  # a damaged snapshot
            raise UsageError(f"{state_dir}/drain3.state: cannot load the template state: {exc}") from None
        self.stats: dict[str, dict[str, Any]] = {}
        if state_dir is not None and (state_dir / "templates.json").is_file():
            try:
                self.stats = json.loads((state_dir / "templates.json").read_text(encoding="utf-8"))
            except ValueError as exc:
                raise UsageError(f"{state_dir}/templates.json: not valid JSON: {exc}") from None

    def add(
        self,
        text: str,
        *,
        day: str,
        job: str | None = None,
        host: str | None = None,
        source: dict[str, Any] | None = None,
    ) -> int:
        result = self.miner.add_log_message(text)
        cid = str(result["cluster_id"])
        s = self.stats.setdefault(cid, {"count": 0, "days": {}, "jobs": {}, "nodes": {}, "examples": [], "sources": []})
        s["count"] += 1
        _bump(s["days"], day)
        _bump(s["jobs"], job)
        _bump(s["nodes"], host)
        if text not in s["examples"] and len(s["examples"]) < MAX_EXAMPLES:
            s["examples"].append(text)
            if source is not None:
                s["sources"].append(source)
        return int(cid)

    def add_rows(self, rows: Iterable[Row]) -> int:
        n = 0
        for r in rows:
            self.add(
                r["text"],
                day=day_of(r["seen_at"]),
                job=r.get("job"),
                host=r.get("host"),
                source={
                    "path": r.get("path"),
                    "line": r.get("line"),
                    "job": r.get("job"),
                    "rank": r.get("rank"),
                    "host": r.get("host"),
                },
            )
            n += 1
        return n

    def templates(self) -> list[dict[str, Any]]:
        """Every template, most frequent first."""
        out = []
        for cluster in self.miner.drain.clusters:
            s = self.stats.get(str(cluster.cluster_id))
            if s is None:
                continue
            out.append({"id": cluster.cluster_id, "template": cluster.get_template(), **s})
        out.sort(key=lambda t: (-t["count"], t["id"]))
        return out

    def get(self, template_id: int) -> dict[str, Any]:
        for t in self.templates():
            if t["id"] == template_id:
                return t
        raise UsageError(f"no template {template_id} (see `rootcause fleet unknown`)")

    def save(self) -> None:
        if self.state_dir is None:
            return
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.miner.save_state("rootcause fleet")
        data = json.dumps(self.stats, ensure_ascii=False, sort_keys=True).encode()
        write_atomic_bytes(self.state_dir / "templates.json", data)
