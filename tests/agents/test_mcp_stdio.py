"""`rootcause mcp` over stdio, driven by the official MCP client: every tool, its errors,
its size bounds, and the entries as resources."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from mcp_support import OOM_ERROR, SEED_ERROR, SEED_ID, SyncClient, sync_stdio_session, text_of
from mcp_types import TextResourceContents

from rootcause.core import agent_view as view
from rootcause.core.matching.index import CompiledIndex
from rootcause.core.model import Entry

MANY_WORKAROUNDS = "cuda/oom-caching-allocator"


@pytest.fixture(scope="module")
def mcp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SyncClient]:
    """One `rootcause mcp` process for this module's tests (none of them changes its state)."""
    with sync_stdio_session(ROOTCAUSE_CACHE_DIR=str(tmp_path_factory.getbasetemp() / "cache")) as client:
        yield client


@cache
def _index() -> CompiledIndex:
    from rootcause.adapters.loading import load_index

    return load_index()


def _entry(entry_id: str) -> Entry:
    return _index().entries[entry_id]


def _every_example() -> str:
    """One real example line of every entry: a log that matches most of the canon."""
    return "\n".join(e.examples[0].text for e in _index().entries.values() if e.examples)


def test_diagnose_names_the_error_with_its_workarounds(mcp: SyncClient) -> None:
    seed = _entry(SEED_ID)

    result = mcp.call("diagnose", {"text": f"some noise\n{SEED_ERROR}\nmore noise"})
    assert not result.is_error
    text = text_of(result)
    assert text.startswith("rootcause: 1 known error matched")
    assert f"#1 {SEED_ID} · confidence high (0.95)" in text
    assert f"line 2: {SEED_ERROR}" in text
    assert "params: collective=AllReduce, rank=2" in text
    assert "[0] 80% (estimate) " + seed.workarounds[0].action in text
    assert "dead ends (do not try):" in text and seed.dead_ends[0].action in text
    assert "report_outcome(" in text

    doc = json.loads(text_of(mcp.call("diagnose", {"text": SEED_ERROR, "format": "json"})))
    assert doc["matched"] is True and doc["more"] == []
    (finding,) = doc["findings"]
    assert finding["id"] == SEED_ID and finding["confidence"] == "high" and finding["score"] == 0.95
    assert finding["line"] == {"source": "<text>", "line": 1, "text": SEED_ERROR}
    assert finding["params"] == {"collective": "AllReduce", "rank": "2"}
    assert [w["index"] for w in finding["workarounds"]] == [0, 1, 2]
    assert finding["workarounds"][0]["success_rate"] == 0.8
    assert [w["how"] for w in finding["workarounds"]] == [w.how for w in seed.workarounds]
    assert [d["action"] for d in finding["dead_ends"]] == [d.action for d in seed.dead_ends]

    # the versions verdict follows env
    doc = json.loads(text_of(mcp.call("diagnose", {"text": SEED_ERROR, "env": "torch==2.1.0", "format": "json"})))
    assert doc["findings"][0]["versions"].startswith("affected")

    # nothing known: said plainly, and not an error
    result = mcp.call("diagnose", {"text": "epoch 3: loss 0.41, all good\n"})
    assert not result.is_error
    assert text_of(result).startswith("rootcause: no known error matched.")
    doc = json.loads(text_of(mcp.call("diagnose", {"text": "all good", "format": "json"})))
    assert doc["matched"] is False and doc["message"] == "no known error matched"


def test_diagnose_errors_are_tool_errors(mcp: SyncClient) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"text": ""}, "text is empty"),
        ({"text": " \n\t "}, "text is empty"),
        ({}, "text"),
        ({"text": 42}, "text"),
        ({"text": SEED_ERROR, "env": "torch=2"}, "expected name==version"),
        ({"text": SEED_ERROR, "format": "yaml"}, "format"),
        ({"text": SEED_ERROR, "detail": "very"}, "detail"),
    ]

    for args, message in cases:
        result = mcp.call("diagnose", args)
        assert result.is_error, args
        assert message in text_of(result), (args, text_of(result))
    unknown = mcp.call("no_such_tool", {})
    assert unknown.is_error and "Unknown tool" in text_of(unknown)
    # the server is still answering after all of that
    assert not (mcp.call("diagnose", {"text": SEED_ERROR})).is_error


def test_diagnose_answers_are_bounded(mcp: SyncClient) -> None:
    log = _every_example()

    text = text_of(mcp.call("diagnose", {"text": log}))
    assert len(text) <= view.MAX_CHARS
    assert text.count("\n#") == view.MAX_FINDINGS
    assert "also matched, lower ranked (not shown):" in text

    doc = json.loads(text_of(mcp.call("diagnose", {"text": log, "format": "json"})))
    assert len(json.dumps(doc, ensure_ascii=False, separators=(",", ":"))) <= view.MAX_CHARS
    assert len(doc["findings"]) == view.MAX_FINDINGS and len(doc["more"]) == view.MAX_MORE_IDS
    for finding in doc["findings"]:
        assert len(finding["workarounds"]) <= view.MAX_WORKAROUNDS
        assert len(finding["dead_ends"]) <= view.MAX_DEAD_ENDS
        assert finding["line"]["text"] and finding["id"]

    detailed = text_of(mcp.call("diagnose", {"text": log, "detail": True}))
    assert view.MAX_CHARS < len(detailed) <= view.DETAIL_MAX_CHARS
    assert detailed.count("\n#") == view.DETAIL_MAX_FINDINGS


def test_huge_text_is_truncated_with_a_note(mcp: SyncClient) -> None:
    filler = "".join(f"step {n}: loss=0.{n % 97:02d} lr=3e-4 tokens/s=51234\n" for n in range(70_000))
    text = f"{SEED_ERROR}\n{filler}{OOM_ERROR}\n"
    expected = view.truncate_input(text)
    assert expected.dropped_bytes > 1_000_000

    result = mcp.call("diagnose", {"text": text, "format": "json"})
    assert not result.is_error
    doc = json.loads(text_of(result))
    ids = [f["id"] for f in doc["findings"]] + doc["more"]
    assert SEED_ID in ids and "cuda/cuda-error-out-of-memory" in ids  # the head and the tail are kept
    (note,) = [n for n in doc["notes"] if n.startswith("input truncated")]
    assert f"{expected.dropped_bytes} bytes dropped" in note
    plain = text_of(mcp.call("diagnose", {"text": text}))
    assert f"note: input truncated: {expected.dropped_bytes} bytes dropped" in plain
    assert len(plain) <= view.MAX_CHARS


def test_get_entry_compact_full_and_errors(mcp: SyncClient) -> None:
    from rootcause.core.render import entry_to_dict, render_markdown

    many = _entry(MANY_WORKAROUNDS)
    assert len(many.workarounds) > view.MAX_WORKAROUNDS
    seed = _entry(SEED_ID)

    text = text_of(mcp.call("get_entry", {"id": MANY_WORKAROUNDS}))
    assert len(text) <= view.MAX_CHARS and text.startswith(f"{MANY_WORKAROUNDS}: ")
    best = max(range(len(many.workarounds)), key=lambda i: many.workarounds[i].success_rate.value)
    assert f"  [{best}] " in text
    assert sum(f"  [{i}] " in text for i in range(len(many.workarounds))) <= view.MAX_WORKAROUNDS + len(many.dead_ends)
    assert "get_entry(id, detail=true)" in text

    doc = json.loads(text_of(mcp.call("get_entry", {"id": MANY_WORKAROUNDS, "format": "json"})))
    assert len(doc["workarounds"]) == view.MAX_WORKAROUNDS
    assert doc["not_shown"]["workarounds"] == len(many.workarounds) - view.MAX_WORKAROUNDS
    best_three = sorted(many.workarounds, key=lambda w: -w.success_rate.value)[: view.MAX_WORKAROUNDS]
    for shown, original in zip(doc["workarounds"], best_three, strict=True):
        assert original.how.startswith(shown["how"].split(view.ELLIPSIS)[0])  # the how, clipped at most

    zh = text_of(mcp.call("get_entry", {"id": SEED_ID, "lang": "zh"}))
    assert seed.signature_zh and seed.signature_zh in zh

    full = text_of(mcp.call("get_entry", {"id": SEED_ID, "detail": True}))
    assert full == render_markdown(seed, "en")
    full_zh = text_of(mcp.call("get_entry", {"id": SEED_ID, "detail": True, "lang": "zh"}))
    assert full_zh == render_markdown(seed, "zh")
    full_json = json.loads(text_of(mcp.call("get_entry", {"id": SEED_ID, "detail": True, "format": "json"})))
    assert full_json == json.loads(json.dumps(entry_to_dict(seed)))

    for args, message in [
        (
            {"id": "pytorch/nccl-timeout-allreduc"},
            f"no entry with id 'pytorch/nccl-timeout-allreduc'. Did you mean: {SEED_ID}",
        ),
        ({"id": "nonsense"}, "no entry with id 'nonsense'"),
        ({"id": ""}, "no entry with id ''"),
        ({"id": SEED_ID, "lang": "fr"}, "'en' or 'zh'"),
        ({"id": SEED_ID, "lang": 3}, "lang"),
        ({}, "id"),
    ]:
        result = mcp.call("get_entry", args)
        assert result.is_error, args
        assert message in text_of(result), (args, text_of(result))


def test_search_by_words_id_and_message(mcp: SyncClient) -> None:
    text = text_of(mcp.call("search", {"query": "nccl timeout"}))
    assert SEED_ID in text and len(text) <= view.MAX_CHARS
    doc = json.loads(text_of(mcp.call("search", {"query": SEED_ERROR, "format": "json"})))
    assert doc["results"][0]["id"] == SEED_ID and doc["results"][0]["matched_by"] == "pattern"
    doc = json.loads(text_of(mcp.call("search", {"query": SEED_ID, "format": "json"})))
    assert doc["results"][0] == {
        "id": SEED_ID,
        "score": 1.0,
        "matched_by": "id",
        "signature": view.flat(_entry(SEED_ID).signature, 200),
    }
    doc = json.loads(
        text_of(mcp.call("search", {"query": "out of memory", "domain": "cuda", "limit": 20, "format": "json"}))
    )
    assert doc["results"] and all(r["id"].startswith("cuda/") for r in doc["results"])
    assert len(doc["results"]) <= 20
    for args, message in [
        ({"query": "  "}, "query is empty"),
        ({"query": "oom", "domain": "nope"}, "unknown domain 'nope'; the domains are: "),
        ({"query": "oom", "limit": 0}, "limit"),
        ({"query": "oom", "limit": 500}, "limit"),
    ]:
        result = mcp.call("search", args)
        assert result.is_error, args
        assert message in text_of(result), (args, text_of(result))


def test_report_outcome_without_a_service_says_how_to_configure_one(mcp: SyncClient) -> None:
    result = mcp.call("report_outcome", {"id": SEED_ID, "index": 0, "result": "worked"})
    assert result.is_error
    message = text_of(result)
    assert "ROOTCAUSE_SERVICE_URL" in message and "ROOTCAUSE_TOKEN" in message
    assert "rootcause token create" in message and "Nothing was recorded" in message
    # the call's own mistakes come first, whatever the configuration
    for args, expected in [
        ({"id": "x/y", "index": 0, "result": "worked"}, "no entry with id 'x/y'"),
        ({"id": SEED_ID, "index": 9, "result": "worked"}, "give an index from 0 to 2"),
        ({"id": SEED_ID, "index": "reboot", "result": "worked"}, "has no workaround 'reboot'"),
        ({"id": SEED_ID, "index": 0, "result": "great"}, "result"),
        ({"id": SEED_ID, "index": 0, "result": "worked", "env": "torch"}, "expected name==version"),
        ({"id": SEED_ID, "result": "worked"}, "give index"),
        ({"id": SEED_ID, "index": 0}, "give index"),
    ]:
        result = mcp.call("report_outcome", args)
        assert result.is_error, args
        assert expected in text_of(result), (args, text_of(result))


def test_tools_and_resources_are_listed_and_read(mcp: SyncClient) -> None:
    from rootcause.core.render import render_json, render_markdown

    seed = _entry(SEED_ID)

    def read(uri: str) -> TextResourceContents:
        (content,) = mcp.portal.call(mcp.client.read_resource, uri).contents
        assert isinstance(content, TextResourceContents)
        return content

    tools = {t.name: t for t in mcp.portal.call(mcp.client.list_tools).tools}
    assert set(tools) == {"diagnose", "get_entry", "search", "report_outcome"}
    for tool in tools.values():
        assert tool.description and len(tool.description) > 100
        assert tool.input_schema["type"] == "object"
        for prop in tool.input_schema["properties"].values():
            assert prop.get("description"), (tool.name, prop)
    assert tools["diagnose"].input_schema["required"] == ["text"]
    assert tools["get_entry"].input_schema["properties"]["lang"]["enum"] == ["en", "zh"]
    # one vocabulary with the REST API (kind, index, result); the former names stay accepted
    assert set(tools["report_outcome"].input_schema["required"]) == {"id"}
    assert {"kind", "index", "result", "workaround", "outcome"} <= set(
        tools["report_outcome"].input_schema["properties"]
    )
    assert "ctx" not in tools["report_outcome"].input_schema["properties"]
    assert tools["search"].annotations and tools["search"].annotations.read_only_hint
    assert tools["report_outcome"].annotations and not tools["report_outcome"].annotations.read_only_hint
    templates = {t.uri_template for t in mcp.portal.call(mcp.client.list_resource_templates).resource_templates}
    assert templates == {
        "rootcause://entries/{domain}/{slug}{?lang}",
        "rootcause://entries/{domain}/{slug}/json",
    }
    assert "rootcause://entries" in {str(r.uri) for r in mcp.portal.call(mcp.client.list_resources).resources}

    md = read(f"rootcause://entries/{SEED_ID}")
    assert md.mime_type == "text/markdown" and md.text == render_markdown(seed, "en") + "\n"
    zh = read(f"rootcause://entries/{SEED_ID}?lang=zh")
    assert zh.text == render_markdown(seed, "zh") + "\n"
    js = read(f"rootcause://entries/{SEED_ID}/json")
    assert js.mime_type == "application/json" and json.loads(js.text) == json.loads(render_json(seed))
    listing = read("rootcause://entries")
    ids = [line.split("\t")[0] for line in listing.text.splitlines()]
    assert SEED_ID in ids and len(ids) == len(set(ids)) > 100 and ids == sorted(ids)
    for uri in ("rootcause://entries/pytorch/no-such-entry", f"rootcause://entries/{SEED_ID}?lang=fr"):
        with pytest.raises(MCPError):
            mcp.portal.call(mcp.client.read_resource, uri)
