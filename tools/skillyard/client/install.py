"""`skill install`: turn a ref into checked bytes, then into an installed, locked skill — or into nothing.

Order matters and is the point of it, one module per step:

    resolve   candidates.py      a ref (NAME, github:, archive, folder) -> a Candidate, nothing written
    fetch     fetch.py           download every file, capped, through the client's HTTP layer
    verify    fetch.py           each file's size and sha256, nothing extra, the whole-skill integrity
    judge     install_policy.py  the client's policy and limits (what refuses, what only warns)
    plan      transaction.py     inputs (type-checked), MCP dependencies, rendering — still nothing written
    commit    transaction.py     staged, journaled, one commit record, swapped in atomically (see `store`)
    place     placement.py       each target's link, copy or generated files; then the lockfiles
    restore   restore.py         `skill install` with no ref: exactly what skills.lock.json pins

Everything that can fail runs before the first write. This module is the command's one import: it names the
steps' public functions so callers need not know which room each lives in.
"""

from __future__ import annotations

from skillyard.client.candidates import (
    GENERATED,
    MANIFEST,
    Candidate,
    candidate_for,
    from_archive,
    from_github,
    from_local,
    from_resolved,
    is_local_ref,
    prepare,
    raw_url_at,
    ref_kind,
    split_inputs,
    with_generated_skill_md,
)
from skillyard.client.fetch import download, download_capped, fetch_files, integrity_of, verify_files
from skillyard.client.install_policy import (
    LIMIT_KEYS,
    TOLERATED_RULES,
    check_entry_limits,
    client_policy,
    download_cap,
    folder_name,
    is_strict,
    judge,
    summarize_errors,
)
from skillyard.client.placement import default_targets, place_targets, remove_targets
from skillyard.client.restore import locked_candidate, restore_project
from skillyard.client.transaction import (
    Options,
    Outcome,
    Plan,
    apply_intent,
    check_deps,
    install,
    install_all,
    plan,
    plan_inputs,
    recover,
    recover_locked,
    render_files,
)

__all__ = [
    "GENERATED", "LIMIT_KEYS", "MANIFEST", "TOLERATED_RULES", "Candidate", "Options", "Outcome", "Plan",
    "apply_intent", "candidate_for", "check_deps", "check_entry_limits", "client_policy", "default_targets",
    "download", "download_cap", "download_capped", "fetch_files", "folder_name", "from_archive", "from_github",
    "from_local", "from_resolved", "install", "install_all", "integrity_of", "is_local_ref", "is_strict", "judge",
    "locked_candidate", "place_targets", "plan", "plan_inputs", "prepare", "raw_url_at", "recover",
    "recover_locked", "ref_kind", "remove_targets", "render_files", "restore_project", "split_inputs",
    "summarize_errors", "verify_files", "with_generated_skill_md", "plan_all",
]


def plan_all(candidates: list[Candidate], opts: Options, config) -> list[Plan]:
    """Every prepared skill checked (inputs, MCP dependencies) before any is written: all of them, or none.
    `skill install REF...` and the MCP install tool (client/mcp_registry.py) share one path: prepare -> plan_all ->
    install_all (the tool asks the user between plan_all and install_all)."""
    from dataclasses import replace

    per_skill = split_inputs(candidates, opts.cli_inputs)
    return [plan(c, replace(opts, cli_inputs=per_skill[c.name]), config) for c in candidates]
