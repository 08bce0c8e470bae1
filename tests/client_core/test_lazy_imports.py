"""What start-up work was made lazy behaves as before: the CJK patterns, StagedFile, the runtime records and search
hits (no longer dataclasses), the schemas folder, and what a cached `skill prompt` imports."""

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


def test_runtime_records_behave_as_the_dataclasses_did():
    from skillyard.runtime.discovery import Discovery, Root, Skill

    root = Root("/r", "user", 200)
    assert root == Root("/r", "user", 200) and hash(root) == hash(Root("/r", "user", 200))
    assert root != Root("/r", "user", 201) and root != ("/r", "user", 200) and len({root, Root("/r", "user", 200)}) == 1
    assert repr(root) == "Root(path='/r', source='user', priority=200)" and root.to_dict()["priority"] == 200
    with pytest.raises(AttributeError):
        root.path = "/x"
    with pytest.raises(AttributeError):
        del root.source
    skill = Skill("a", "d", "/r/a/SKILL.md", "/r/a", "user", "/r", 200, 5, controls={"x": [1, {"y": 2}]})
    assert skill.meta == {} and skill.diagnostics == [] and skill.model_invocable is True
    assert Skill("b", "d", "l", "f", "s", "r", 1, 2).meta is not Skill("b", "d", "l", "f", "s", "r", 1, 2).meta
    data = skill.to_dict()
    assert list(data) == ["name", "description", "location", "folder", "source", "root", "priority", "mtime_ns",
                          "model_invocable", "controls", "meta", "diagnostics"]
    data["controls"]["x"][1]["y"] = 3  # a copy, as asdict made
    assert skill.controls == {"x": [1, {"y": 2}]} and Skill(**skill.to_dict()) == skill
    with pytest.raises(TypeError):
        hash(skill)
    assert repr(skill).startswith("Skill(name='a', description='d',")
    found = Discovery([skill], {"n": 1})
    assert found.watched == {} and found == Discovery([skill], {"n": 1}, {}) and found.get("a") is skill
    assert found != Discovery([], {"n": 1})


def test_search_hits_turn_into_the_same_dicts():
    hit = search.Hit("n", "1.0", "main", "d", ["t"], 4.0)
    assert hit.to_dict() == {"name": "n", "version": "1.0", "source": "main", "description": "d", "tags": ["t"],
                             "score": 4.0, "shadowed": False, "pointer": False, "verified": None}
    assert hit.to_dict()["tags"] is not hit.tags and hit == search.Hit("n", "1.0", "main", "d", ["t"], 4.0)


def test_a_cached_skill_prompt_loads_no_dataclasses_typing_or_datetime(tmp_path):
    folder = tmp_path / ".agents" / "skills" / "demo"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: demo\ndescription: Does a thing. Use when needed.\n---\nBody.\n",
                                     encoding="utf-8")
    code = ("import sys\nfrom skillyard.cli.main import skill_main\nskill_main(['prompt'])\n"
            "print(sorted(m for m in ('dataclasses', 'typing', 'datetime', 'importlib.resources', 'yaml')"
            " if m in sys.modules))")
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "SKILLCLI_HOME": str(tmp_path / "skillcli")}
    for _run in ("scans and caches", "cached"):
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env,
                                cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert "demo" in result.stdout
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_sources_and_cache_entries_behave_as_the_dataclasses_did(tmp_path):
    from skillyard.client.cache import CacheEntry, SourceRegistry
    from skillyard.client.config import Source

    source = Source("acme", "https://example.invalid/registry.json")
    assert source == Source("acme", "https://example.invalid/registry.json", None, 100, False)
    assert hash(source) == hash(Source("acme", "https://example.invalid/registry.json"))
    assert source != Source("acme", "https://example.invalid/registry.json", builtin=True)
    assert repr(source) == ("Source(name='acme', url='https://example.invalid/registry.json', token_env=None, "
                            "priority=100, builtin=False)")
    assert source.to_dict() == {"name": "acme", "url": "https://example.invalid/registry.json", "priority": 100}
    with pytest.raises(AttributeError):
        source.priority = 1
    entry = CacheEntry(source, tmp_path, {"sha256": "x"}, _registry={"skills": []})
    assert entry.stale is False and entry.status == "cached" and entry.error is None and entry.sha256 == "x"
    assert "_registry" not in repr(entry) and "status='cached'" in repr(entry)
    assert entry == CacheEntry(source, tmp_path, {"sha256": "x"}, _registry={"skills": []})
    assert entry != CacheEntry(source, tmp_path, {"sha256": "x"})
    assert SourceRegistry(source, {}).checked_at is None and SourceRegistry(source, {}, True).stale is True


def test_a_warm_search_loads_no_dataclasses_or_yaml(published, skill_cli, monkeypatch):
    assert skill_cli("source", "add", published.url, "--name", "acme").code == 0
    assert skill_cli("search", "invoice").code == 0
    code = ("import sys\nfrom skillyard.client import config_cache\n"
            "config_cache.RACY_SECONDS = 0  # the config file was written just now\n"
            "from skillyard.cli.main import skill_main\nskill_main(['search', 'invoice'])\n"
            "print(sorted(m for m in ('dataclasses', 'yaml', 'importlib.resources') if m in sys.modules))")
    for _run in ("caches the parsed config", "warm"):
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
    assert "invoice-processor" in result.stdout and result.stdout.strip().splitlines()[-1] == "[]"
