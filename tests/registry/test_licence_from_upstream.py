"""Licences are facts from upstream (issue 33, item 3), through the entry points an attacker uses, against the
GitHub stand-in on 127.0.0.1: a bump where upstream's newer commit drops its LICENSE, a PR that hand-edits a
pointer's `license` and then meets `external verify`, and `external add --license` over a licence upstream names."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.registry import test_external_licence
from tests.registry.test_external_add import run
from tests.registry.test_external_licence import MIT_TEXT, pointer_of
from tests.support.cli_schemas import check_output
from tests.support.fixtures import git_server, skill_home  # noqa: F401 (fixtures)
from tests.support.registry import skill_md

from skillyard.bot.bump_render import bump_body
from skillyard.bot.bump_rules import _pointer_reasons
from skillyard.format import licence_facts, licences
from skillyard.format.licence_text import NOASSERTION, NOWHERE, Found
from skillyard.format.pointer import dump_pointer

upstreams, reg = test_external_licence.upstreams, test_external_licence.reg  # the same fixtures (the stand-in)
GPL_SKILL = skill_md("copyleft", "Does copyleft things. Use for copyleft work.", license="GPL-3.0-only")
LICENSED = skill_md("licensed", "Does licensed things. Use for licensed work.")


def opt_in(root, name: str) -> str:
    """The pointer as its owners opt it in to automerged bumps (`registry: {auto_bump: true}`); its text."""
    data = pointer_of(root, name)
    data["registry"] = {"auto_bump": True}
    text = dump_pointer(data)
    (root / "skills" / name / "source.yaml").write_text(text, encoding="utf-8")
    return text


def hand_edit(root, name: str, old: str, new: str) -> None:
    """What a contributor's PR does: edit source.yaml's text directly."""
    path = root / "skills" / name / "source.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def verify(root, capsys, *argv) -> tuple[int, dict, str]:
    code, out, err = run("external", "verify", *argv, "--root", str(root), "--json", capsys=capsys)
    return code, check_output("skillyard external verify", code, out), err


# ---- 1. a bump never carries forward a licence upstream withdrew -------------------------------------------------

def test_a_bump_where_upstream_drops_its_licence_is_a_licence_change_never_automerged_never_served(
        upstreams, reg, capsys):
    upstreams.create_repo("lic", "skills", {"skills/licensed/SKILL.md": LICENSED,
                                            "skills/licensed/LICENSE": MIT_TEXT})
    assert run("external", "add", "github:lic/skills/skills/licensed", "--root", str(reg), capsys=capsys)[0] == 0
    assert pointer_of(reg, "licensed")["license"] == "MIT"
    base = pointer_of(reg, "licensed") | {"registry": {"auto_bump": True}}
    opt_in(reg, "licensed")
    upstreams.commit("lic", "skills", {"skills/licensed/notes.md": "# Notes\n"}, delete=("skills/licensed/LICENSE",),
                     message="drop the licence")

    code, out, err = run("external", "bump", "--root", str(reg), "--json", capsys=capsys)
    assert code == 0, err
    [result] = check_output("skillyard external bump", code, out)["results"]
    assert result["status"] == "bumped"
    head = pointer_of(reg, "licensed")
    # not MIT "kept from the pointer": upstream no longer grants it, so nothing is carried forward
    assert (head["license"], head["license_source"]) == (NOASSERTION, NOWHERE)
    assert result["summary"]["license"] == {"old": "MIT", "new": NOASSERTION, "changed": True}
    assert "**licence changed**: `MIT` → `NOASSERTION`" in bump_body(result["summary"])  # the bump PR's body
    reasons = _pointer_reasons(base, head)  # the bump's automerge rule
    assert any(r.startswith("the licence changed (MIT -> NOASSERTION") and "no longer names" in r for r in reasons)
    assert licences.decide(head["license"]).allowed is False  # the site never serves or renders it


def test_a_registry_set_licence_is_kept_only_while_upstream_names_none():
    """The pure rule of a bump: a registry-set licence stands while upstream names none; a licence upstream
    states replaces it; an upstream-named licence is never a fallback."""
    registry_set = {"license": "MIT", "license_source": "registry"}
    none = Found(NOASSERTION, NOWHERE, "no licence found")
    unreadable = Found(NOASSERTION, "LICENSE.txt in the skill folder", "not a licence Skillyard recognises")
    assert licence_facts.choose(none, where="x", previous=registry_set) == Found("MIT", "registry")
    assert licence_facts.choose(none, where="x", previous={**registry_set, "license_source": "--license"}) \
        == Found("MIT", "registry")  # what add wrote before the rule
    assert licence_facts.choose(unreadable, where="x", previous=registry_set) == unreadable
    isc = Found("ISC", "LICENSE in the skill folder")
    assert licence_facts.choose(isc, where="x", previous=registry_set) == isc
    assert licence_facts.choose(none, where="x", previous={"license": "MIT", "license_source": "LICENSE"}) == none
    assert licence_facts.change_reasons({"license": "MIT", "skill": {}, "license_source": "registry"},
                                        {"license": "MIT", "skill": {}, "license_source": "LICENSE"}) \
        == ["the licence is now named by upstream (`license_source`)"]


SPDX = st.sampled_from(["MIT", "Apache-2.0", "GPL-3.0-only", "ISC", NOASSERTION])
FOUND = st.one_of(st.builds(Found, SPDX.filter(lambda v: v != NOASSERTION), st.sampled_from(
    ["LICENSE in the skill folder", "the repository's licence (GitHub API)"])),
    st.just(Found(NOASSERTION, NOWHERE, "none")), st.just(Found(NOASSERTION, "LICENSE.txt in the skill folder", "?")))
POINTER = st.fixed_dictionaries({"license": SPDX, "license_source": st.sampled_from(
    ["registry", "--license", "LICENSE in the skill folder", NOWHERE]), "skill": st.just({})})


@given(found=FOUND, previous=st.one_of(st.none(), POINTER), licence=st.one_of(st.none(), SPDX))
def test_no_path_records_a_licence_upstream_does_not_name_unless_upstream_names_none(found, previous, licence):
    """Whatever the old pointer or --license says, the recorded licence is upstream's, except where upstream names
    none -- and then it is marked as the registry's; what verify accepts is exactly what add and bump record."""
    try:
        chosen = licence_facts.choose(found, where="x", given=licence, previous=previous)
    except Exception as exc:  # noqa: BLE001 - the refusal is the point
        assert licence and not licence_facts.names_none(found) and licence != found.spdx, exc
        return
    if chosen.spdx != found.spdx:
        assert licence_facts.names_none(found) and chosen.source == licence_facts.REGISTRY
    recorded = {"license": chosen.spdx, "license_source": chosen.source}
    assert licence_facts.mismatch(recorded, found, "skills/x/source.yaml") is None
    if previous is not None and previous["license"] != found.spdx and not licence_facts.names_none(found):
        assert licence_facts.mismatch(previous, found, "skills/x/source.yaml") is not None


# ---- 2. external verify recomputes the licence as add does ------------------------------------------------------

@pytest.mark.parametrize("where", ["frontmatter", "api"])
def test_a_hand_edited_licence_fails_verify_naming_file_field_upstream_and_fix(upstreams, reg, capsys, where):
    files = {"skills/copyleft/SKILL.md": GPL_SKILL if where == "frontmatter" else
             skill_md("copyleft", "Does copyleft things. Use for copyleft work.")}
    upstreams.create_repo("gpl", "skills", files)
    if where == "api":
        upstreams.set_license("gpl", "skills", "GPL-3.0")
    assert run("external", "add", "github:gpl/skills/skills/copyleft", "--root", str(reg), capsys=capsys)[0] == 0
    named = "GPL-3.0-only" if where == "frontmatter" else "GPL-3.0"
    assert pointer_of(reg, "copyleft")["license"] == named
    assert verify(reg, capsys)[0] == 0

    hand_edit(reg, "copyleft", f"license: {named}\n", "license: MIT\n")  # the PR: GPL made MIT
    code, report, _ = verify(reg, capsys)
    assert code == 1 and report["ok"] is False
    [pointer] = report["pointers"]
    assert pointer["status"] == "failed"
    [diff] = pointer["differences"]
    assert diff["kind"] == "licence" and diff["field"] == "license" and diff["file"] == "skills/copyleft/source.yaml"
    assert (diff["recorded"], diff["found"]) == ("MIT", named)
    reason = pointer["reason"]
    assert "skills/copyleft/source.yaml" in reason and "`license` is MIT" in reason and named in reason
    assert diff["fix"].startswith(f"Set `license: {named}` in skills/copyleft/source.yaml (or write the pointer")
    code, out, _ = run("external", "verify", "--root", str(reg), capsys=capsys)
    assert code == 1 and "FAILED  copyleft" in out and "skills/copyleft/source.yaml: `license` recorded MIT" in out
    assert f"fix: Set `license: {named}`" in out

    # claiming the licence as the registry's own does not help while upstream names one
    source = pointer_of(reg, "copyleft")["license_source"]
    hand_edit(reg, "copyleft", f"license_source: {source}\n", "license_source: registry\n")
    code, report, _ = verify(reg, capsys)
    assert code == 1 and "set by the registry" in report["pointers"][0]["reason"]
    assert "remove `license_source`" in report["pointers"][0]["differences"][0]["fix"]


def test_a_registry_set_licence_verifies_only_while_upstream_names_none(upstreams, reg, capsys):
    assert run("external", "add", "github:bare/skills/skills/plain", "--license", "MIT", "--root", str(reg),
               capsys=capsys)[0] == 0
    assert verify(reg, capsys)[0] == 0
    upstreams.set_license("bare", "skills", "GPL-3.0")  # upstream now names a licence
    code, report, _ = verify(reg, capsys)
    [diff] = report["pointers"][0]["differences"]
    assert code == 1 and (diff["recorded"], diff["found"]) == ("MIT", "GPL-3.0")
    assert "a registry-side licence stands only while upstream names none" in report["pointers"][0]["reason"]


def test_verify_asks_the_repository_licence_only_when_the_skill_states_none(upstreams, reg, capsys):
    """As add's lookup reads it: a skill's own statement decides before the repository's (no request for it)."""
    upstreams.create_repo("gpl", "skills", {"skills/copyleft/SKILL.md": GPL_SKILL})
    assert run("external", "add", "github:gpl/skills/skills/copyleft", "--root", str(reg), capsys=capsys)[0] == 0
    upstreams.clear_log()
    assert verify(reg, capsys)[0] == 0
    assert not [r.path for r in upstreams.log if r.path == "/repos/gpl/skills"]
    assert run("external", "add", "github:bare/skills/skills/plain", "--root", str(reg), capsys=capsys)[0] == 0
    upstreams.clear_log()
    assert verify(reg, capsys, "plain")[0] == 0  # NOASSERTION, as add recorded
    assert [r.path for r in upstreams.log if r.path == "/repos/bare/skills"] == ["/repos/bare/skills"]


# ---- 3. a registry-side --license only where upstream names none ------------------------------------------------

@pytest.mark.parametrize("target, named", [
    ("github:rooted/skills/skills/rooted", "MIT (LICENSE at the repository root)"),
    ("github:anth/skills/skills/docs", "terms Skillyard does not recognise (LICENSE.txt in the skill folder)"),
])
def test_add_refuses_a_licence_over_what_upstream_names(upstreams, reg, capsys, target, named):
    code, out, err = run("external", "add", target, "--license", "Apache-2.0", "--root", str(reg), "--json",
                         capsys=capsys)
    error = check_output("skillyard external add", code, out)
    assert code != 0 and not (reg / "skills").exists()
    message = error["error"]
    assert "--license Apache-2.0 would override the licence upstream states" in message and named in message
    assert "nothing was written" in message and "Leave out --license" in error["fix"]


def test_add_with_the_licence_upstream_names_records_it_as_upstreams(upstreams, reg, capsys):
    code, out, err = run("external", "add", "github:rooted/skills/skills/rooted", "--license", "MIT", "--root",
                         str(reg), capsys=capsys)
    assert code == 0, err
    assert pointer_of(reg, "rooted")["license_source"] == "LICENSE at the repository root"


def test_a_registry_set_licence_is_recorded_and_shown_as_the_registrys(upstreams, reg, capsys, tmp_path):
    code, out, err = run("external", "add", "github:bare/skills/skills/plain", "--license", "MIT", "--root",
                         str(reg), capsys=capsys)
    assert code == 0, err
    assert "licence MIT set by this registry (--license; upstream names none)" in out
    assert (pointer_of(reg, "plain")["license"], pointer_of(reg, "plain")["license_source"]) == ("MIT", "registry")
    assert run("external", "add", "github:rooted/skills/skills/rooted", "--root", str(reg), capsys=capsys)[0] == 0
    upstreams.commit("acme", "reg", {}, message="pointers")
    assert run("build", "--root", str(reg), capsys=capsys)[0] == 0
    entries = {s["name"]: s for s in json.loads((reg / "registry.json").read_text())["skills"]}
    assert entries["plain"]["source"]["license_source"] == "registry"
    assert "license_source" not in entries["rooted"]["source"]
    out_dir = tmp_path / "site"
    code, _, err = run("site", "build", "--root", str(reg), "--out", str(out_dir), "--work-dir", str(tmp_path / "w"),
                       capsys=capsys)
    assert code == 0, err
    page = (out_dir / "skills" / "plain" / "index.html").read_text(encoding="utf-8")
    assert "set by this registry: upstream names no licence" in page
    other = (out_dir / "skills" / "rooted" / "index.html").read_text(encoding="utf-8")
    assert "set by this registry" not in other
