"""Claude Code's reserved names (format/claude_names.py): the rules as read from Claude Code, and the names we give a
skill or a registry that Claude Code would refuse. tests/interop/test_claude_names.py holds the same predicates
against the real `claude plugin validate`."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillyard.format.claude_names import (
    OFFICIAL_MARKETPLACES,
    marketplace_name,
    marketplace_name_refused,
    plugin_name,
    plugin_name_refused,
)

SKILL_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")  # the `name-format` rule
WORDS = ["claude", "anthropic", "anthropics", "official", "cc", "plugin", "code", "mods", "claudecode", "pdf",
         "marketplace", "plugins", "directory", "skills", "x", "claudeofficial", "audit"]
names = st.lists(st.sampled_from(WORDS) | st.from_regex(r"[a-z0-9]{1,6}", fullmatch=True), min_size=1,
                 max_size=4).map("-".join)


@pytest.mark.parametrize("name", ["claude-settings-audit", "claude", "anthropic-x", "anthropics-x", "cc-plugin-x",
                                  "claude-code", "claudecode", "claudemods", "x-official-claude",
                                  "anthropicofficial", "my-claude-tool", "use-anthropic"])
def test_names_claude_code_refuses_or_warns_on(name):
    assert plugin_name_refused(name)


@pytest.mark.parametrize("name", ["settings-audit", "pdf-tools", "cc-plugin", "claudes-tool", "anthropicsx",
                                  "official-tools", "code-review"])
def test_names_claude_code_accepts(name):
    assert plugin_name_refused(name) is None
    assert plugin_name(name) == name


def test_a_reserved_skill_name_gets_a_documented_plugin_name():
    assert plugin_name("claude-settings-audit") == "settings-audit.skill"
    assert plugin_name("use-anthropic-api") == "use-api.skill"
    # nothing readable is left, or the rest is refused too: a name from the skill name's digest
    assert re.fullmatch(r"skill\.[0-9a-f]{12}", plugin_name("claude"))
    assert re.fullmatch(r"skill\.[0-9a-f]{12}", plugin_name("cc-plugin-x"))
    assert plugin_name("claude") != plugin_name("anthropic")


@given(names)
def test_every_plugin_name_we_write_is_accepted_and_never_another_skills_name(name):
    chosen = plugin_name(name)
    assert plugin_name_refused(chosen) is None
    assert plugin_name(name) == chosen  # deterministic, from the name alone
    if chosen != name:
        assert not SKILL_NAME.match(chosen)  # has a ".", which no skill name has: no clash with another skill


@given(st.text(max_size=12))
def test_any_text_is_judged_without_error(text):
    plugin_name_refused(text)
    marketplace_name_refused(text)


def test_non_ascii_names_are_treated_as_refused():
    assert plugin_name_refused("cl\u0430ude-tool")  # a Cyrillic a: Claude Code folds it to "claude"
    assert marketplace_name_refused("cl\u0430ude-plugins")


@pytest.mark.parametrize(("name", "why"), [("agent-skills", "official"), ("healthcare", "official"),
                                           ("claude-plugins", "reads like"), ("claudemarketplaces", "reads like"),
                                           ("x-official-claude", "reads like"), ("inline", "its own")])
def test_marketplace_names_claude_code_refuses(name, why):
    assert why in marketplace_name_refused(name)


def test_a_refused_marketplace_name_is_replaced():
    assert marketplace_name("skillyard") == "skillyard"
    assert marketplace_name("claude-skills") == "claude-skills"
    assert marketplace_name("agent-skills") == "agent-skills-registry"
    assert marketplace_name("claude-plugins") == "plugins-registry"
    assert re.fullmatch(r"registry-[0-9a-f]{12}", marketplace_name("claudemarketplaces"))


@given(names)
def test_every_marketplace_name_we_write_is_accepted(name):
    assert marketplace_name_refused(marketplace_name(name)) is None


def test_the_official_names_are_lower_case_kebab():
    assert all(SKILL_NAME.match(name) for name in OFFICIAL_MARKETPLACES)
