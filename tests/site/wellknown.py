"""Reading the well-known tree the site serves: the discovery index (schema 0.2.0) and each skill's archive."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from pathlib import Path

SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
# What a browser may run when the site's origin serves it: none of it is ever under /.well-known/.
RUNNABLE_SUFFIXES = (".html", ".htm", ".xhtml", ".js", ".mjs", ".svg", ".xml", ".xsl", ".css", ".pdf", ".rs")


def archive_files(data: bytes) -> dict[str, bytes]:
    """{path: bytes} of a served `.tar.gz`, asserting what clients require: regular files only, no links, SKILL.md
    at the root, ustar headers, deterministic owners and modes, a gzip header with no time and no name."""
    assert data[:2] == b"\x1f\x8b" and data[3] == 0 and data[4:8] == b"\0\0\0\0", "gzip: no flags, mtime 0"
    files = {}
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data)), mode="r:") as tar:
        for member in tar.getmembers():
            assert member.isreg(), member.name
            assert (member.uid, member.gid, member.uname, member.gname) == (0, 0, "", "")
            assert member.mode in (0o644, 0o755), oct(member.mode)
            assert not member.pax_headers, member.name
            files[member.name] = tar.extractfile(member).read()
    assert "SKILL.md" in files
    return files


def served_archives(well_known: Path) -> dict[str, dict[str, bytes]]:
    """{name: archive_files} of every skill the index lists, checking each entry's shape and digest."""
    index = json.loads((well_known / "index.json").read_text(encoding="utf-8"))
    assert set(index) == {"$schema", "skills"} and index["$schema"] == SCHEMA
    names = [entry["name"] for entry in index["skills"]]
    assert names == sorted(names)
    out = {}
    for entry in index["skills"]:
        assert set(entry) == {"name", "description", "type", "url", "digest"} and entry["type"] == "archive"
        assert entry["url"] == f"{entry['name']}.tar.gz" and 0 < len(entry["description"]) <= 1024
        data = (well_known / entry["url"]).read_bytes()
        assert entry["digest"] == "sha256:" + hashlib.sha256(data).hexdigest()
        out[entry["name"]] = archive_files(data)
    return out


def runnable_files(well_known: Path) -> list[str]:
    """Files under the well-known tree a browser could run, or hidden ones (expected: none)."""
    return sorted(str(p.relative_to(well_known)) for p in well_known.rglob("*")
                  if p.is_file() and (p.name.lower().endswith(RUNNABLE_SUFFIXES)
                                      or any(part.startswith(".") for part in p.relative_to(well_known).parts)))
