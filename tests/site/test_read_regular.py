"""`publish.read_regular`, which reads every SKILL.md and served file of a build: the bytes up to the limit (one more
tells the caller the file grew), in as few reads as the file needs."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.site import publish


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=3000), limit=st.integers(min_value=0, max_value=4000))
def test_the_first_limit_plus_one_bytes_are_read(tmp_path_factory, data, limit):
    folder = tmp_path_factory.mktemp("r")
    (folder / "f").write_bytes(data)
    assert publish.read_regular(folder, "f", limit) == data[:limit + 1]


def test_a_file_is_read_in_one_call_when_it_fits(tmp_path, monkeypatch):
    (tmp_path / "f").write_bytes(b"x" * 5000)
    calls: list[int] = []
    real = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: calls.append(n) or real(fd, n))
    assert publish.read_regular(tmp_path, "f", 10_000) == b"x" * 5000
    assert calls == [10_001]  # the short read is the end: no second read for b""


@pytest.mark.parametrize("what", ["link", "fifo"])
def test_only_regular_files_reached_without_links_are_read(tmp_path, what):
    (tmp_path / "real").write_bytes(b"secret")
    if what == "link":
        (tmp_path / "f").symlink_to(tmp_path / "real")
    else:
        os.mkfifo(tmp_path / "f")
    with pytest.raises(publish.UnreadableFile):
        publish.read_regular(tmp_path, "f", 100)
