"""Where things are: which Markdown code fences are real, given the HTML blocks (`<pre>`, `<script>` …) around
them (`context.Context.fences` calls it), and whether a URL is on one of a list of hosts (its host itself, not a
look-alike that only contains the name)."""

from __future__ import annotations

import re


def outside_html_blocks(text: str, fences: list[tuple[int, int]], html_block: re.Pattern) -> list[tuple[int, int]]:
    """The fences not inside an HTML block (`<pre>`, `<script>` …), read in document order: a `<script src=…>` line
    inside a fence is code, not the start of a block that would swallow every later fence."""
    kept: list[tuple[int, int]] = []
    at, pos = 0, 0
    while True:
        block = html_block.search(text, pos)
        if block is None:
            return kept + fences[at:]
        while at < len(fences) and fences[at][0] < block.start():
            kept.append(fences[at])
            at += 1
        if kept and block.start() < kept[-1][1]:  # the opening tag is inside the fence just kept: code
            pos = kept[-1][1]
            continue
        pos = max(block.end(), block.start() + 1)
        while at < len(fences) and fences[at][0] < pos:
            at += 1  # a fence inside the block is text


def on_listed_host(url: str, hosts: tuple[str, ...]) -> bool:
    """`url`'s host is one of `hosts` (or a subdomain of it) and, when the entry names a path, under that path:
    `https://sh.rustup.rs/x`, not `https://sh.rustup.rs.example.invalid` nor `https://x.invalid/sh.rustup.rs`."""
    rest = url.lower().split("://", 1)[-1]
    host, _, path = rest.partition("/")
    host = host.split("@")[-1].split(":")[0]
    for entry in hosts:
        entry_host, _, entry_path = entry.partition("/")
        if (host == entry_host or host.endswith("." + entry_host)) and path.startswith(entry_path):
            return True
    return False
