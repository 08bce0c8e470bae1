"""`skillyard bot report|automerge --json` print what schemas/cli/ says, succeeding and failing (issue 27 item 9):
real PyGithub against the GitHub stand-in on 127.0.0.1. The other commands: tests/cli/test_json_schemas.py."""

from __future__ import annotations

import pytest
from botkit import REGISTRY_SLUG, make_report, write_artifact
from ghstub import Pull
from tests.support.cli_schemas import check_output

from skillyard.cli.main import skillyard_main

pytestmark = pytest.mark.usefixtures("bot_env")
FILES = [("skills/new-skill/SKILL.md", "added")]


def bot(capsys, command: str, stub, *argv) -> tuple[int, dict]:
    capsys.readouterr()
    code = skillyard_main(["bot", command, "--repo", REGISTRY_SLUG, "--api-url", stub.base_url, "--json", *map(str, argv)])
    return code, check_output(f"skillyard bot {command}", code, capsys.readouterr().out)


def test_report_and_automerge_print_what_their_schemas_say(stub, registry_repo, tmp_path, capsys):
    registry_repo.pulls[1] = Pull(1, "carol", stub.add_commit(registry_repo), files=list(FILES))
    artifact = write_artifact(tmp_path, make_report([{"name": "new-skill"}], [p for p, _ in FILES]))
    code, done = bot(capsys, "report", stub, "--artifact", artifact, "--pr", 1)
    assert code == 0 and done["pr"] == 1 and done["labels"] == ["new-skill"]
    code, done = bot(capsys, "report", stub, "--artifact", write_artifact(tmp_path, "{not json", "bad.json"),
                     "--pr", 1)
    assert code != 0 and done["ok"] is False
    code, done = bot(capsys, "automerge", stub, "--pr", 1, "--dry-run")
    assert code == 0 and done["merge"] is False and done["reasons"]  # not labelled, not approved: not merged
    code, done = bot(capsys, "automerge", stub, "--pr", 99)
    assert code != 0 and done["ok"] is False


def test_skill_publish_opening_a_pull_request_prints_what_its_schema_says(stub, registry_repo, tmp_path, capsys,
                                                                          monkeypatch):
    """`skill publish --json` for real (its --dry-run runs in tests/cli/test_json_schemas.py): the result with the
    plan under `plan`, then a registry that does not exist."""
    from test_publish import make_skill

    from skillyard.cli.main import skill_main

    monkeypatch.setenv("GITHUB_TOKEN", "author-token")
    folder = make_skill(tmp_path)

    def publish(registry: str) -> tuple[int, dict]:
        capsys.readouterr()
        code = skill_main(["publish", str(folder), "--registry", registry, "--api-url", stub.base_url, "--json"])
        return code, check_output("skill publish", code, capsys.readouterr().out)

    code, opened = publish(REGISTRY_SLUG)
    assert code == 0 and opened["dry_run"] is False and opened["url"].endswith("/pull/1")
    assert opened["plan"]["branch"] == "skill/my-skill-1.2.0"
    code, refused = publish("nobody/nothing")
    assert code != 0 and refused["ok"] is False and refused["error"]
