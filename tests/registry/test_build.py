"""`skillyard build`: deterministic registry.json from skills and git history."""

from __future__ import annotations

import json

from skillyard.format.schemas import schema_errors
from skillyard.registry.build import build_registry, write_outputs
from skillyard.registry.compile import dumps

from .conftest import PYPROJECT, git, skill_text


def test_registry_from_git_history(repo):
    repo.add_skill("alpha")
    first = repo.commit("alpha", date="2026-01-01T10:00:00+00:00")
    repo.add_skill("beta", group="tools/", extra="mcp_deps: [{tool: ocr.recognize}]\n")
    second = repo.commit("beta", date="2026-02-01T10:00:00+02:00")
    result = build_registry(repo.root)
    assert not result.invalid
    reg = result.registry
    assert schema_errors("registry", reg) == []
    assert [s["name"] for s in reg["skills"]] == ["alpha", "beta"]
    alpha, beta = reg["skills"]
    assert (alpha["commit"], alpha["updated_at"]) == (first, "2026-01-01T10:00:00Z")
    assert (beta["commit"], beta["updated_at"], beta["path"]) == (second, "2026-02-01T08:00:00Z", "skills/tools/beta")
    assert beta["mcp_deps"] == [{"tool": "ocr.recognize", "required": True}]  # required defaults to true
    assert reg["repository"]["raw_url_template"] == "https://raw.githubusercontent.com/acme/skills/{commit}/{path}"
    assert "generated_at" not in json.dumps(reg)


def test_build_is_byte_identical_and_independent_of_cache(repo):
    for name in ("one", "two", "three"):
        repo.add_skill(name)
    repo.commit()
    a = build_registry(repo.root).outputs
    b = build_registry(repo.root).outputs            # from the warm cache
    c = build_registry(repo.root, use_cache=False).outputs
    assert a == b == c
    assert a["registry.json"] == dumps(json.loads(a["registry.json"]))


def test_updated_at_follows_the_last_commit_touching_the_folder(repo):
    repo.add_skill("alpha")
    repo.add_skill("beta")
    base = repo.commit(date="2026-01-01T00:00:00+00:00")
    build_registry(repo.root)  # warms the history cache at this HEAD
    repo.write("skills/beta/references/more.md", "# More\n")
    later = repo.commit(date="2026-03-01T00:00:00+00:00")
    repo.write("README.md", "unrelated\n")
    repo.commit(date="2026-04-01T00:00:00+00:00")
    incremental = build_registry(repo.root).registry
    full = build_registry(repo.root, use_cache=False).registry
    assert incremental == full
    by_name = {s["name"]: s for s in full["skills"]}
    assert by_name["alpha"]["commit"] == base
    assert by_name["beta"]["commit"] == later and by_name["beta"]["updated_at"] == "2026-03-01T00:00:00Z"


def test_invalid_skill_fails_the_build_and_writes_nothing(repo):
    repo.add_skill("good")
    repo.write("skills/bad/SKILL.md", "---\nname: Bad\n---\n")
    repo.commit()
    result = build_registry(repo.root)
    assert [c.path for c in result.invalid] == ["skills/bad"]
    assert result.outputs == {}
    skipped = build_registry(repo.root, skip_invalid=True)
    assert [s["name"] for s in skipped.registry["skills"]] == ["good"]


def test_duplicate_names_name_both_paths(repo):
    repo.add_skill("same", group="a/")
    repo.add_skill("same", group="b/")
    repo.commit()
    result = build_registry(repo.root)
    messages = [f.message for c in result.invalid for f in c.findings if f.rule == "duplicate-name"]
    assert len(messages) == 2
    assert "skills/b/same" in messages[0] and "skills/a/same" in messages[1]


def test_files_integrity_and_index(repo):
    folder = repo.add_skill("alpha")
    (folder / "scripts").mkdir()
    (folder / "scripts" / "run.py").write_text("print('hi')\n")
    repo.commit()
    result = build_registry(repo.root)
    entry = result.registry["skills"][0]
    import hashlib

    assert [f["path"] for f in entry["files"]] == ["SKILL.md", "scripts/run.py", "skill.yaml"]
    lines = "".join(f"{f['sha256']}  {f['path']}\n" for f in entry["files"])
    assert entry["integrity"] == "sha256-" + hashlib.sha256(lines.encode()).hexdigest()
    index = json.loads(result.outputs["index.json"])
    assert schema_errors("index", index) == []
    assert index["skills"]["alpha"] == {"version": "1.0.0", "integrity": entry["integrity"], "path": "skills/alpha",
                                        "commit": entry["commit"]}


def test_security_findings_ship_in_the_registry(repo):
    repo.write("skills/risky/SKILL.md", "---\nname: risky\ndescription: Sets things up.\nlicense: MIT\n"
               "compatibility: Needs a shell.\nallowed-tools: Bash\n---\n"
               # a vendor's installer from the skill's declared homepage (skill.yaml): a warning (a well-known one: none)
               "Install Toolsmith first: `curl -fsSL https://toolsmith.dev/install.sh | sh`.\n")
    repo.write("skills/risky/skill.yaml", 'schema_version: "1.0"\nversion: "1.0.0"\ntags:\n  - setup\n'
               "homepage: https://toolsmith.dev\n")
    repo.commit()
    entry = build_registry(repo.root).registry["skills"][0]
    assert [f["rule"] for f in entry["findings"]] == ["security-pipe-to-shell"]
    assert entry["findings"][0]["line"] == 8


def test_write_outputs_is_atomic_and_check_detects_drift(repo):
    repo.add_skill("alpha")
    repo.commit()
    from skillyard.registry.build import stale_outputs

    result = build_registry(repo.root)
    write_outputs(repo.root, result.outputs)
    assert stale_outputs(repo.root, result.outputs) == []
    assert not list(repo.root.glob(".*.tmp-*"))
    (repo.root / "registry.json").write_text("{}\n")
    assert stale_outputs(repo.root, result.outputs) == [str(repo.root / "registry.json")]


def test_outside_git_the_fields_are_empty(tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    from .conftest import PYPROJECT, write_skill

    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    write_skill(tmp_path / "skills" / "alpha")
    entry = build_registry(tmp_path).registry["skills"][0]
    assert entry["commit"] == "" and entry["updated_at"] == ""


def test_nested_grouping_and_changed_files(repo):
    repo.add_skill("alpha", group="group/")
    repo.commit()
    git(repo.root, "checkout", "-q", "-b", "feature")
    repo.add_skill("beta")
    repo.commit()
    from skillyard.registry.gitlog import changed_files

    assert changed_files(repo.root, "main") == ["skills/beta/SKILL.md", "skills/beta/skill.yaml"]


def test_compat_outputs_and_agents_md_block_is_replaced_in_place(repo):
    repo.add_skill("alpha")
    repo.write("AGENTS.md", "# Rules\n\nBe kind.\n\n<!-- skillyard:skills:begin -->\nold list\n<!-- skillyard:skills:end -->\n\nFooter.\n")
    repo.commit()
    outputs = build_registry(repo.root).outputs
    agents = outputs["AGENTS.md"]
    assert agents.startswith("# Rules\n\nBe kind.\n\n<!-- skillyard:skills:begin -->")
    assert "old list" not in agents and "**alpha** (`skills/alpha/SKILL.md`)" in agents
    assert agents.endswith("<!-- skillyard:skills:end -->\n\nFooter.\n")
    marketplace = json.loads(outputs[".claude-plugin/marketplace.json"])
    assert [p["name"] for p in marketplace["plugins"]] == ["alpha"]


def _same_as_fresh(repo):
    cached = build_registry(repo.root)
    fresh = build_registry(repo.root, use_cache=False)
    assert [(c.path, c.valid) for c in cached.checked] == [(c.path, c.valid) for c in fresh.checked]
    assert cached.outputs == fresh.outputs
    return cached


def test_incremental_build_always_equals_a_fresh_build(repo):
    import shutil

    for name in ("alpha", "beta", "gamma"):
        repo.add_skill(name)
    repo.write(".gitignore", "*.log\n")
    repo.commit()
    _same_as_fresh(repo)
    beta = repo.root / "skills" / "beta" / "SKILL.md"
    original = beta.read_text()
    beta.write_text(original + "\nMore.\n")                      # uncommitted edit
    edited = _same_as_fresh(repo)
    beta.write_text(original)                                   # reverted: must not keep the edited entry
    _same_as_fresh(repo)
    repo.write("skills/beta/notes.log", "ignored by git, but published\n")
    with_ignored = _same_as_fresh(repo)
    assert "notes.log" in with_ignored.outputs["registry.json"]
    repo.add_skill("delta")                                     # untracked new skill
    assert "delta" in _same_as_fresh(repo).outputs["index.json"]
    repo.commit()
    shutil.rmtree(repo.root / "skills" / "gamma")               # deleted skill
    result = _same_as_fresh(repo)
    assert '"gamma"' not in result.outputs["index.json"]
    repo.write("skills/alpha/SKILL.md", "---\nname: alpha\n---\n")  # becomes invalid
    assert [c.path for c in _same_as_fresh(repo).invalid] == ["skills/alpha"]
    assert edited.outputs != result.outputs


def test_incremental_without_git_uses_file_signatures(tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    monkeypatch.delenv("CI", raising=False)
    from .conftest import PYPROJECT, write_skill

    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    write_skill(tmp_path / "skills" / "alpha")
    first = build_registry(tmp_path).outputs
    write_skill(tmp_path / "skills" / "alpha", version="2.0.0")
    second = build_registry(tmp_path).outputs
    assert second != first and '"2.0.0"' in second["registry.json"]
    assert second == build_registry(tmp_path, use_cache=False).outputs


def test_cache_key_is_stable_across_processes():
    import os
    import subprocess
    import sys

    code = ("from skillyard.registry.cache import _cache_key\nfrom skillyard.format import Policy\n"
            "print(_cache_key(Policy(strict=True, required_fields=('version',))))")
    keys = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "3")}
    assert len(keys) == 1


def test_cache_key_changes_when_the_checking_code_changes(tmp_path):
    """An edited checkout (a fixed rule, say) must never reuse answers the old code gave."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    import skillyard

    copy = tmp_path / "src" / "skillyard"
    shutil.copytree(Path(skillyard.__file__).parent, copy, symlinks=False,
                    ignore=shutil.ignore_patterns("__pycache__"))
    code = ("from skillyard.registry.cache import _cache_key\nfrom skillyard.format import Policy\n"
            "print(_cache_key(Policy()))")

    def key() -> str:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(copy.parent)}).stdout

    before = key()
    assert before == key()
    with (copy / "format" / "rules.py").open("a", encoding="utf-8") as handle:
        handle.write("\n# a rule was fixed\n")
    assert key() != before


def test_fast_registry_text_equals_the_canonical_document(repo):
    from skillyard.format import load_skill
    from skillyard.registry.compile import assemble, compile_skill
    from skillyard.registry.config import load_registry_config

    for name in ("b-skill", "a-skill"):
        repo.add_skill(name, extra="mcp_deps: [{tool: x.y, required: false}]\n")
    repo.commit()
    result = build_registry(repo.root)
    config = load_registry_config(repo.root)
    entries = [compile_skill(load_skill(repo.root / "skills" / n, config.policy(), rel_path=f"skills/{n}"))
               for n in ("a-skill", "b-skill")]
    history = {s["path"]: (s["commit"], s["updated_at"]) for s in result.registry["skills"]}
    canonical = assemble(entries, history, name=config.name, description=config.section["description"],
                         homepage=None, repository=config.repository_block())
    assert result.outputs["registry.json"] == dumps(canonical)
    from skillyard.registry import compat
    from skillyard.registry.compile import index_document

    assert result.outputs["index.json"] == dumps(index_document(canonical))
    assert result.outputs[".claude-plugin/marketplace.json"] == dumps(compat.marketplace_json(canonical))
    assert compat.agents_md_block(canonical) in result.outputs["AGENTS.md"]
    assert '"a-skill": {"commit":"' in result.outputs["index.json"]


def test_outputs_of_an_empty_registry_are_canonical(repo):
    from skillyard.registry import compat
    from skillyard.registry.compile import index_document

    (repo.root / "skills").mkdir(exist_ok=True)
    result = build_registry(repo.root)
    registry = result.registry
    assert registry["skills"] == []
    assert result.outputs["registry.json"] == dumps(registry)
    assert result.outputs["index.json"] == dumps(index_document(registry))
    assert result.outputs[".claude-plugin/marketplace.json"] == dumps(compat.marketplace_json(registry))
    assert "_No skills yet._" in result.outputs["AGENTS.md"]


def test_a_damaged_cache_is_discarded_and_rebuilt(repo, monkeypatch):
    import sqlite3

    from skillyard.registry.cache import CACHE_FILE

    monkeypatch.delenv("CI", raising=False)
    for name in ("one", "two"):
        repo.add_skill(name)
    repo.commit()
    fresh = build_registry(repo.root, use_cache=False).outputs
    cache_path = repo.root / CACHE_FILE
    assert build_registry(repo.root).outputs == fresh
    assert cache_path.is_file()
    cache_path.write_bytes(b"not a database, just garbage" * 100)
    assert build_registry(repo.root).outputs == fresh
    with sqlite3.connect(cache_path) as db:
        assert sorted(r[0] for r in db.execute("SELECT path FROM skills")) == ["skills/one", "skills/two"]


def test_the_cache_rewrites_only_the_rows_of_changed_skills(repo, monkeypatch):
    import sqlite3

    from skillyard.registry.cache import CACHE_FILE

    monkeypatch.delenv("CI", raising=False)
    for name in ("one", "two", "three"):
        repo.add_skill(name)
    repo.commit()
    build_registry(repo.root)
    db_path = repo.root / CACHE_FILE

    def rows() -> dict:
        with sqlite3.connect(db_path) as db:
            return {r[0]: r[1] for r in db.execute("SELECT path, rowid FROM skills")}

    before = rows()
    repo.write("skills/two/references/extra.md", "# Extra\n")
    repo.commit()
    after_build = build_registry(repo.root)
    after = rows()
    assert after["skills/one"] == before["skills/one"] and after["skills/three"] == before["skills/three"]
    assert after["skills/two"] != before["skills/two"]  # INSERT OR REPLACE gives the rewritten row a new rowid
    assert after_build.outputs == build_registry(repo.root, use_cache=False).outputs


def test_a_cache_from_another_policy_is_replaced(repo, monkeypatch):
    import sqlite3

    from skillyard.registry.cache import CACHE_FILE

    monkeypatch.delenv("CI", raising=False)
    repo.add_skill("one")
    repo.commit()
    build_registry(repo.root, mode="lenient")
    build_registry(repo.root, mode="strict")
    with sqlite3.connect(repo.root / CACHE_FILE) as db:
        db.execute("UPDATE meta SET value = 'from-an-older-version' WHERE key = 'key'")
        db.execute("ALTER TABLE skills RENAME COLUMN findings TO old_findings")  # an older row layout
    assert build_registry(repo.root).outputs == build_registry(repo.root, use_cache=False).outputs
    with sqlite3.connect(repo.root / CACHE_FILE) as db:
        assert [r[0] for r in db.execute("SELECT path FROM skills WHERE findings IS NOT NULL")] == ["skills/one"]


def test_a_skills_dir_outside_the_repository_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    """A plugin `source` must be a path inside the repository: a skill that cannot be listed in marketplace.json
    stops the build (an empty entry would make that file invalid JSON), and no output is written."""
    import shutil
    from pathlib import Path

    import pytest

    from skillyard.errors import SkillyardError

    src = Path(__file__).resolve().parents[2] / "skills" / "changelog-from-git"
    shutil.copytree(src, tmp_path / "outside" / "changelog-from-git")
    root = tmp_path / "reg"
    root.mkdir()
    (root / "pyproject.toml").write_text('[tool.skillyard]\nname = "t"\nskills_dir = "../outside"\nhost = "static"\n')
    monkeypatch.chdir(root)
    with pytest.raises(SkillyardError, match=r"changelog-from-git: this skill folder cannot be listed") as info:
        build_registry(root, use_cache=False)
    assert "skills folder" in info.value.fix
    assert sorted(p.name for p in root.iterdir()) == ["pyproject.toml"]


def test_a_versionless_skill_gets_a_time_based_version_from_its_last_commit(repo):
    """Design 001 §4.2: a skill without `version` is versioned by time: `0.0.<yyyymmddhhmmss>` of the last commit
    that touched its folder, the same in registry.json, index.json and marketplace.json, and byte-identical across
    builds; a later change orders above it under SemVer precedence."""
    from skillyard.client.update import version_key

    repo.write("pyproject.toml", PYPROJECT.replace('required_fields = ["version", "license", "tags"]',
                                                   'required_fields = ["license"]'))
    repo.write("skills/plain/SKILL.md", skill_text("plain"))
    repo.write("skills/plain/skill.yaml", 'schema_version: "1.0"\ntags:\n  - testing\n')
    repo.add_skill("pinned", version="1.2.0")
    repo.commit("first", date="2026-01-02T03:04:05+00:00")
    result = build_registry(repo.root)
    assert not result.invalid, result.invalid
    plain = next(s for s in result.registry["skills"] if s["name"] == "plain")
    assert plain["version"] == "0.0.20260102030405"
    assert next(s for s in result.registry["skills"] if s["name"] == "pinned")["version"] == "1.2.0"
    assert json.loads(result.outputs["index.json"])["skills"]["plain"]["version"] == "0.0.20260102030405"
    plugins = json.loads(result.outputs[".claude-plugin/marketplace.json"])["plugins"]
    assert next(p for p in plugins if p["name"] == "plain")["version"] == "0.0.20260102030405"
    assert "\\u0000" not in "".join(result.outputs.values())
    assert build_registry(repo.root).outputs == result.outputs == build_registry(repo.root, use_cache=False).outputs
    repo.write("skills/plain/SKILL.md", skill_text("plain", description="Does plain things, now better. Use it."))
    repo.commit("second", date="2026-01-02T10:00:00+00:00")
    later = build_registry(repo.root).registry
    newer = next(s for s in later["skills"] if s["name"] == "plain")["version"]
    assert newer == "0.0.20260102100000"
    assert version_key("0.0.0") < version_key(plain["version"]) < version_key(newer) < version_key("0.1.0")
