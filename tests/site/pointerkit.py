"""Pointer entries for site tests: real git repositories on the GitHub stand-in (tests/support/gitserver.py), and
registry.json entries recorded from them exactly as `skillyard build` compiles a source.yaml (format/pointer.py)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.support.gitserver import GitServer

from skillyard.format.pointer import Pointer

UPSTREAM_BODY = "# Alpha upstream\n\nThe upstream body says **hello from alpha**.\n\nSee [the notes](references/notes.md).\n"


def upstream_skill_md(name: str, description: str, body: str = UPSTREAM_BODY) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}"


def pointer_entry(server: GitServer, owner: str, repo: str, folder: str, *, name: str, licence: str,
                  record: dict[str, bytes] | None = None, updated_at: str = "2026-05-01T00:00:00Z",
                  extra: dict | None = None) -> dict:
    """The registry entry of a pointer to `owner/repo/folder` at the repository's HEAD. `record`: the file bytes the
    pointer recorded (default: the folder's bytes at HEAD; give other bytes to make the pin disagree with upstream)."""
    commit = server.sha(owner, repo)
    base = server.repo_path(owner, repo) / folder
    if record is None:
        record = {str(p.relative_to(base)): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file()}
    files = [{"path": rel, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
             for rel, data in sorted(record.items())]
    description = f"The {name} skill, from {owner}/{repo}. Use when testing pointer pages."
    data = {"schema_version": 1, "name": name,
            "upstream": {"host": "github", "repository": f"{owner}/{repo}", "path": folder, "commit": commit,
                         "tracks": "main"},
            "license": licence, "skill": {"name": name, "description": description, "version": "1.0.0",
                                          "skill_md_lines": 5},
            "files": files}
    entry = Pointer(data).entry(f"skills/{name}")
    entry["updated_at"] = updated_at
    entry.update(extra or {})
    return entry


def make_upstreams(server: GitServer) -> None:
    """up/skills (MIT): skills/alpha and skills/gamma; gpl/tools: skills/beta."""
    server.create_repo("up", "skills", {
        "skills/alpha/SKILL.md": upstream_skill_md("alpha", "Alpha."),
        "skills/alpha/references/notes.md": "# Alpha notes\n",
        "skills/gamma/SKILL.md": upstream_skill_md("gamma", "Gamma.", "# Gamma\n\nThe gamma body.\n"),
        "skills/gamma/references/notes.md": "# Gamma notes, as upstream has them\n",
        "README.md": "up\n",
    })
    server.create_repo("gpl", "tools", {
        "skills/beta/SKILL.md": upstream_skill_md("beta", "Beta.", "# Beta\n\nThe beta body is GPL.\n"),
    })


def pointer_entries(server: GitServer) -> list[dict]:
    """alpha: allowed and matching; beta: a licence not on the list; gamma: a recorded file differs upstream."""
    gamma_files = {"SKILL.md": upstream_skill_md("gamma", "Gamma.", "# Gamma\n\nThe gamma body.\n").encode(),
                   "references/notes.md": b"# Gamma notes, as the pointer recorded them\n"}
    return [
        pointer_entry(server, "up", "skills", "skills/alpha", name="alpha", licence="MIT OR GPL-2.0-only"),
        pointer_entry(server, "gpl", "tools", "skills/beta", name="beta", licence="GPL-3.0-only"),
        pointer_entry(server, "up", "skills", "skills/gamma", name="gamma", licence="Apache-2.0",
                      record=gamma_files),
    ]


def add_pointers(registry_path: Path, entries: list[dict]) -> None:
    """Append pointer entries to a registry.json written by the site fixtures (sorted by name, as build writes)."""
    registry = json.loads(registry_path.read_text(encoding="utf-8"))
    registry["skills"] = sorted(registry["skills"] + entries, key=lambda s: s["name"])
    registry_path.write_text(json.dumps(registry, ensure_ascii=False, indent=2, sort_keys=True) + "\n",
                             encoding="utf-8")


def tree_bytes(out: Path) -> dict[str, bytes]:
    """Every file of a built site by relative path (symlinks followed: `--out` is a link to the current tree)."""
    out = out.resolve()
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
