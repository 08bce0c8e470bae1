"""`site/archives.py`: the archives a first build compresses in a thread are `skill_archive.pack`'s bytes, in
`archives` by name, with their digests remembered for the next build; at most AHEAD tars wait uncompressed."""

from __future__ import annotations

import threading

from skillyard.format import skill_archive
from skillyard.site import archives as site_archives


def test_compressed_archives_are_the_packed_bytes_whatever_the_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(site_archives, "AHEAD", 1)  # the caller waits for the oldest tar at every second one
    files = {f"skill-{n}": {"SKILL.md": (f"# Skill {n}\n".encode() * (n + 1), False), "run.sh": (b"echo\n", True)}
             for n in range(6)}
    packed = site_archives.ArchiveDigests(tmp_path / "digests.json", reuse=False)
    out: dict = {}
    for name, content in files.items():
        packed.compress(name, f"key-{name}", skill_archive.ustar(content, 1_700_000_000), out)
        assert len(packed._pending) - packed._waited <= 1 + 1
    packed.finish(out)
    assert [t.name for t in threading.enumerate() if t.name.startswith("site-archives")] == []
    for name, content in files.items():
        data = skill_archive.pack(content, 1_700_000_000)
        key, make, digest = out[name]
        assert (key, make(), digest) == (f"key-{name}", data, skill_archive.digest(data))
    packed.save()
    again = site_archives.ArchiveDigests(tmp_path / "digests.json", reuse=True)
    assert again.known("key-skill-3") == out["skill-3"][2]
