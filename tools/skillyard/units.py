"""Sizes for people: one format for every command and page (1 KB = 1,024 bytes)."""

from __future__ import annotations


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1024 / 1024:.1f} MB"
