"""The deterministic `.tar.gz` a v0.2.0 discovery index points at (format/skill_archive.py): same files, same bytes;
what clients require of the archive (regular files at the root, ustar, fixed owners, modes and times)."""

from __future__ import annotations

import gzip
import io
import tarfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format.skill_archive import MAX_FILES, NotPackable, digest, pack

FILES = {"SKILL.md": (b"---\nname: a\n---\n", False), "scripts/run.sh": (b"echo hi\n", True),
         "assets/page.html": (b"<script>alert(1)</script>\n", False)}


def members(data: bytes) -> list[tarfile.TarInfo]:
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data)), mode="r:") as tar:
        return tar.getmembers()


def test_same_files_same_bytes_whatever_the_order():
    first = pack(FILES, 1_700_000_000)
    assert pack(dict(reversed(list(FILES.items()))), 1_700_000_000) == first
    assert pack(FILES, 1_700_000_001) != first  # the one mtime is in the headers
    assert digest(first).startswith("sha256:") and len(digest(first)) == 71


def test_headers_are_fixed_and_the_gzip_header_names_nothing():
    data = pack(FILES, 1_700_000_000)
    assert data[3] == 0 and data[4:8] == b"\0\0\0\0"  # no FNAME flag, mtime 0
    got = {m.name: m for m in members(data)}
    assert list(got) == sorted(FILES)
    for name, member in got.items():
        assert member.isreg() and member.mtime == 1_700_000_000
        assert (member.uid, member.gid, member.uname, member.gname) == (0, 0, "", "")
        assert member.mode == (0o755 if FILES[name][1] else 0o644)


def test_what_no_client_unpacks_is_refused():
    with pytest.raises(NotPackable, match="ustar"):
        pack({"SKILL.md": (b"x", False), "a" * 120 + ".md": (b"x", False)})
    with pytest.raises(NotPackable, match="at most"):
        pack({f"f{i}.md": (b"", False) for i in range(MAX_FILES + 1)})


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z0-9_]{1,12}(/[a-z0-9_.]{1,12}){0,3}", fullmatch=True),
                       st.tuples(st.binary(max_size=600), st.booleans()), min_size=1, max_size=8))
def test_packing_round_trips(files):
    data = pack(files)
    assert pack(files) == data
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data)), mode="r:") as tar:
        got = {m.name: (tar.extractfile(m).read(), m.mode == 0o755) for m in tar.getmembers()}
    assert got == files
