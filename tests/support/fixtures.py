"""Pytest fixtures for client tests; import them in a conftest: `from tests.support.fixtures import *`.

- `skill_home`: an isolated $SKILLCLI_HOME (and $HOME) with quick HTTP settings (timeout 2 s, backoff 0.05 s).
- `git_server` / `other_server`: running GitServers on 127.0.0.1; `git_server` is also the configured GitHub
  raw and codeload host (SKILL_GITHUB_RAW_URL / SKILL_GITHUB_CODELOAD_URL point at it).
- `published`: git_server with the SAMPLE_SKILLS registry at acme/skills (url, registry, owner, repo).
- `skill_cli`: run `skill ...` in-process -> Result(code, out, err).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from types import SimpleNamespace

import pytest

from .gitserver import GitServer
from .registry import publish_registry, registry_url

__all__ = ["SAMPLE_SKILLS", "skill_home", "git_server", "other_server", "published", "skill_cli", "CliResult"]

SAMPLE_SKILLS = [
    {
        "name": "invoice-processor",
        "description": "Extract totals, dates and vendors from invoices; 处理发票 and receipts.",
        "version": "1.2.0",
        "tags": ["finance", "pdf"],
        "files": {"scripts/extract.py": "print('extract')\n", "references/fields.md": "# Fields\n"},
        "executable": ["scripts/extract.py"],
        "inputs": [{"name": "currency", "type": "string", "description": "Default currency", "required": False,
                    "default": "EUR"}],
        "mcp_deps": [{"tool": "filesystem", "required": True, "description": "Reads the invoice files"}],
        "capabilities": ["reads-files", "runs-scripts"],
    },
    {
        "name": "pdf-tools",
        "description": "Merge, split and fill PDF forms.",
        "version": "0.3.1",
        "tags": ["pdf", "documents"],
    },
    {
        "name": "commit-writer",
        "description": "Write clear git commit messages from a diff.",
        "version": "2.0.0",
        "tags": ["git", "writing"],
        "findings": [{"rule": "long-description", "severity": "info", "message": "Consider a shorter body."}],
    },
]


@pytest.fixture
def skill_home(tmp_path, monkeypatch):
    home = tmp_path / "skillcli"
    user_home = tmp_path / "userhome"
    user_home.mkdir()
    monkeypatch.setenv("SKILLCLI_HOME", str(home))
    monkeypatch.setenv("HOME", str(user_home))
    monkeypatch.setenv("SKILL_HTTP_TIMEOUT", "2")
    monkeypatch.setenv("SKILL_HTTP_BACKOFF", "0.05")
    for name in ("SKILL_GITHUB_RAW_URL", "SKILL_GITHUB_CODELOAD_URL", "SKILL_GITHUB_API_URL", "SKILL_CACHE_TTL",
                 "SKILL_HTTP_RETRIES"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def git_server(tmp_path, monkeypatch, skill_home):
    server = GitServer(tmp_path / "server").start()
    monkeypatch.setenv("SKILL_GITHUB_RAW_URL", server.url)
    monkeypatch.setenv("SKILL_GITHUB_CODELOAD_URL", server.url)
    yield server
    server.stop()


@pytest.fixture
def other_server(tmp_path):
    server = GitServer(tmp_path / "other-server").start()
    yield server
    server.stop()


@pytest.fixture
def published(git_server):
    registry = publish_registry(git_server, "acme", "skills", SAMPLE_SKILLS, name="acme")
    return SimpleNamespace(server=git_server, owner="acme", repo="skills", registry=registry,
                           url=registry_url(git_server, "acme", "skills"))


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture
def skill_cli(capsys):
    from skillyard.cli.main import skill_main

    def run(*argv: str) -> CliResult:
        capsys.readouterr()
        try:
            code = skill_main(list(argv))
        except SystemExit as exc:  # argparse usage errors
            code = int(exc.code or 0)
        captured = capsys.readouterr()
        sys.stdout.flush()
        return CliResult(code, captured.out, captured.err)

    return run
