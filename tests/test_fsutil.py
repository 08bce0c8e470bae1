"""Atomic writes: the old content or the new, never a part, and no temporary files left behind."""

from __future__ import annotations

import stat

import pytest

from skillyard.fsutil import write_atomic
from skillyard.units import human_size


def test_write_replaces_whole_file_with_the_asked_mode(tmp_path):
    target = tmp_path / "deep" / "registry.json"
    write_atomic(target, "发票\n")
    assert target.read_bytes() == "发票\n".encode()
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    write_atomic(target, b"new", mode=0o600, durable=True)
    assert target.read_bytes() == b"new" and stat.S_IMODE(target.stat().st_mode) == 0o600
    assert sorted(p.name for p in target.parent.iterdir()) == ["registry.json"]


def test_a_durable_write_flushes_the_file_and_then_its_folder(tmp_path, monkeypatch):
    import os

    flushed = []
    real = os.fsync

    def record(fd):
        flushed.append(stat.S_ISDIR(os.fstat(fd).st_mode))
        return real(fd)

    monkeypatch.setattr(os, "fsync", record)
    write_atomic(tmp_path / "a.json", "x", durable=True)
    assert flushed == [False, True]
    flushed.clear()
    write_atomic(tmp_path / "b.json", "x")
    assert flushed == []


def test_a_failed_write_keeps_the_old_content_and_no_temp_file(tmp_path):
    target = tmp_path / "lock.json"
    target.write_text("old")
    with pytest.raises(TypeError):
        write_atomic(target, 42)  # type: ignore[arg-type]
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["lock.json"]


@pytest.mark.parametrize(("size", "shown"), [(0, "0 B"), (1023, "1023 B"), (1024, "1.0 KB"), (80159, "78.3 KB"),
                                             (5 * 1024 * 1024, "5.0 MB")])
def test_human_size(size, shown):
    assert human_size(size) == shown
