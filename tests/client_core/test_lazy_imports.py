"""What start-up work was made lazy behaves as before: the CJK patterns, StagedFile (no longer a dataclass)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from skillyard.client import search
from skillyard.client.store import StagedFile


def test_ascii_text_never_compiles_the_cjk_patterns():
    search._cjk_patterns.cache_clear()
    assert search.tokens("Merge PDF_files, v2") == ["merge", "pdf", "files", "v2"]
    assert search._cjk_patterns.cache_info().currsize == 0
    assert search.tokens("发票 pdf") == ["发票", "发", "票", "pdf"]
    assert search.tokens("发票", mode="query") == ["发票"]
    assert search.CJK_RE.match("发票") and not search.CJK_RE.match("pdf")
    with pytest.raises(AttributeError):
        search.NOT_A_NAME  # noqa: B018


def test_staged_file_is_an_immutable_value():
    a = StagedFile("a.txt", b"x")
    assert a == StagedFile("a.txt", b"x", False) and hash(a) == hash(StagedFile("a.txt", b"x"))
    assert a != StagedFile("a.txt", b"x", True) and a != ("a.txt", b"x", False)
    assert a.entry() == {"path": "a.txt", "size": 1,
                         "sha256": "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"}
    assert repr(a) == "StagedFile(path='a.txt', data=b'x', executable=False)"
    with pytest.raises(AttributeError):
        a.path = "b"
    with pytest.raises(AttributeError):
        del a.data
    assert sorted([StagedFile("b", b""), a], key=lambda f: f.path)[0] is a


def test_schema_dir_is_found_beside_the_package_without_importlib_resources(monkeypatch, tmp_path):
    from importlib import resources

    from skillyard.format import schemas

    expected = Path(str(resources.files("skillyard") / "schemas"))
    schemas.schema_dir.cache_clear()
    try:
        assert schemas.schema_dir() == expected and (schemas.schema_dir() / "registry.schema.json").is_file()
        schemas.schema_dir.cache_clear()
        monkeypatch.setattr(schemas, "__file__", str(tmp_path / "format" / "schemas.py"))  # no schemas/ there
        assert schemas.schema_dir() == expected  # importlib.resources, the fallback
    finally:
        schemas.schema_dir.cache_clear()


def test_loading_a_schema_does_not_import_importlib_resources():
    code = ("import sys\nfrom skillyard.format.schemas import load_schema\nload_schema('skill-lock.schema.json')\n"
            "print('importlib.resources' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
