"""Publish a registry into a GitServer repository: skill folders + a registry.json that matches the schema.

Until `skillyard.registry.build` is available the entries are assembled here from `load_skill`, the same
facts the builder uses (files, sha256, integrity, inventory) plus the commit that holds them.
"""

from __future__ import annotations

import json
from pathlib import Path

from skillyard.format.package import load_skill
from skillyard.format.policy import Policy
from skillyard.format.schemas import check_document

from .gitserver import GitServer

GITHUB_RAW = "https://raw.githubusercontent.com"


def skill_md(name: str, description: str, body: str = "", **extra) -> str:
    """A SKILL.md with `name`, `description` and any extra frontmatter keys (dumped as JSON-compatible YAML)."""
    lines = ["---", f"name: {name}", f"description: {json.dumps(description, ensure_ascii=False)}"]
    for key, value in extra.items():
        lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    lines += ["---", "", body or f"# {name}\n\nUse this skill when asked.\n"]
    return "\n".join(lines)


def skill_files(spec: dict) -> dict[str, str | bytes]:
    """The files of one skill spec: `files` as given, plus a generated SKILL.md unless one is given."""
    files = dict(spec.get("files") or {})
    if "SKILL.md" not in files:
        extra = {"version": spec.get("version", "1.0.0"), "license": spec.get("license", "MIT"),
                 "tags": spec.get("tags", [])}
        files["SKILL.md"] = skill_md(spec["name"], spec["description"], **extra)
    return files


def registry_entry(folder: Path, rel_path: str, commit: str, spec: dict) -> dict:
    package = load_skill(folder, Policy(strict=False), rel_path=rel_path)
    entry = {
        "name": spec["name"],
        "description": spec["description"],
        "version": str(spec.get("version", "1.0.0")),
        "tags": list(spec.get("tags", [])),
        "author": spec.get("author", "Fixture Author"),
        "maintainers": list(spec.get("maintainers", ["fixture"])),
        "license": spec.get("license", "MIT"),
        "path": rel_path,
        "commit": commit,
        "updated_at": "2026-11-01T12:00:00Z",
        "files": [f.to_dict() for f in package.files],
        "integrity": package.integrity(),
        "inventory": package.inventory,
        "capabilities": list(spec.get("capabilities", [])),
        "mcp_deps": list(spec.get("mcp_deps", [])),
        "inputs": list(spec.get("inputs", [])),
        "findings": list(spec.get("findings", [])),
    }
    for key in ("display_name", "homepage", "compatibility", "allowed_tools", "metadata", "runtime",
                "security_exceptions"):
        if key in spec:
            entry[key] = spec[key]
    return entry


def build_registry(server: GitServer, owner: str, repo: str, skills: list[dict], *, commit: str,
                   name: str | None = None) -> dict:
    repo_path = server.repo_path(owner, repo)
    entries = []
    for spec in skills:
        rel = spec.get("path", f"skills/{spec['name']}")
        entries.append(registry_entry(repo_path / rel, rel, commit, spec))
    registry = {
        "schema_version": "1.0",
        "name": name or f"{owner}/{repo}",
        "description": f"Fixture registry {owner}/{repo}",
        "homepage": f"https://example.invalid/{owner}/{repo}",
        "repository": {"url": f"https://github.com/{owner}/{repo}", "slug": f"{owner}/{repo}",
                       "raw_url_template": f"{GITHUB_RAW}/{owner}/{repo}/{{commit}}/{{path}}"},
        "skills": sorted(entries, key=lambda e: e["name"]),
    }
    check_document("registry", registry, what="fixture registry.json")
    return registry


def publish_registry(server: GitServer, owner: str, repo: str, skills: list[dict], *,
                     name: str | None = None, branch: str = "main") -> dict:
    """Commit every skill's folder, then registry.json describing them; create the repo on first use.

    Each spec: name, description, version?, tags?, files? {rel: content}, executable? (rel paths), inputs?,
    mcp_deps?, capabilities?, findings?, and any optional registry field. Returns the registry dict; its
    registry URL is `server.raw_url(owner, repo, branch, "registry.json")`.
    """
    files: dict[str, str | bytes] = {}
    executable: list[str] = []
    for spec in skills:
        rel = spec.get("path", f"skills/{spec['name']}")
        for path, content in skill_files(spec).items():
            files[f"{rel}/{path}"] = content
        executable += [f"{rel}/{p}" for p in spec.get("executable", ())]
    if (owner, repo) not in server.state.repos:
        server.create_repo(owner, repo, branch=branch)
    sha = server.commit(owner, repo, files, message="skills", executable=tuple(executable),
                        allow_empty=not files)
    registry = build_registry(server, owner, repo, skills, commit=sha, name=name)
    text = json.dumps(registry, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    server.commit(owner, repo, {"registry.json": text}, message="registry")
    return registry


def registry_url(server: GitServer, owner: str, repo: str, branch: str = "main") -> str:
    return server.raw_url(owner, repo, branch, "registry.json")


def publish_built_registry(server: GitServer, owner: str, repo: str, skills: list[dict], *,
                           name: str | None = None, strict: bool = False) -> dict:
    """Like publish_registry, but registry.json is compiled by the real `skillyard.registry.build` from the
    committed repository (a skillyard.toml names the GitHub slug, so files are served by `server`)."""
    from skillyard.registry.build import build_registry as real_build

    files: dict[str, str | bytes] = {
        "skillyard.toml": (f'name = "{name or owner}"\nrepository = "{owner}/{repo}"\n'
                           f'mode = "{"strict" if strict else "lenient"}"\nskills_dir = "skills"\n'),
    }
    executable: list[str] = []
    for spec in skills:
        rel = spec.get("path", f"skills/{spec['name']}")
        files.update({f"{rel}/{path}": content for path, content in skill_files(spec).items()})
        executable += [f"{rel}/{p}" for p in spec.get("executable", ())]
    if (owner, repo) not in server.state.repos:
        server.create_repo(owner, repo)
    server.commit(owner, repo, files, message="skills", executable=tuple(executable))
    result = real_build(server.repo_path(owner, repo), use_cache=False)
    if not result.registry:
        problems = [f.message for c in result.checked for f in getattr(c, "findings", []) if f.is_error]
        raise AssertionError(f"skillyard build refused the fixture skills: {problems}")
    text = json.dumps(result.registry, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    server.commit(owner, repo, {"registry.json": text}, message="registry")
    return result.registry
