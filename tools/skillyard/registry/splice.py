"""The outputs of a build after a change, made of the last build's bytes: the unchanged skills' lines are copied as
runs of bytes (`rendered.State.pieces`) between the documents' head and tail text, never decoded, split or joined as
text (at 20,000 skills that was most of a one-skill build's CPU in the main process).

The bytes are those `build.outputs_from_columns` gives for the same lines (tests/registry/test_incremental.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from skillyard.registry import compat
from skillyard.registry.compile import SCHEMA_VERSION, prepared_frame


class Outputs(Mapping):
    """Generated files by repo-relative path, held as pieces of UTF-8 bytes (`pieces`: what is written, much of it
    slices of the mapped state file) and joined and decoded only when read as the usual mapping of text."""

    def __init__(self, data: dict[str, list]):
        self._data = data
        self._text: dict[str, str] = {}

    def __getitem__(self, rel: str) -> str:
        if rel not in self._text:
            self._text[rel] = b"".join(self._data[rel]).decode("utf-8")
        return self._text[rel]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def pieces(self, rel: str) -> list:
        return self._data[rel]


def spliced_outputs(header: dict, bodies: list[list], *, agents_md: str | None, agents_header: str) -> Outputs:
    """Every generated file from the four outputs' bodies (pieces from `State.pieces`, at least one skill)."""
    index_header = {"schema_version": SCHEMA_VERSION, "name": header["name"]}
    documents = (("registry.json", header, "skills", "["), ("index.json", index_header, "skills", "{"),
                 (".claude-plugin/marketplace.json", compat.marketplace_header(header), "plugins", "["))
    data = {}
    for (rel, document, key, opener), body in zip(documents, bodies, strict=False):
        before, after = prepared_frame(document, key, opener)
        data[rel] = [before.encode("utf-8"), *body, after.encode("utf-8")]
    block = b"".join([compat.AGENTS_BLOCK_HEAD.encode("utf-8"), *bodies[3], compat.AGENTS_BLOCK_TAIL.encode("utf-8")])
    compat.check_agents_block(block)
    head, tail, strip = compat.agents_frame(agents_md, new_file_header=agents_header)
    data["AGENTS.md"] = [head.encode("utf-8"), block.rstrip(b"\n") if strip else block, tail.encode("utf-8")]
    return Outputs(data)


def write_pieces_atomic(path: Path, pieces: list, *, mode: int = 0o644) -> Path:
    """`fsutil.write_atomic` for data in pieces: one `os.writev` per batch straight from them (no 20 MB joined copy),
    into a temporary file beside `path` that is renamed over it, so readers and a crash see the old file or the new."""
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        try:
            _writev_all(fd, [memoryview(piece).cast("B") for piece in pieces if len(piece)])
        finally:
            os.close(fd)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return path


def _writev_all(fd: int, views: list[memoryview]) -> None:
    """Write every view in order, in batches the system accepts, resuming after short writes."""
    limit = min(getattr(os, "IOV_MAX", 1024), 1024)
    while views:
        written = os.writev(fd, views[:limit])
        while views and written >= len(views[0]):
            written -= len(views[0])
            views.pop(0)
        if views and written:
            views[0] = views[0][written:]
