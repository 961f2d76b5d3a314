"""The seed entry renders exactly as the two seed documents (golden references)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from testkit import SEED_ID, SEEDS, run_cli

from rootcause.adapters.loading import load_entries
from rootcause.core.render import render_document, render_html, render_markdown


@pytest.fixture(scope="module")
def seed():
    return next(e for e in load_entries() if e.id == SEED_ID)


def test_markdown_is_byte_for_byte_the_seed(seed) -> None:
    golden = (SEEDS / "nccl-timeout-allreduce.md").read_text(encoding="utf-8")
    assert render_markdown(seed) == golden.rstrip("\n")


def test_cli_show_markdown_matches_apart_from_final_newline() -> None:
    result = run_cli("show", SEED_ID, "--format", "md")
    assert result.returncode == 0, result.stderr
    golden = (SEEDS / "nccl-timeout-allreduce.md").read_text(encoding="utf-8")
    assert result.stdout.rstrip("\n") == golden.rstrip("\n")


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_html_main_inner_text_equals_the_seed_page(seed, browser, tmp_path: Path) -> None:
    page_file = tmp_path / "index.html"
    page_file.write_text(render_html(seed), encoding="utf-8")
    page = browser.new_page()
    page.goto(page_file.as_uri())
    shown = page.inner_text("main")
    page.close()
    golden = (SEEDS / "nccl-timeout-allreduce.page.txt").read_text(encoding="utf-8")
    assert _squash(shown) == _squash(golden)


def test_html_page_marks_every_rate_as_estimated(seed, browser, tmp_path: Path) -> None:
    page_file = tmp_path / "index.html"
    page_file.write_text(render_html(seed), encoding="utf-8")
    page = browser.new_page()
    page.goto(page_file.as_uri())
    marks = page.eval_on_selector_all(
        "[data-basis=estimate]",
        "els => els.map(e => getComputedStyle(e, '::after').content)",
    )
    provenance = page.inner_text("aside.provenance")
    page.close()
    assert len(marks) == 2 + 1 + 3 + 2  # fix rate, confidence, evidence, 3 workarounds, 2 dead ends
    assert all("estimated" in m for m in marks)
    assert "Fix Rate 75%: estimated" in provenance


def test_chinese_markdown_uses_chinese_labels_and_text(seed) -> None:
    zh = render_markdown(seed, "zh")
    for word in ("修复率", "根因", "版本兼容性", "解决方案", "无效尝试", "验证状态"):
        assert word in zh
    assert "由于网络拥塞" in zh
    assert "Root Cause" not in zh and "Workarounds" not in zh


def test_chinese_html_links_back_to_english(seed, browser, tmp_path: Path) -> None:
    page_file = tmp_path / "zh.html"
    page_file.write_text(render_html(seed, "zh"), encoding="utf-8")
    page = browser.new_page()
    page.goto(page_file.as_uri())
    text = page.inner_text("main")
    lang = page.get_attribute("html", "lang")
    page.close()
    assert lang == "zh-CN"
    for word in ("修复率", "置信度", "证据数", "首次发现", "版本兼容性", "根因", "解决方案", "无效尝试"):
        assert word in text
    assert "其他格式: JSON · Markdown 中文 · English" in text


def test_json_keeps_errorcanon_field_names(seed) -> None:
    data = json.loads(render_document(seed, "json"))
    leading = [
        "id",
        "signature",
        "signature_zh",
        "regex",
        "domain",
        "category",
        "subcategory",
        "root_cause",
        "root_cause_type",
        "root_cause_zh",
        "versions",
        "os_specific",
        "dead_ends",
        "workarounds",
    ]
    assert list(data)[: len(leading)] == leading
    assert set(data["versions"][0]) >= {"version", "introduced", "deprecated", "removed", "behavior_change", "status"}
    assert set(data["dead_ends"][0]) >= {"action", "why_fails", "fail_rate", "condition", "sources"}
    assert set(data["workarounds"][0]) >= {"action", "success_rate", "how"}
    assert data["fix_rate"] == 0.75 and data["rates"]["fix_rate"]["basis"] == "estimate"
    assert data["versions"][0]["version"] == "torch>=1.10"


def test_html_escapes_entry_text(seed) -> None:
    hostile = seed.model_copy(update={"root_cause": "<script>alert(1)</script> & <b>bold</b>"})
    html = render_html(hostile)
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in html
    md = render_markdown(hostile)
    assert "<script>" not in md


def test_text_view_shows_the_entry() -> None:
    result = run_cli("show", SEED_ID, "--format", "text", "--lang", "zh")
    assert result.returncode == 0, result.stderr
    assert "根因" in result.stdout and "NCCL_IB_TIMEOUT" in result.stdout


def test_show_unknown_id_is_a_clear_error() -> None:
    result = run_cli("show", "pytorch/does-not-exist")
    assert result.returncode == 2
    assert "no entry with id 'pytorch/does-not-exist'" in result.stderr


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_ai_generated_page_sends_the_first_screen_to_the_reviewed_entry(seed, lang) -> None:
    """The seed is AI-generated: its 'what to do first' block links the reviewed same-as entries and does
    not promote its own unverified advice (NCCL_IB_TIMEOUT), which stays in the golden detail below."""
    html = render_html(seed, lang)
    first = html[
        html.index('<aside class="first-fix"') : html.index("</aside>", html.index('<aside class="first-fix"'))
    ]
    same_as = [r.id for r in seed.related if r.type.value == "same-as"]
    assert same_as and all(f"<code>{i}</code>" in first for i in same_as)
    assert "NCCL_IB_TIMEOUT" not in first
    assert "NCCL_IB_TIMEOUT" in html  # the entry's own text is still on the page, below


def test_grounded_page_leads_with_its_best_supported_workaround() -> None:
    entry = next(e for e in load_entries() if e.id == "cuda/oom-caching-allocator")
    html = render_html(entry)
    first = html[
        html.index('<aside class="first-fix"') : html.index("</aside>", html.index('<aside class="first-fix"'))
    ]
    best = max(entry.workarounds, key=lambda w: w.success_rate.value)
    assert best.action.split(":")[0] in first and "<pre><code>" in first
