"""Claude Code installs every plugin of our marketplace.json and LOADS it: the upstream pointers come over git's
smart HTTP from the stand-in's shallow repositories (https://github.com/ sent there by `url.insteadOf` in the
config GIT_CONFIG_GLOBAL names). Loaded means: `claude plugin list --json` lists it without `errors`, `claude
plugin details` shows exactly one skill, its own (a release without `details` must hold exactly one SKILL.md), and
its install folder holds only that skill's files (read off 2.1.332). Versions: SKILLYARD_REALWORLD_CLAUDE
(comma-separated; default every release tests/interop/clients.py pins: the current one and the oldest supported)."""

from __future__ import annotations

import json
import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from tests.interop import clients
from tests.interop.githttp import redirect_github
from tests.realworld.helpers import COUNTS, expected_files, folder_files, run

# The releases tests/interop/clients.py pins (the current one, and the oldest supported where it names one).
PINNED = ",".join(clients.NPM[key].rsplit("@", 1)[1] for key in getattr(clients, "CLAUDE_PINS", ("claude",)))
VERSIONS = [v.strip() for v in os.environ.get("SKILLYARD_REALWORLD_CLAUDE", PINNED).split(",") if v.strip()]


def _claude_binary(version: str):
    key = f"claude-{version}"
    clients.NPM.setdefault(key, f"@anthropic-ai/claude-code@{version}")
    prefix = clients.npm_install(key)
    return prefix / "node_modules" / ".bin" / "claude"


def _skill_of(entry: dict, pointers) -> str:
    """The skill a marketplace plugin carries (a plugin may be renamed: Claude Code reserves some names): a local
    source's folder, a `git-subdir` source's pointer (repository and folder), else the plugin's own name."""
    source = entry.get("source")
    if isinstance(source, str):
        return source.rstrip("/").rsplit("/", 1)[-1]
    if isinstance(source, dict) and source.get("path"):
        slug = re.sub(r"^https://github\.com/|\.git$", "", str(source.get("url") or source.get("repo") or ""))
        for p in pointers:
            if p.repository == slug and p.path == source["path"].strip("/"):
                return p.name
    return entry["name"]


@pytest.mark.parametrize("version", VERSIONS)
def test_claude_code_installs_and_loads_every_plugin(version, node22, standin, registry, pointers, own,
                                                     tmp_path):
    binary = _claude_binary(version)
    git_url, git_log, ca_file = standin.git_http()
    home = tmp_path / "home"
    home.mkdir()
    gitconfig = redirect_github(home / "redirect.gitconfig", git_url, *([ca_file] if ca_file else []))
    env = {"HOME": str(home), "PATH": f"{node22.parent}:/usr/bin:/bin", "GIT_CONFIG_GLOBAL": str(gitconfig),
           "GIT_CONFIG_NOSYSTEM": "1", "CLAUDE_CODE_PLUGIN_PREFER_HTTPS": "1", "GIT_TERMINAL_PROMPT": "0",
           **({"GIT_SSL_CAINFO": str(ca_file)} if ca_file else {})}

    def claude(*args, timeout=300):
        return run([binary, *args], env=env, timeout=timeout)

    marketplace = json.loads((registry.root / ".claude-plugin/marketplace.json").read_text(encoding="utf-8"))
    market = marketplace["name"]
    by_name = {p.name: p for p in pointers}
    skill_of = {entry["name"]: _skill_of(entry, pointers) for entry in marketplace["plugins"]}  # plugin -> skill
    plugins = sorted(skill_of)
    assert sorted(skill_of.values()) == sorted(set(own) | set(by_name)), "marketplace.json does not list every skill"
    added = claude("plugin", "marketplace", "add", str(registry.root))
    assert added.returncode == 0, added.stdout + added.stderr

    refused = {}
    for name in plugins:
        done = claude("plugin", "install", f"{name}@{market}")
        if done.returncode != 0:
            refused[name] = (done.stdout + done.stderr).strip()[-400:]
    listed = claude("plugin", "list", "--json")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    rows = {row["id"].split("@")[0]: row for row in json.loads(listed.stdout)
            if str(row.get("id", "")).endswith(f"@{market}")}
    def check(name: str) -> str | None:
        """Why `name` is not loaded, or None when it is."""
        row = rows.get(name)
        if row is None:
            return "not listed by `claude plugin list --json`"
        if row.get("errors"):
            return f"errors: {row['errors']}"
        skill = skill_of[name]
        details = claude("plugin", "details", f"{name}@{market}")
        said = details.stdout + details.stderr
        skills = re.search(r"Skills \((\d+)\)\s+(.*)", details.stdout)
        if "unknown command" in said.lower():  # a release without `details`: the install folder must hold one skill
            found = sorted(Path(row["installPath"]).rglob("SKILL.md"))
            if len(found) != 1:
                return f"{len(found)} SKILL.md files in {row['installPath']}"
        elif details.returncode != 0 or not skills or skills.group(1) != "1" or skill not in skills.group(2).split():
            return f"details: {said.strip()[-300:]}"
        want = expected_files(standin, registry, skill, by_name.get(skill), hidden=True)
        got = folder_files(Path(row["installPath"]))
        if skill in by_name and got != want:
            return f"install folder is not the skill's own files: {sorted(set(got) ^ set(want))[:8]}"
        if skill not in by_name and set(got) != set(want):
            return f"install folder files: {sorted(set(got) ^ set(want))[:8]}"
        return None

    with ThreadPoolExecutor(max_workers=3) as pool:  # `details` only reads: three at a time
        verdicts = dict(zip(plugins, pool.map(check, plugins), strict=True))
    not_loaded = {n: why for n, why in verdicts.items() if why and n not in refused}
    loaded = len(plugins) - len(refused) - len(not_loaded)
    COUNTS[f"Claude Code {version}"] = f"loaded {loaded}/{len(plugins)}"
    assert any("git-upload-pack" in line for line in git_log), "no plugin came over the git stand-in"
    assert not refused and not not_loaded, (f"install refused: {json.dumps(refused, indent=1)[:4000]}\n"
                                            f"not loaded: {json.dumps(not_loaded, indent=1)[:6000]}")


def test_claude_plugin_validate_accepts_our_marketplace(node22, registry):
    """`claude plugin validate` of the current release on the marketplace.json `skillyard build` writes."""
    binary = _claude_binary(VERSIONS[0])
    done = run([binary, "plugin", "validate", str(registry.root / ".claude-plugin/marketplace.json")],
               env={"HOME": str(registry.root.parent / "validate-home"), "PATH": f"{node22.parent}:/usr/bin:/bin"})
    assert done.returncode == 0, done.stdout + done.stderr
