"""The Fleet section of the HTML summary (stub)."""

from __future__ import annotations

SUMMARY: list = []


def findings(results) -> list[str]:
    return []


def charts(results) -> dict:
    return {}
