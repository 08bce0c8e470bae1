"""Issue 32 item 4: a versionless pointer's version is its pinned commit's date, so only a new pin moves it.

The registry (acme/reg) and the upstream (up/skills) are real git repositories served by the GitHub stand-in; the
registry is built by `skillyard build` and every registry commit is dated a day after the last, so a version taken
from registry commits (what the build did before) would move with each of them. A verify commit (`checked_at`
written by `skillyard external verify --record`), a record-verification commit (the bot's own block) and an
unrelated commit leave `skill outdated` with nothing to update; `skillyard external bump` to a new upstream commit
does move the version, and `skill update` then installs the new bytes.
"""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime

import pytest
from tests.support.gitserver import GIT_ENV
from tests.support.registry import registry_url, skill_md

from skillyard.format.pointer import dump_pointer, parse_pointer
from skillyard.format.timeversion import from_iso

SKILL = "skills/alpha/SKILL.md"
FIRST = skill_md("alpha", "Does alpha things. Use when the user asks for alpha.", license="MIT")  # no version
DAY = 86_400
START = 1_780_000_000  # 2026-05-28: every commit of this test is dated from here, one day apart


def commit_at(repo, when: int, message: str, files: dict[str, str] | None = None) -> str:
    """Write `files`, commit everything with author and committer date `when` (seconds), return the sha."""
    for rel, text in (files or {}).items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    stamp = f"@{when} +0000"
    env = {**GIT_ENV, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", message], cwd=repo, env=env, check=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def iso(when: int) -> str:
    return datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Registry:
    """acme/reg listing up/skills' alpha by pointer; `commit` commits (a day later each time) and rebuilds."""

    def __init__(self, server, capsys):
        from skillyard.cli.main import skillyard_main

        self.server, self.capsys, self.main = server, capsys, skillyard_main
        self.clock = START
        server.create_repo("up", "skills", {"README.md": "upstream\n"})
        self.upstream = server.repo_path("up", "skills")
        self.pin = commit_at(self.upstream, self.tick(), "alpha", {SKILL: FIRST})
        server.create_repo("acme", "reg", {"skillyard.toml": 'name = "acme"\nrepository = "acme/reg"\n'})
        self.root = server.repo_path("acme", "reg")
        self.run("external", "add", "github:up/skills/skills/alpha")
        self.commit("add alpha")

    def tick(self) -> int:
        self.clock += DAY
        return self.clock

    def run(self, *argv: str) -> str:
        self.capsys.readouterr()
        code = self.main([*argv, "--root", str(self.root)])
        out = self.capsys.readouterr()
        assert code == 0, out.err
        return out.out

    def commit(self, message: str, files: dict[str, str] | None = None) -> None:
        """Commit the change, then build and commit the outputs (as publish.yml does), each a day later."""
        commit_at(self.root, self.tick(), message, files)
        self.run("build")
        commit_at(self.root, self.tick(), f"build after {message}")

    def pointer(self) -> dict:
        pointer, problems = parse_pointer((self.root / "skills/alpha/source.yaml").read_text(encoding="utf-8"))
        assert pointer is not None, problems
        return pointer.data

    def entry(self) -> dict:
        doc = json.loads((self.root / "registry.json").read_text(encoding="utf-8"))
        return next(s for s in doc["skills"] if s["name"] == "alpha")


@pytest.fixture
def registry(git_server, monkeypatch, capsys):
    monkeypatch.setenv("SKILL_GITHUB_API_URL", git_server.url)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    return Registry(git_server, capsys)


def outdated(skill_cli) -> list[tuple[str, str, str | None, str]]:
    result = skill_cli("outdated", "--json")
    rows = [(s["name"], s["installed"], s["latest"], s["state"]) for s in json.loads(result.out)["skills"]]
    assert result.code == (1 if any(row[3] == "outdated" for row in rows) else 0), result.err  # as npm outdated
    return rows


def test_the_version_is_the_pins_date_and_moves_only_with_the_pin(registry, git_server, configure, skill_cli,
                                                                  user_home):
    pinned_at = iso(START + DAY)
    assert registry.pointer()["upstream"]["committed_at"] == pinned_at  # from the API's commit object
    version = from_iso(pinned_at)
    assert registry.entry()["version"] == version == "0.0.20260529202640"
    configure.source("acme", registry_url(git_server, "acme", "reg"))
    installed = skill_cli("install", "alpha", "--json")
    assert installed.code == 0, installed.err
    assert outdated(skill_cli) == [("alpha", version, version, "current")]

    # 1. the scheduled verify: `external verify --record` writes checked_at, committed by the bot
    registry.run("external", "verify", "alpha", "--record")
    assert registry.pointer()["verification"]["checked_at"]
    registry.commit("verify: checked_at")
    # 2. record-verification: the bot writes the approval block (as `bot record-verification` does) after a merge
    data = registry.pointer()
    approved = {"verified": True, "approved_by": "maintainer", "approved_in": "https://github.com/acme/reg/pull/7",
                "approved_at": iso(registry.clock)}
    block = {**approved, "checked_at": data["verification"]["checked_at"]}
    registry.commit("record verification", {"skills/alpha/source.yaml": dump_pointer({**data, "verification": block})})
    # 3. a commit that touches nothing of the skill
    registry.commit("docs", {"README.md": "# acme\n"})
    assert registry.entry()["version"] == version and registry.entry()["updated_at"] > pinned_at
    assert outdated(skill_cli) == [("alpha", version, version, "current")]
    update = skill_cli("update", "alpha", "--json")
    assert update.code == 0 and json.loads(update.out)["skills"][0]["status"] == "up-to-date", update.out

    # a new upstream commit that changes the folder, pinned by `external bump`: the version moves with it
    second = FIRST.replace("Does alpha things.", "Does alpha things well.")
    new_pin = commit_at(registry.upstream, registry.tick(), "better alpha", {SKILL: second})
    bumped = json.loads(registry.run("external", "bump", "alpha", "--json"))
    assert [(r["name"], r["status"], r.get("new_commit")) for r in bumped["results"]] == \
        [("alpha", "bumped", new_pin)]
    assert registry.pointer()["upstream"]["committed_at"] == iso(registry.clock)
    newer = from_iso(iso(registry.clock))
    assert bumped["results"][0]["summary"]["version"] == {"old": version, "new": newer}  # what the bump PR says
    registry.commit("bump alpha")
    assert registry.entry()["version"] == newer > version
    assert outdated(skill_cli) == [("alpha", version, newer, "outdated")]
    update = skill_cli("update", "alpha")
    assert update.code == 0, update.err
    assert (user_home / ".agents/skills/alpha/SKILL.md").read_text(encoding="utf-8") == second
    assert outdated(skill_cli) == [("alpha", newer, newer, "current")]


def test_a_pointer_without_the_date_keeps_the_registry_date(registry):
    """A pointer written before `committed_at` existed: the build dates it as it always did (its source.yaml's last
    registry commit), so an older registry builds unchanged until add or bump records the date."""
    data = registry.pointer()
    del data["upstream"]["committed_at"]
    registry.commit("an undated pointer", {"skills/alpha/source.yaml": dump_pointer(data)})
    entry = registry.entry()
    assert entry["version"] == from_iso(iso(registry.clock - DAY)) == from_iso(entry["updated_at"])
    assert os.path.exists(registry.root / "registry.json")
