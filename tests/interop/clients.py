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
# npm packages, pinned so a run is repeatable; installed into a cache folder, never into the repository.
NPM = {"node": "node@22", "skills": "skills@1.5.18", "claude": "@anthropic-ai/claude-code@2.1.197", "ajv": "ajv@8.20.0"}
NPM_CACHE = Path(os.environ.get("SKILLYARD_INTEROP_NPM")
                 or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "skillyard-interop")
# Off: telemetry of the npm clients (there is no network beyond the registries anyway).
QUIET_ENV = {"DISABLE_TELEMETRY": "1", "DO_NOT_TRACK": "1", "DISABLE_AUTOUPDATER": "1", "CI": "1",
             "NO_COLOR": "1", "npm_config_update_notifier": "false"}


def npm_install(key: str) -> Path:
    """Install one pinned npm package into its own cache prefix (reused when present); skip when npm fails."""
    spec = NPM[key]
    prefix = NPM_CACHE / spec.replace("/", "_").replace("@", "-").strip("-")
    marker = prefix / ".installed"
    if marker.is_file():
        return prefix
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip(f"{spec}: npm is not installed (apt-get install npm)")
    prefix.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), spec],
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
