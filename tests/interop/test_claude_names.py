"""format/claude_names.py against the real `claude plugin validate` of the pinned current Claude Code: for a few
hundred plugin names (every pair of the words the rules are about, plus seeded random ones), our verdict and
Claude Code's are the same, and every plugin name we give instead is accepted; likewise for marketplace names
(one validation each). When this fails after a bump, re-read the lists (see claude_names.py's docstring)."""

from __future__ import annotations

import json
import random
import re

import pytest
from tests.interop.clients import NPM, claude_binary, claude_env, run

from skillyard.format.claude_names import (
    OFFICIAL_MARKETPLACES,
    READ_FROM,
    marketplace_name,
    marketplace_name_refused,
    plugin_name,
    plugin_name_refused,
)

WORDS = ["claude", "anthropic", "anthropics", "official", "cc", "plugin", "code", "mods", "claudecode",
         "claudemods", "ccplugin", "anthropicofficial", "officialclaude", "claudes", "marketplace", "plugins",
         "directory", "pdf", "skill", "x", "settings", "audit"]


def candidate_names() -> list[str]:
    rng = random.Random(32)
    names = {*WORDS, *(f"{a}-{b}" for a in WORDS for b in WORDS)}
    names |= {"-".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))) for _ in range(200)}
    names |= {"_".join(rng.choice(WORDS) for _ in range(2)) for _ in range(20)}
    return sorted(names)


@pytest.fixture(scope="module")
def validate(node22, tmp_path_factory):
    binary = claude_binary("claude")
    home = tmp_path_factory.mktemp("claude-names-home")
    env = claude_env(home, node22)
    if run([binary, "--version"], env=env, timeout=120).returncode != 0:
        pytest.skip(f"{NPM['claude']}: `claude --version` failed")
    assert NPM["claude"].endswith(f"@{READ_FROM}"), "claude_names.py was read from another release: re-read it"
    market = home / "market"
    (market / "skill").mkdir(parents=True)
    (market / "skill/SKILL.md").write_text("---\nname: skill\ndescription: A skill.\n---\nBody.\n", encoding="utf-8")
    (market / ".claude-plugin").mkdir()

    def check(name: str, plugins: list[str]) -> list[dict]:
        entries = [{"name": p, "description": "A skill.", "source": "./skill", "strict": False, "skills": ["./"]}
                   for p in plugins]
        document = {"name": name, "owner": {"name": "interop"}, "metadata": {"description": "Names."},
                    "plugins": entries}
        path = market / ".claude-plugin/marketplace.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        done = run([binary, "plugin", "validate", "--json", path], env=env, timeout=120)
        report = json.loads(done.stdout)
        return report["manifest"]["errors"] + report["manifest"]["warnings"]

    return check


def test_plugin_names_are_judged_as_claude_code_judges_them(validate):
    names = candidate_names()
    plugins = sorted({*names, *(plugin_name(n) for n in names)})
    problems = validate("interop-names", plugins)
    flagged = {plugins[int(m.group(1))] for p in problems if (m := re.fullmatch(r"plugins\[(\d+)\]\.name", p["path"]))}
    assert not [p for p in problems if not re.fullmatch(r"plugins\[\d+\]\.name", p["path"])], problems[:5]
    ours = {p for p in plugins if plugin_name_refused(p)}
    assert ours == flagged, {"we refuse, Claude Code accepts": sorted(ours - flagged)[:20],
                             "Claude Code refuses, we accept": sorted(flagged - ours)[:20]}
    assert len(flagged) > 100 and not {plugin_name(n) for n in names} & flagged


@pytest.mark.parametrize("name", ["skillyard", "claude-skills", "my-claude-marketplace", "claude-plugins",
                                  "claudemarketplaces", "x-official-claude", "anthropic-directory-x", "inline",
                                  "skills-dir", "claude-plugin-test", "anthropicplugins-x", "official-anthropic"])
def test_marketplace_names_are_judged_as_claude_code_judges_them(validate, name):
    """`validate` judges the look-alike and Claude Code's own names; the official names (OFFICIAL_MARKETPLACES)
    are refused when a marketplace of that name is added from outside Anthropic's repositories, not here."""
    problems = [p for p in validate(name, ["skill"]) if p["path"] == "name"]
    assert bool(problems) == (marketplace_name_refused(name) is not None), problems
    assert name not in OFFICIAL_MARKETPLACES
    assert not [p for p in validate(marketplace_name(name), ["skill"]) if p["path"] == "name"]
