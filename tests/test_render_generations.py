"""An entry's message history and the source of its version bounds are shown (HTML aside, JSON),
while the seed's Markdown stays byte-for-byte the golden reference."""

from __future__ import annotations

import json

from testkit import SEED_ID, SEEDS

from rootcause.adapters.loading import load_entries
from rootcause.core.model import Generation, Source, VersionRange
from rootcause.core.render import render_html, render_markdown
from rootcause.core.render.json_view import render_json

SEED = next(e for e in load_entries() if e.id == SEED_ID)
SOURCED = Source(kind="source", ref="pytorch/pytorch@v2.1.0:torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp", note="x")
WITH_HISTORY = SEED.model_copy(
    update={
        "generations": [
            Generation(
                wording="NCCL communicator was aborted on rank %d. <b>Original</b> reason",
                versions="torch>=1.10,<2.2",
                bounds_source=SOURCED,
                examples=[1],
            ),
            Generation(
                wording="Watchdog caught collective operation timeout",
                versions="torch>=2.2",
                bounds_source="unchecked",
                examples=[0],
            ),
        ],
        "versions": [VersionRange(requirement="torch>=1.10", bounds_source="unchecked"), *SEED.versions[1:]],
    }
)


def test_html_shows_each_generation_with_where_its_bounds_were_read() -> None:
    html = render_html(WITH_HISTORY)
    aside = html[html.index("<aside") :]
    assert "Message history" in aside and "torch&gt;=1.10,&lt;2.2" in aside
    assert "read from pytorch/pytorch@v2.1.0:torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp" in aside
    assert "bounds not checked against release tags" in aside
    assert "&lt;b&gt;Original&lt;/b&gt;" in aside and "<b>Original</b>" not in html
    assert "消息措辞的演变" in render_html(WITH_HISTORY, "zh")


def test_json_carries_generations_and_bounds_sources() -> None:
    data = json.loads(render_json(WITH_HISTORY))
    assert [g["versions"] for g in data["generations"]] == ["torch>=1.10,<2.2", "torch>=2.2"]
    assert data["generations"][0]["bounds_source"]["ref"].startswith("pytorch/pytorch@v2.1.0")
    assert data["versions"][0]["bounds_source"] == "unchecked"


def test_markdown_of_the_seed_is_unchanged_by_history() -> None:
    golden = (SEEDS / "nccl-timeout-allreduce.md").read_text(encoding="utf-8")
    assert render_markdown(WITH_HISTORY) == golden.rstrip("\n")
