"""`skill publish` against the GitHub stand-in: fork, blobs -> tree -> commit -> ref, one PR."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from botkit import REGISTRY_SLUG
from ghstub import git_blob_sha

from skillyard.cli.main import skill_main

SKILL_MD = """---
name: {name}
description: Turns rough meeting notes into a tidy summary with owners and dates. Use when the user pastes notes.
license: MIT
---

# {name}

1. Read the notes.
2. Run `scripts/tidy.py` on them.
3. Follow references/style.md.
"""
# The portable form: registry fields live in skill.yaml beside SKILL.md.
SKILL_YAML = """\
schema_version: "1.0"
version: 1.2.0
author: carol
maintainers:
  - carol
tags:
  - notes
  - writing
"""


def make_skill(root: Path, name: str = "my-skill", extra: dict[str, bytes] | None = None) -> Path:
    folder = root / name
    (folder / "scripts").mkdir(parents=True)
    (folder / "references").mkdir()
    (folder / "SKILL.md").write_text(SKILL_MD.format(name=name), encoding="utf-8")
    (folder / "skill.yaml").write_text(SKILL_YAML, encoding="utf-8")
    (folder / "scripts" / "tidy.py").write_text("print('tidy')\n", encoding="utf-8")
    os.chmod(folder / "scripts" / "tidy.py", 0o755)
    (folder / "references" / "style.md").write_text("# Style\n\nShort lines.\n", encoding="utf-8")
    for rel, data in (extra or {}).items():
        (folder / rel).write_bytes(data)
    return folder


@pytest.fixture
def author_env(monkeypatch, tmp_path):
    monkeypatch.setenv("GITHUB_TOKEN", "author-token")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SKILLCLI_HOME", str(tmp_path / "skillcli"))


def publish(stub, folder, *extra, capsys=None):
    if capsys:
        capsys.readouterr()
    return skill_main(["publish", str(folder), "--registry", REGISTRY_SLUG, "--api-url", stub.base_url, *extra])


EXPECTED = {"skills/my-skill/SKILL.md", "skills/my-skill/skill.yaml", "skills/my-skill/scripts/tidy.py", "skills/my-skill/references/style.md"}


def test_dry_run_shows_the_exact_plan_without_network(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    folder = make_skill(tmp_path)
    assert skill_main(["publish", str(folder), "--dry-run", "--json", "--api-url", "http://127.0.0.1:9"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["registry"] == "skillyard/registry" and plan["branch"] == "skill/my-skill-1.2.0"
    assert {f["path"] for f in plan["files"]} == EXPECTED
    tidy = next(f for f in plan["files"] if f["path"].endswith("tidy.py"))
    assert tidy["mode"] == "100755" and tidy["git_sha"] == git_blob_sha(b"print('tidy')\n")
    assert "Turns rough meeting notes" in plan["body"] and plan["title"] == "skill: my-skill 1.2.0"


def test_publish_forks_commits_exactly_the_skill_and_opens_one_pr(stub, registry_repo, tmp_path, capsys, author_env):
    folder = make_skill(tmp_path)
    assert publish(stub, folder, capsys=capsys) == 0
    out = capsys.readouterr().out
    assert stub.calls("POST", r"/repos/skillyard/registry/forks$")
    fork = stub.repos["carol/registry"]
    [tree_call] = stub.calls("POST", r"/repos/carol/registry/git/trees$")
    assert {e["path"] for e in tree_call.body["tree"]} == EXPECTED
    assert all(e["sha"] for e in tree_call.body["tree"])
    base = registry_repo.refs["heads/main"]
    assert tree_call.body["base_tree"] == registry_repo.commits[base]["tree"]
    assert len(stub.calls("POST", r"/git/blobs$")) == 4
    [commit_call] = stub.calls("POST", r"/repos/carol/registry/git/commits$")
    assert commit_call.body["parents"] == [base]
    new_tree = fork.trees[fork.commits[fork.refs["heads/skill/my-skill-1.2.0"]]["tree"]]
    assert set(new_tree) == EXPECTED | {"README.md", "skills/pdf-tools/SKILL.md", "skills/pdf-tools/scripts/run.py"}
    assert new_tree["skills/my-skill/scripts/tidy.py"]["mode"] == "100755"
    [pr_call] = stub.calls("POST", r"/repos/skillyard/registry/pulls$")
    assert pr_call.body["head"] == "carol:skill/my-skill-1.2.0" and pr_call.body["base"] == "main"
    assert len(registry_repo.pulls) == 1
    assert out.strip() == f"Opened {stub.root}/skillyard/registry/pull/1"


def test_publishing_again_updates_the_branch_and_keeps_one_pr(stub, registry_repo, tmp_path, capsys, author_env):
    folder = make_skill(tmp_path)
    assert publish(stub, folder, capsys=capsys) == 0
    (folder / "references" / "style.md").write_text("# Style\n\nEven shorter.\n", encoding="utf-8")
    assert publish(stub, folder, "--json", capsys=capsys) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["created"] is False and result["number"] == 1
    assert len(registry_repo.pulls) == 1 and len(stub.calls("PATCH", r"/git/refs/heads/skill/my-skill-1.2.0$")) == 1
    fork = stub.repos["carol/registry"]
    tree = fork.trees[fork.commits[fork.refs["heads/skill/my-skill-1.2.0"]]["tree"]]
    assert fork.blobs[tree["skills/my-skill/references/style.md"]["sha"]].endswith(b"Even shorter.\n")


def test_update_removes_files_the_skill_no_longer_has(stub, registry_repo, tmp_path, capsys, author_env):
    folder = make_skill(tmp_path, "pdf-tools")
    assert publish(stub, folder, "--json", capsys=capsys) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["removed"] == ["skills/pdf-tools/scripts/run.py"]
    [tree_call] = stub.calls("POST", r"/git/trees$")
    assert {"path": "skills/pdf-tools/scripts/run.py", "mode": "100644", "type": "blob", "sha": None} in tree_call.body["tree"]


def test_owner_of_the_registry_pushes_a_branch_without_forking(stub, registry_repo, tmp_path, capsys, monkeypatch, author_env):
    stub.tokens["owner-token"] = "skillyard"
    monkeypatch.setenv("GITHUB_TOKEN", "owner-token")
    assert publish(stub, make_skill(tmp_path), capsys=capsys) == 0
    assert not stub.calls("POST", "/forks") and "heads/skill/my-skill-1.2.0" in registry_repo.refs
    assert registry_repo.pulls[1].head_ref == "skill/my-skill-1.2.0"


def test_invalid_skill_is_refused_before_any_request(stub, registry_repo, tmp_path, capsys, author_env):
    folder = make_skill(tmp_path)
    (folder / "SKILL.md").write_text("---\nname: Not_Valid\n---\nbody\n", encoding="utf-8")
    assert publish(stub, folder, capsys=capsys) == 1
    err = capsys.readouterr().err
    assert "not valid in strict mode" in err and "skill validate" in err
    assert not stub.requests


def test_non_portable_skill_is_refused_with_the_migrate_fix(stub, registry_repo, tmp_path, capsys, author_env):
    folder = make_skill(tmp_path)
    (folder / "skill.yaml").unlink()
    legacy = SKILL_MD.format(name="my-skill").replace("license: MIT\n", "license: MIT\nversion: 1.2.0\ntags: [notes]\n")
    (folder / "SKILL.md").write_text(legacy, encoding="utf-8")
    assert publish(stub, folder, capsys=capsys) == 1
    err = capsys.readouterr().err
    assert "not valid in strict mode" in err and "skillyard migrate --to-standard" in err
    assert "Traceback" not in err and not stub.requests
    assert (folder / "SKILL.md").read_text(encoding="utf-8") == legacy and not (folder / "skill.yaml").exists()


def _lock(url: str, source: str | None = None) -> bytes:
    resolved = {"type": "registry", "url": url, "integrity": "sha256-" + "0" * 64}
    if source:
        resolved["source"] = source
    return json.dumps({"schema_version": "1.0", "skill": "my-skill", "version": "1.2.0", "resolved_source": resolved,
                       "resolved_inputs": {}, "targets": []}).encode()


def test_private_source_needs_to_public(stub, registry_repo, tmp_path, capsys, author_env):
    folder = make_skill(tmp_path, extra={"skill.lock.json": _lock("https://git.corp.example/skills/registry.json")})
    assert publish(stub, folder, capsys=capsys) == 1
    err = capsys.readouterr().err
    assert "looks private" in err and "--to-public" in err and "git.corp.example" in err
    assert stub.writes() == []
    assert publish(stub, folder, "--to-public", capsys=capsys) == 0
    [tree_call] = stub.calls("POST", r"/git/trees$")
    assert {e["path"] for e in tree_call.body["tree"]} == EXPECTED     # the lock is never published


def test_source_with_a_token_counts_as_private(stub, registry_repo, tmp_path, capsys, author_env):
    home = Path(os.environ["SKILLCLI_HOME"])
    home.mkdir(parents=True)
    (home / "config.yaml").write_text("sources:\n  - name: corp\n    url: https://raw.githubusercontent.com/corp/"
                                      "skills/main/registry.json\n    token_env: CORP_TOKEN\n", encoding="utf-8")
    folder = make_skill(tmp_path, extra={"skill.lock.json": _lock(
        "https://raw.githubusercontent.com/corp/skills/main/registry.json", source="corp")})
    assert publish(stub, folder, capsys=capsys) == 1
    assert "needs a token" in capsys.readouterr().err and stub.writes() == []


def test_public_source_needs_no_flag(stub, registry_repo, tmp_path, capsys, author_env):
    folder = make_skill(tmp_path, extra={"skill.lock.json": _lock(
        "https://raw.githubusercontent.com/skillyard/registry/main/registry.json")})
    assert publish(stub, folder, capsys=capsys) == 0


def test_skill_cli_does_not_import_pygithub_at_startup():
    code = ("import sys\nfrom skillyard.cli.main import build_parser\n"
            "build_parser('skill', 'skillyard.cli.skill_cmds', '')\n"
            "bad = [m for m in sys.modules if m == 'github' or m.startswith('github.')]\n"
            "assert not bad, bad\nprint('clean')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "clean" in result.stdout, result.stderr
