"""The automerge rules of bump PRs (`skillyard.bot.bump_rules`) on plain data: a clean bump merges, and each rule
alone stops one that breaks only that rule, saying why."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from skillyard.bot import decide
from skillyard.bot.bump_rules import BumpFacts, bump_decision
from skillyard.format.pointer import dump_pointer

HEAD = "c" * 40
PATH = "skills/alpha/source.yaml"
SECURITY = {"rule": "security-pipe-to-shell", "severity": "warning", "file": "scripts/x.sh", "line": 1,
            "message": "pipes a download into a shell"}


def pointer(commit: str = "1" * 40, *, auto_bump: bool | None = True, sha: str = "a" * 64, **over) -> dict:
    data = {"schema_version": 1, "name": "alpha",
            "upstream": {"host": "github", "repository": "up/skills", "path": "skills/alpha", "commit": commit,
                         "tracks": "main"},
            "license": "MIT",
            "skill": {"name": "alpha", "description": "Does alpha things.", "version": "1.0.0", "license": "MIT"},
            "files": [{"path": "SKILL.md", "size": 100, "sha256": sha}],
            "verification": {"verified": True, "approved_by": "maintainer"}}
    if auto_bump is not None:
        data["registry"] = {"auto_bump": auto_bump, "tags": ["extra"]}
    data.update(over)
    return data


def bumped(base: dict) -> dict:
    head = copy.deepcopy(base)
    head["upstream"]["commit"] = "2" * 40
    head["files"][0].update(size=120, sha256="b" * 64)
    head["skill"]["version"] = "1.1.0"
    head["verification"] = {"verified": False}
    return head


def facts(base: dict | None = None, head: dict | None = None, **over) -> BumpFacts:
    base = pointer() if base is None else base
    head = bumped(base) if head is None else head
    generic = decide.AutomergeFacts(
        author="github-actions[bot]", head_sha=HEAD, changes=decide.Changes(), owners={}, labels=frozenset(),
        checks=(decide.Check("validate / validate changed skills", "completed", "success", "github-actions", 7),),
        validate_run=decide.ValidateRun(1, "validate", "pull_request", HEAD, "completed", "success", 7),
        report={"commit": HEAD, "ok": True, "skills": []})
    generic = replace(generic, **over.pop("generic", {}))
    values = {"facts": generic, "head_ref": "bump/alpha", "head_repo": "skillyard/registry",
              "base_repo": "skillyard/registry", "files": (decide.PrFile(PATH, "modified"),),
              "base_source": dump_pointer(base), "head_source": dump_pointer(head)}
    values.update(over)
    return BumpFacts(**values)


def refused(f: BumpFacts, expected: str) -> None:
    decision = bump_decision(f)
    assert not decision.merge
    assert any(expected in reason for reason in decision.reasons), decision.reasons


def test_a_clean_opted_in_bump_merges():
    decision = bump_decision(facts())
    assert decision.merge, decision.reasons


def test_a_bump_that_resolves_a_finding_and_keeps_an_old_one_merges():
    base = pointer(findings=[SECURITY, dict(SECURITY, file="scripts/y.sh")])
    head = bumped(base)
    head["findings"] = [dict(SECURITY, line=7)]  # the same finding, moved down a line; the other one resolved
    assert bump_decision(facts(base, head)).merge


def test_not_opted_in_waits_for_a_maintainer():
    refused(facts(pointer(auto_bump=None)), "have not opted in")
    refused(facts(pointer(auto_bump=False)), "have not opted in")


def test_the_heads_own_opt_in_counts_for_nothing():
    base = pointer(auto_bump=False)
    head = bumped(base)
    head["registry"]["auto_bump"] = True
    refused(facts(base, head), "have not opted in")


def test_a_change_to_the_registry_block_is_not_a_bump():
    head = bumped(pointer())
    head["registry"]["tags"] = ["extra", "sneaky"]
    refused(facts(pointer(), head), "fields other than the pin changed: `registry`")


@pytest.mark.parametrize("field,value", [("repository", "evil/skills"), ("path", "skills/other"),
                                         ("tracks", "dev")])
def test_a_moved_upstream_waits_for_a_maintainer(field, value):
    head = bumped(pointer())
    head["upstream"][field] = value
    refused(facts(pointer(), head), f"`upstream.{field}`")


@pytest.mark.parametrize("where", ["pointer", "skill"])
def test_a_licence_change_waits_for_a_maintainer(where):
    head = bumped(pointer())
    if where == "pointer":
        head["license"] = "GPL-3.0-only"
    else:
        head["skill"]["license"] = "GPL-3.0-only"
    refused(facts(pointer(), head), "the licence changed")


def test_a_new_security_finding_waits_for_a_maintainer():
    head = bumped(pointer())
    head["findings"] = [SECURITY]
    refused(facts(pointer(), head), "1 new security finding(s) compared with the base pin: security-pipe-to-shell")


def test_the_verification_must_be_reset():
    head = bumped(pointer())
    head["verification"] = {"verified": True, "approved_by": "maintainer"}
    refused(facts(pointer(), head), "not reset")


def test_a_pr_that_changes_another_file_waits():
    files = (decide.PrFile(PATH, "modified"), decide.PrFile(".github/workflows/x.yml", "added"))
    refused(facts(files=files), "changes more than `skills/alpha/source.yaml`: .github/workflows/x.yml")


def test_a_pr_that_adds_the_pointer_is_not_a_bump():
    refused(facts(files=(decide.PrFile(PATH, "added"),)), "is added, not modified")


def test_a_pr_that_bumps_another_skill_than_its_branch_says_waits():
    refused(facts(files=(decide.PrFile("skills/beta/source.yaml", "modified"),)), "does not change")


def test_only_the_bump_bot_and_this_repository_count():
    refused(facts(generic={"author": "mallory"}), "not by the bump bot")
    refused(facts(head_repo="mallory/registry"), "not in skillyard/registry")
    refused(facts(head_ref="feature"), "not a bump branch")


def test_an_invalid_head_pointer_waits():
    refused(facts(head_source="schema_version: 1\nname: alpha\n"), "not a valid pointer")


def test_the_validate_run_and_checks_must_be_green():
    refused(facts(generic={"validate_run": None}), "belongs to no `validate` workflow run")
    refused(facts(generic={"validate_run": None, "checks": ()}), "has not run on the head commit")
    refused(facts(generic={"report": {"commit": HEAD, "ok": False}}), "not an ok report")
    refused(facts(generic={"checks": (
        decide.Check("validate / validate changed skills", "completed", "success", "github-actions", 7),
        decide.Check("tests", "completed", "failure"))}), "check `tests` concluded failure")
    refused(facts(generic={"labels": frozenset({"needs-maintainer"})}), "blocking label")
    refused(facts(generic={"reviews": (decide.Review("CHANGES_REQUESTED", HEAD, user="maintainer"),)}),
            "requests changes")


def _with_skill(**skill):
    def change(base: dict, head: dict) -> None:
        head["skill"].update(skill)
    return change


@pytest.mark.parametrize("change, expected", [
    (_with_skill(capabilities=["execute-code"]), "widens `capabilities` (`execute-code`)"),
    (_with_skill(allowed_tools=["Bash(curl:*)"]), "widens `allowed_tools` (`Bash(curl:*)`)"),
    (_with_skill(author="Mallory"), "changes `author`"),
    (_with_skill(maintainers=["mallory"]), "changes `maintainers`"),
    (lambda base, head: (base.update(findings=[dict(SECURITY, file="SKILL.md", allowed="teaches it")]),
                         head.update(findings=[dict(SECURITY, file="SKILL.md", allowed="teaches it")])),
     "`SKILL.md`, which carries a reviewed security exception"),
    (lambda base, head: (base.update(findings=[dict(SECURITY, digest="1" * 32)]),
                         head.update(findings=[dict(SECURITY, digest="2" * 32)])), "1 new security finding"),
])
def test_a_change_of_meaning_or_of_reviewed_code_waits_for_a_maintainer(change, expected):
    base = pointer()
    head = bumped(base)
    change(base, head)
    refused(facts(base, head), expected)


def test_a_narrowing_or_a_new_description_still_merges():
    base = pointer()
    base["skill"].update(capabilities=["read-file", "write-file"], allowed_tools=["Read", "Grep"])
    head = bumped(base)
    head["skill"].update(capabilities=["read-file"], allowed_tools=["Read"], description="Does alpha, better.")
    assert bump_decision(facts(base, head)).merge
