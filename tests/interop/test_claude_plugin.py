"""Claude Code (`@anthropic-ai/claude-code`), the current release and the oldest we support (CLAUDE_PINS):
`claude plugin validate --strict` accepts our marketplace.json (the repository's own, as committed, and one built
from the skills), and installing one plugin from it copies that skill only (the per-skill `source`), byte for byte,
and loads it. Offline: validating and installing from a local marketplace need no account or API key."""

from __future__ import annotations

import json

import pytest
from tests.interop.clients import (
    CLAUDE_PINS,
    NPM,
    REPO,
    claude_binary,
    claude_env,
    plugin_loaded,
    plugin_skills,
    run,
)


@pytest.fixture(scope="module", params=CLAUDE_PINS)
def claude(request, node22, tmp_path_factory):
    binary = claude_binary(request.param)
    home = tmp_path_factory.mktemp(f"{request.param}-home")
    env = claude_env(home, node22)
    done = run([binary, "--version"], env=env, timeout=120)
    if done.returncode != 0:
        # The npm package runs a native binary from an optional per-platform package (no download at install).
        pytest.skip(f"{NPM[request.param]}: `claude --version` failed: {(done.stdout + done.stderr).strip()[:300]}")
    call = lambda *args: run([binary, *args], env=env, timeout=300)  # noqa: E731
    call.home, call.pin = home, request.param
    # `--strict` (warnings fail too) came after 2.1.64; without it, a warning still prints "passed with warnings"
    call.strict = ["--strict"] if "--strict" in call("plugin", "validate", "--help").stdout else []
    return call


def validated(claude, path) -> None:
    done = claude("plugin", "validate", *claude.strict, path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Validation passed" in done.stdout
    assert "warning" not in done.stdout.lower(), done.stdout


def test_marketplace_passes_strict_validation(claude, built_repo):
    validated(claude, built_repo / ".claude-plugin/marketplace.json")


def test_the_committed_marketplace_passes_strict_validation(claude):
    """The repository's own .claude-plugin/marketplace.json, pointer plugins and all, as users add it."""
    validated(claude, REPO / ".claude-plugin/marketplace.json")


def test_installing_a_plugin_copies_only_its_skill_and_loads_it(claude, built_repo):
    marketplace = json.loads((built_repo / ".claude-plugin/marketplace.json").read_text(encoding="utf-8"))
    # one of the registry's own skills (a local `source`); pointer skills are in test_pointer_clients.py
    plugin = next(p for p in marketplace["plugins"] if isinstance(p["source"], str))
    assert claude("plugin", "marketplace", "add", built_repo).returncode == 0
    plugin_id = f"{plugin['name']}@{marketplace['name']}"
    done = claude("plugin", "install", plugin_id)
    assert done.returncode == 0, done.stdout + done.stderr
    loaded, evidence = plugin_loaded(claude, plugin_id)
    assert loaded, evidence
    skills = plugin_skills(claude, plugin_id)
    assert skills == [plugin["name"]] or (skills is None and claude.pin != "claude"), skills  # None: no `details`
    source = built_repo / plugin["source"]
    cache = claude.home / ".claude/plugins/cache"
    assert cache.is_dir(), "claude wrote no plugin cache"
    [installed] = [p.parent for p in cache.rglob("SKILL.md")]
    want = {str(p.relative_to(source)): p.read_bytes() for p in source.rglob("*") if p.is_file()}
    got = {str(p.relative_to(installed)): p.read_bytes() for p in installed.rglob("*") if p.is_file()
           and not str(p.relative_to(installed)).startswith(".")}
    assert got == want  # that one skill, nothing else from the repository
