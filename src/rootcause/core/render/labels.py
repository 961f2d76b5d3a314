"""Interface labels in English and Chinese, and the helpers that pick and shorten text (every renderer's)."""

from __future__ import annotations

from typing import Literal

from rootcause.core.model import Basis, Rate

Lang = Literal["en", "zh"]
LANGS: tuple[Lang, ...] = ("en", "zh")

LABELS: dict[str, dict[Lang, str]] = {
    "id": {"en": "ID", "zh": "ID"},
    "domain": {"en": "Domain", "zh": "领域"},
    "category": {"en": "Category", "zh": "类别"},
    "error_code": {"en": "Error Code", "zh": "错误代码"},
    "verification": {"en": "Verification", "zh": "验证状态"},
    "fix_rate": {"en": "Fix Rate", "zh": "修复率"},
    "confidence": {"en": "Confidence", "zh": "置信度"},
    "evidence": {"en": "Evidence", "zh": "证据数"},
    "first_seen": {"en": "First Seen", "zh": "首次发现"},
    "last_seen": {"en": "Last Seen", "zh": "最近发现"},
    "versions": {"en": "Version Compatibility", "zh": "版本兼容性"},
    "version": {"en": "Version", "zh": "版本"},
    "status": {"en": "Status", "zh": "状态"},
    "introduced": {"en": "Introduced", "zh": "引入版本"},
    "deprecated": {"en": "Deprecated", "zh": "弃用版本"},
    "notes": {"en": "Notes", "zh": "备注"},
    "root_cause": {"en": "Root Cause", "zh": "根因"},
    "official_docs": {"en": "Official Documentation", "zh": "官方文档"},
    "workarounds": {"en": "Workarounds", "zh": "解决方案"},
    "zh_steps": {"en": "中文步骤", "zh": "中文步骤"},
    "dead_ends": {"en": "Dead Ends", "zh": "无效尝试"},
    "dead_ends_intro": {"en": "Common approaches that don't work:", "zh": "常见但无效的做法："},
    "success": {"en": "success", "zh": "成功率"},
    "fail": {"en": "fail", "zh": "失败率"},
    "also_as": {"en": "Also available as:", "zh": "其他格式:"},
    "condition": {"en": "When", "zh": "适用条件"},
    "examples": {"en": "Real examples", "zh": "真实示例"},
    "sources": {"en": "Sources", "zh": "来源"},
    "related": {"en": "Related", "zh": "相关条目"},
    "estimated": {"en": "estimated", "zh": "估计值"},
    "measured": {"en": "measured", "zh": "实测值"},
    "reports": {"en": "reports", "zh": "份报告"},
    "withdrawn": {"en": "Withdrawn", "zh": "已撤回"},
    "generic": {"en": "generic", "zh": "通用"},
    "hardware": {"en": "Hardware", "zh": "硬件"},
    "os_specific": {"en": "Operating systems", "zh": "操作系统"},
    "provenance": {"en": "What backs these numbers", "zh": "数据依据"},
    "generations": {"en": "Message history", "zh": "消息措辞的演变"},
    "bounds_unchecked": {"en": "bounds not checked against release tags", "zh": "版本边界未经发布标签核实"},
    "bounds_read": {"en": "read from", "zh": "依据"},
    "reproduce": {"en": "Reproduce it", "zh": "亲手复现"},
    "reproduce_intro": {
        "en": "A program in this project that fails with this error, and variants that apply the fixes.",
        "zh": "本项目中会触发此错误的程序，以及应用各解决方案的变体。",
    },
    "command": {"en": "Command", "zh": "命令"},
    "fixed_variants": {"en": "Fixed variants", "zh": "修复变体"},
    "last_verified": {"en": "Last verified", "zh": "最近验证"},
    "not_verified": {"en": "not yet verified", "zh": "尚未验证"},
    "folder": {"en": "Folder", "zh": "目录"},
}

VERSION_STATUS_ZH = {"active": "活跃", "fixed": "已修复", "deprecated": "已弃用", "removed": "已移除"}


def label(key: str, lang: Lang) -> str:
    return LABELS[key][lang]


def pick(en: str, zh: str | None, lang: Lang) -> str:
    """The text in the asked language, falling back to English where no Chinese exists."""
    return zh if lang == "zh" and zh else en


def percent(rate: Rate | None) -> str:
    return "—" if rate is None else f"{round(rate.value * 100)}%"


def basis_note(rate: Rate | None, lang: Lang) -> str:
    """'estimated' or 'measured, N reports' (in the asked language)."""
    if rate is None:
        return ""
    if rate.basis is Basis.MEASURED:
        return f"{label('measured', lang)}, {rate.reports} {label('reports', lang)}"
    return label("estimated", lang)


def clip(text: str, limit: int) -> str:
    """At most ``limit`` characters, cut at a word boundary (never mid-word), with an ellipsis when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit + 1].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]
    return cut.rstrip(" ,;:.") + "…"
