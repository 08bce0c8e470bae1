"""Fixtures for the bot and publish tests: a GitHub stand-in on 127.0.0.1 with a registry repository."""

from __future__ import annotations

import io
import json
import sys
import zipfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from ghstub import GitHubStandIn, git_blob_sha  # noqa: E402

REGISTRY_SLUG = "skillyard/registry"
EXISTING = "pdf-tools"


def registry_doc(skills: dict[str, dict] | None = None) -> dict:
    """A small registry.json following schemas/registry.schema.json: skill name -> {author, maintainers}."""
    skills = skills if skills is not None else {EXISTING: {"author": "alice", "maintainers": ["bob"]}}
    out = []
    for name, people in sorted(skills.items()):
        out.append({
            "name": name, "description": f"{name} does things.", "version": "1.0.0", "path": f"skills/{name}",
            "commit": "a" * 40, "updated_at": "2026-01-01T00:00:00Z", "author": people.get("author", ""),
            "maintainers": people.get("maintainers", []),
            "files": [{"path": "SKILL.md", "size": 10, "sha256": "0" * 64},
                      {"path": "scripts/run.py", "size": 10, "sha256": "1" * 64}],
            "integrity": "sha256-" + "2" * 64,
            "inventory": {"has_scripts": True, "script_files": ["scripts/run.py"], "reference_files": [],
                          "asset_files": [], "total_files": 2, "total_size": 20}})
    return {"schema_version": "1.0", "name": "skillyard",
            "repository": {"url": "https://github.com/skillyard/registry", "slug": REGISTRY_SLUG,
                           "raw_url_template": "https://raw.githubusercontent.com/skillyard/registry/{commit}/{path}"},
            "skills": out}


def make_report(skills: list[dict], changed_paths: list[str] | None = None, mode: str = "strict") -> dict:
    """A validate report (schemas/validate-report.schema.json) from [{name, valid, findings}]."""
    entries = []
    for s in skills:
        entries.append({"name": s["name"], "path": s.get("path", f"skills/{s['name']}"), "valid": s.get("valid", True),
                        "version": s.get("version", "1.0.0"), "findings": s.get("findings", [])})
    errors = sum(1 for s in entries for f in s["findings"] if f["severity"] == "error")
    warnings = sum(1 for s in entries for f in s["findings"] if f["severity"] == "warning")
    doc = {"schema_version": "1.0", "mode": mode, "ok": all(s["valid"] for s in entries),
           "summary": {"skills": len(entries), "valid": sum(s["valid"] for s in entries),
                       "invalid": sum(not s["valid"] for s in entries), "errors": errors, "warnings": warnings},
           "skills": entries}
    if changed_paths is not None:
        doc["changed_paths"] = changed_paths
    return doc


@pytest.fixture
def stub():
    server = GitHubStandIn(tokens={"bot-token": "skillyard-bot", "author-token": "carol"}).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def registry_repo(stub):
    repo = stub.add_repo(REGISTRY_SLUG)
    repo.permissions = {"maintainer": "admin", "skillyard-bot": "write", "mallory": "triage"}
    base = stub.add_commit(repo, files={"README.md": b"# registry\n", "skills/pdf-tools/SKILL.md": b"---\n---\n",
                                        "skills/pdf-tools/scripts/run.py": b"print()\n"})
    repo.refs["heads/main"] = base
    data = json.dumps(registry_doc()).encode()
    repo.contents[("main", "registry.json")] = data
    repo.blobs[git_blob_sha(data)] = data
    return repo


@pytest.fixture
def bot_env(monkeypatch, tmp_path):
    monkeypatch.setenv("GITHUB_TOKEN", "bot-token")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SKILLCLI_HOME", str(tmp_path / "skillcli"))
    monkeypatch.delenv("GITHUB_API_URL", raising=False)


def write_artifact(tmp_path: Path, doc, name: str = "report.json") -> Path:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return path


def artifact_zip(doc, member: str = "report.json") -> bytes:
    """An artifact archive as GitHub serves it: a zip with the uploaded report.json (bytes or a JSON document)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(member, doc if isinstance(doc, bytes | str) else json.dumps(doc))
    return buffer.getvalue()
