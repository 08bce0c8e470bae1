"""Claude Code (`@anthropic-ai/claude-code`): `claude plugin validate --strict` accepts our marketplace.json, and
installing one plugin from it copies that skill only (the per-skill `source`), byte for byte. Offline: validating
and installing from a local marketplace need no account or API key."""

from __future__ import annotations

import json

import pytest
from tests.interop.clients import npm_install, run


@pytest.fixture(scope="module")
def claude(node22, tmp_path_factory):
    binary = npm_install("claude") / "node_modules" / ".bin" / "claude"
    home = tmp_path_factory.mktemp("claude-home")
    env = {"HOME": str(home), "PATH": f"{node22.parent}:/usr/bin:/bin"}
    done = run([binary, "--version"], env=env, timeout=120)
    if done.returncode != 0:
        # The npm package runs a native binary from an optional per-platform package (no download at install).
        pytest.skip(f"claude-code: `claude --version` failed: {(done.stdout + done.stderr).strip()[:300]}")
    call = lambda *args: run([binary, *args], env=env, timeout=300)  # noqa: E731
    call.home = home
    return call


def test_marketplace_passes_strict_validation(claude, built_repo):
    done = claude("plugin", "validate", "--strict", built_repo / ".claude-plugin/marketplace.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Validation passed" in done.stdout


def test_installing_a_plugin_copies_only_its_skill(claude, built_repo):
    marketplace = json.loads((built_repo / ".claude-plugin/marketplace.json").read_text(encoding="utf-8"))
    # one of the registry's own skills (a local `source`); pointer skills name a `github` source pinned by `sha`,
    # which Claude Code clones from GitHub (no network here)
    plugin = next(p for p in marketplace["plugins"] if isinstance(p["source"], str))
    assert claude("plugin", "marketplace", "add", built_repo).returncode == 0
    done = claude("plugin", "install", f"{plugin['name']}@{marketplace['name']}")
    assert done.returncode == 0, done.stdout + done.stderr
    source = built_repo / plugin["source"]
    cache = claude.home / ".claude/plugins/cache"
    assert cache.is_dir(), "claude wrote no plugin cache"
    [installed] = [p.parent for p in cache.rglob("SKILL.md")]
    want = {str(p.relative_to(source)): p.read_bytes() for p in source.rglob("*") if p.is_file()}
    got = {str(p.relative_to(installed)): p.read_bytes() for p in installed.rglob("*") if p.is_file()
           and not str(p.relative_to(installed)).startswith(".")}
    assert got == want  # that one skill, nothing else from the repository
