"""What `skill info --json` says of a skill, shared by the command and the MCP registry tools (client/mcp_registry.py):
a registry entry as its registry describes it (`describe`), or a fetched github:/folder/archive skill in the same
shape (`describe_candidate`)."""

from __future__ import annotations


def describe(found) -> dict:
    versions = [{"source": found.source.name, "priority": found.source.priority, "version": found.version,
                 "selected": True}]
    versions += [{"source": s.name, "priority": s.priority, "version": k["version"], "selected": False}
                 for s, k in found.others]
    versions.sort(key=lambda v: -v["priority"])
    from skillyard.client.pointer_info import upstream

    info = {"source": found.source.to_dict(), "skill": found.skill, "versions": versions, "stale": found.stale,
            "registry": {"name": found.registry.get("name"),
                         "repository": found.registry.get("repository", {}).get("url")},
            "skill_md_url": found.file_url("SKILL.md"),
            "install": f"skill install {found.skill['name']}@{found.source.name}"}
    facts = upstream(found.skill)
    if facts is not None:
        info["upstream"] = facts
    return info


def describe_candidate(candidate, ref: str) -> dict:
    """A fetched skill (github:, folder, archive) in the shape `describe` gives a registry entry."""
    meta = candidate.meta
    tools = meta.get("allowed_tools", meta.get("allowed-tools")) or []
    skill = {"name": candidate.name, "version": candidate.version, "description": candidate.description,
             "display_name": meta.get("display_name", meta.get("display-name")),
             "tags": meta.get("tags") or [], "author": meta.get("author"), "maintainers": meta.get("maintainers") or [],
             "license": meta.get("license"), "homepage": meta.get("homepage"),
             "compatibility": meta.get("compatibility"),
             "allowed_tools": tools.split() if isinstance(tools, str) else tools,
             "capabilities": meta.get("capabilities") or [], "inputs": candidate.inputs,
             "mcp_deps": candidate.mcp_deps,
             "files": [{**f.entry(), "executable": f.executable} for f in candidate.files],
             "path": candidate.source.get("path") or "", "commit": candidate.source.get("commit") or "",
             "integrity": candidate.source.get("integrity")}
    source = {k: v for k, v in candidate.source.items() if k in ("type", "url", "ref", "commit", "path")}
    return {"source": source, "skill": {k: v for k, v in skill.items() if v not in (None, "")} | {
                "path": skill["path"], "commit": skill["commit"]},
            "versions": [], "stale": False, "registry": None, "skill_md_url": None,
            "warnings": candidate.warnings, "install": f"skill install {ref}"}
