import json

from conftest import make_skill
from skillyard.runtime import SkillRuntime, permissions, prompt
from skillyard.runtime.discovery import Root, Skill


def _skill(name, description, location):
    return Skill(name=name, description=description, location=location, folder=location.rsplit("/", 1)[0],
                 source="user", root="/r", priority=200, mtime_ns=0)


def test_available_skills_matches_reference_byte_for_byte():
    skills = [
        _skill("pdf-tools", "Fill & merge PDFs. Use when a user says \"PDF\" or 'form'.", "/s/pdf-tools/SKILL.md"),
        _skill("csv-profiler", "Profile CSV files <fast>.", "/s/a&b/csv-profiler/SKILL.md"),
    ]
    expected = (
        "<available_skills>\n"
        "<skill>\n"
        "<name>\n"
        "pdf-tools\n"
        "</name>\n"
        "<description>\n"
        "Fill &amp; merge PDFs. Use when a user says &quot;PDF&quot; or &#x27;form&#x27;.\n"
        "</description>\n"
        "<location>\n"
        "/s/pdf-tools/SKILL.md\n"
        "</location>\n"
        "</skill>\n"
        "<skill>\n"
        "<name>\n"
        "csv-profiler\n"
        "</name>\n"
        "<description>\n"
        "Profile CSV files &lt;fast&gt;.\n"
        "</description>\n"
        "<location>\n"
        "/s/a&b/csv-profiler/SKILL.md\n"
        "</location>\n"
        "</skill>\n"
        "</available_skills>"
    )
    assert prompt.to_xml(skills) == expected


def test_empty_index_is_just_the_wrapper():
    assert prompt.to_xml([]) == "<available_skills>\n</available_skills>"


def test_text_format_stays_near_fifty_tokens_per_skill():
    long = "Summarise very long legal contracts. " * 40
    text = prompt.to_text([_skill("contract-summary", long, "/s/contract-summary/SKILL.md")])
    assert text.startswith("- contract-summary [user]: Summarise very long legal contracts.")
    assert "…" in text
    description = text.split(": ", 1)[1].rsplit(" (", 1)[0]
    assert len(description) <= prompt.TEXT_DESCRIPTION_CHARS
    assert prompt.estimate_tokens(f"- contract-summary [user]: {description}") <= 57


def test_permission_rules_last_match_wins():
    rules = [("*", "deny"), ("code-*", "allow"), ("code-secrets", "ask"), ("code-s*", "deny")]
    assert permissions.decide("code-review", rules) == "allow"
    assert permissions.decide("code-secrets", rules) == "deny"
    assert permissions.decide("pdf-tools", rules) == "deny"
    assert permissions.decide("anything", []) == "allow"
    assert permissions.filter_names(["code-review", "code-lint", "pdf"], [("*", "ask"), ("code-l?nt", "allow")]) == {
        "code-review": "ask", "code-lint": "allow", "pdf": "ask"}


def test_agent_rules_from_toml_filter_the_index(tmp_path):
    root = tmp_path / "root"
    for name in ("code-review", "code-secrets", "pdf-tools"):
        make_skill(root, name)
    rules_file = tmp_path / "permissions.toml"
    rules_file.write_text('[agents."*".skills]\n"pdf-*" = "deny"\n\n[agents.reviewer.skills]\n'
                          '"code-*" = "allow"\n"code-secrets" = "ask"\n', encoding="utf-8")
    rules = permissions.load_rules("reviewer", [rules_file])
    rt = SkillRuntime([Root(str(root), "user", 200)], rules=rules, cache_dir=False)
    assert [s.name for s in rt.skills()] == ["code-review", "code-secrets"]
    assert "- code-secrets [user] [ask]:" in rt.prompt("text")
    assert "pdf-tools" not in rt.prompt("xml")
    other = SkillRuntime([Root(str(root), "user", 200)], rules=permissions.load_rules("writer", [rules_file]),
                         cache_dir=False)
    assert [s.name for s in other.skills()] == ["code-review", "code-secrets"]


def test_bad_rule_action_is_a_clear_error(tmp_path):
    rules_file = tmp_path / "permissions.toml"
    rules_file.write_text('[agents.a.skills]\n"*" = "maybe"\n', encoding="utf-8")
    try:
        permissions.load_rules("a", [rules_file])
    except permissions.RulesError as exc:
        assert "agents.a.skills" in str(exc) and "allow, ask, deny" in str(exc)
    else:
        raise AssertionError("expected RulesError")


def test_every_index_format_carries_one_usage_line(tmp_path):
    """The model is told how to use the index: read SKILL.md with read_skill_file first, run scripts/ with the
    shell tool. The XML block itself stays the reference form; an empty index has no line."""
    root = tmp_path / "root"
    make_skill(root, "alpha")
    rt = SkillRuntime([Root(str(root), "user", 200)], cache_dir=False)
    assert "`read_skill_file`" in prompt.USAGE and "SKILL.md" in prompt.USAGE and "scripts/" in prompt.USAGE
    assert "shell" in prompt.USAGE
    assert rt.prompt("xml") == prompt.USAGE + "\n" + prompt.to_xml(rt.skills())
    text = rt.prompt("text").splitlines()
    assert text[0] == prompt.USAGE and text[1].startswith("- alpha [user]: ")
    assert json.loads(rt.prompt("json"))["usage"] == prompt.USAGE
    for fmt in ("xml", "text", "json"):
        assert rt.prompt(fmt).count(prompt.USAGE) == 1
    empty = SkillRuntime([Root(str(tmp_path / "none"), "user", 200)], cache_dir=False)
    assert empty.prompt("xml") == "<available_skills>\n</available_skills>"
    assert "usage" not in json.loads(empty.prompt("json")) and empty.prompt("text") == ""
