"""Helpers of the interop suite: pinned npm clients installed into a cache folder, subprocess runs, skill lists."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ENABLED = os.environ.get("SKILLYARD_INTEROP") == "1"
REASON = "interop tests run only in `nox -s interop` (SKILLYARD_INTEROP=1): they install third-party clients"
# npm packages, pinned so a run is repeatable; installed into a cache folder, never into the repository. Moved on
# purpose to the current releases (CONTRIBUTING.md, "Bumping the interop clients"). `claude-oldest` is the oldest
# Claude Code we support: the first release whose marketplace schema has the `git-subdir` plugin source our pointer
# plugins use (2.1.63 has none; read off each release's cli.js). README.md and site/pages/own-registry.md say so.
NPM = {"node": "node@22.23.3", "skills": "skills@1.7.4", "claude": "@anthropic-ai/claude-code@2.1.332",
       "claude-oldest": "@anthropic-ai/claude-code@2.1.64", "ajv": "ajv@8.20.0 ajv-formats@3.0.1",
       "inspector": "@modelcontextprotocol/inspector@2.12.0"}
CLAUDE_PINS = ("claude", "claude-oldest")  # the Claude Code releases the Claude tests run with: current and oldest
NODE_FLOOR = (22, 20)  # skills 1.7.4's `engines.node` (>=22.20.0): older Node does not start it
NPM_CACHE = Path(os.environ.get("SKILLYARD_INTEROP_NPM")
                 or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "skillyard-interop")
# Off: telemetry of the npm clients (there is no network beyond the registries anyway).
QUIET_ENV = {"DISABLE_TELEMETRY": "1", "DO_NOT_TRACK": "1", "DISABLE_AUTOUPDATER": "1", "CI": "1",
             "NO_COLOR": "1", "npm_config_update_notifier": "false"}


def npm_install(key: str) -> Path:
    """Install one pinned npm package (or several, space-separated, installed together) into its own cache prefix
    (reused when present); skip when npm fails."""
    spec = NPM[key]
    prefix = NPM_CACHE / spec.replace("/", "_").replace("@", "-").replace(" ", "+").strip("-")
    marker = prefix / ".installed"
    if marker.is_file():
        return prefix
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip(f"{spec}: npm is not installed (apt-get install npm)")
    prefix.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), *spec.split()],
                          capture_output=True, text=True, timeout=600, env={**os.environ, **QUIET_ENV})
    if done.returncode != 0:
        pytest.skip(f"{spec}: npm install failed ({done.stderr.strip().splitlines()[-1:] or ['no output']})")
    marker.write_text(f"{spec} installed in {time.monotonic() - started:.1f}s\n", encoding="utf-8")
    return prefix


def skillyard_bin(name: str) -> str:
    found = Path(sys.executable).parent / name
    return str(found) if found.exists() else (shutil.which(name) or name)


def run(argv: list, *, cwd: Path | None = None, env: dict | None = None, timeout: int = 300):
    return subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **QUIET_ENV, **(env or {})})


def skill_folders() -> list[Path]:
    return sorted(p.parent for p in (REPO / "skills").glob("*/SKILL.md"))


def claude_env(home: Path, node: Path, **extra: str) -> dict:
    """A private HOME for Claude Code (its plugins, settings and caches land there), Node first on PATH."""
    return {"HOME": str(home), "PATH": f"{node.parent}:/usr/bin:/bin", **extra}


def claude_binary(key: str) -> Path:
    """The `claude` command of the pinned release `key` (a CLAUDE_PINS member), installed into the npm cache."""
    return npm_install(key) / "node_modules" / ".bin" / "claude"


def plugin_loaded(call, plugin_id: str) -> tuple[bool, str]:
    """Whether Claude Code LOADED the installed plugin `plugin_id` (name@marketplace), not just installed it, and
    why not. `claude plugin list --json` names every installed plugin, with `errors` when loading it failed (e.g.
    "conflicting manifests"); releases that have `claude plugin details` (2.1.332) must also list its one skill
    there, which only a loaded plugin has. Returns (loaded, the evidence)."""
    import json

    listed = call("plugin", "list", "--json")
    if listed.returncode != 0:
        return False, f"plugin list failed: {listed.stdout}{listed.stderr}"
    rows = [row for row in json.loads(listed.stdout) if row.get("id") == plugin_id]
    if not rows:
        return False, f"{plugin_id} is not installed: {listed.stdout[:500]}"
    if rows[0].get("errors"):
        return False, f"{plugin_id} did not load: {rows[0]['errors']}"
    return True, rows[0].get("installPath", "")


def plugin_skills(call, plugin_id: str) -> list[str] | None:
    """The skills `claude plugin details` lists for a loaded plugin; None when this release has no `details`."""
    shown = call("plugin", "details", plugin_id)
    if "unknown command" in (shown.stderr + shown.stdout).lower():
        return None
    assert shown.returncode == 0, f"plugin details {plugin_id}: {shown.stdout}{shown.stderr}"
    text = shown.stdout.replace("\r", "")
    after = text.split("Skills (", 1)
    if len(after) < 2:
        return []
    count, _, rest = after[1].partition(")")
    return rest.split("\n")[0].split() if count.strip().isdigit() else []
