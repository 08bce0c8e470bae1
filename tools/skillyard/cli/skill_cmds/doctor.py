"""skill doctor: check the client's setup end to end and say how to fix each problem."""

from __future__ import annotations

NAME = "doctor"
HELP = "check config, sources, cache, MCP hub, target folders and installed skills; exit 1 on problems"
DESCRIPTION = """\
Checks, in order: the config file parses; each source answers and its cached registry is valid (a stale cache is
refreshed); the MCP hub answers (when one is configured); each target folder can be written; every installed
skill still matches its skill.lock.json (edited, missing or added files, missing target links). Every finding
comes with its fix. Exit status is 1 when any check fails. Both scopes by default (your home's and the current
project's skills and folders, as `skill list`); --user or --project for one.

examples:
  skill doctor
  skill doctor --project --json
"""

OK, WARN, FAIL = "ok", "warning", "error"


def add_arguments(parser) -> None:
    from skillyard.cli.skill_cmds import _scopes

    _scopes.add_arguments(parser, project_help="only the current project's skills and folders",
                          user_help="only your home's skills and folders")
    parser.add_argument("--offline", action="store_true", help="skip checks that need the network")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")


def _finding(check: str, status: str, message: str, fix: str | None = None, **extra) -> dict:
    out = {"check": check, "status": status, "message": message}
    if fix:
        out["fix"] = fix
    out.update(extra)
    return out


def check_config(home=None) -> tuple[object | None, list[dict]]:
    from skillyard.client.config import load_config
    from skillyard.errors import SkillyardError

    try:
        config = load_config(home)
    except SkillyardError as exc:
        return None, [_finding("config", FAIL, exc.message, exc.fix or "Fix or delete the config file.")]
    return config, [_finding("config", OK, f"{config.path} parses ({len(config.sources)} source(s))")]


def check_sources(config, *, offline: bool) -> list[dict]:
    import time

    from skillyard.client import cache
    from skillyard.errors import SkillyardError

    if not config.sources:
        return [_finding("sources", WARN, "no sources are configured (the built-in default source is off)",
                         "Add one: `skill source add <registry.json URL>`.")]
    out = []
    for source in config.sources:
        meta = cache.read_meta(config, source)
        age = time.time() - float(meta.get("checked_at", 0)) if meta else None
        was_stale = age is None or age >= config.cache_ttl
        if offline:
            if meta is None:
                out.append(_finding("source", FAIL, f"source {source.name!r} has no cached registry",
                                    f"Run `skill source refresh {source.name}` while online.", source=source.name))
            else:
                status = WARN if was_stale else OK
                out.append(_finding("source", status, f"source {source.name!r}: cache checked {int(age)}s ago",
                                    f"Run `skill source refresh {source.name}`." if was_stale else None,
                                    source=source.name))
            continue
        warnings: list[str] = []
        try:
            (entry,) = cache.sync(config, sources=[source], refresh=True, warn=warnings.append)
        except SkillyardError as exc:
            if source.builtin:
                cause = exc.__cause__ if isinstance(exc.__cause__, SkillyardError) else exc  # said once, not twice
                out.append(_finding("source", FAIL, f"the built-in default source {source.name!r} cannot be reached: "
                                    f"{cause.message}",
                                    "Check your network (and proxy), or stop using it: `skill source remove "
                                    f"{source.name}`, or put your own registry first: `skill source add URL --default`.",
                                    source=source.name, builtin=True))
                continue
            out.append(_finding("source", FAIL, f"source {source.name!r} ({source.url}): {exc.message}",
                                exc.fix or "Check the URL and your network, then `skill source refresh`.",
                                source=source.name))
            continue
        if entry.status == "failed":
            err = entry.error.message if entry.error else "unreachable"
            out.append(_finding("source", FAIL, f"source {source.name!r} is unreachable ({err}); using a cache "
                                f"{'older than the TTL' if was_stale else 'that is still fresh'}",
                                f"Check {source.url} and your network, then `skill source refresh {source.name}`.",
                                source=source.name))
            continue
        note = " (stale cache refreshed)" if was_stale and meta is not None else ""
        out.append(_finding("source", OK, f"source {source.name!r} answers; cache {entry.status}{note}",
                            source=source.name))
    return out


def check_hub(config, *, offline: bool) -> list[dict]:
    from skillyard.client import mcp
    from skillyard.errors import SkillyardError

    try:
        hub = mcp.hub_from_config(config)
    except SkillyardError as exc:
        return [_finding("mcp-hub", FAIL, exc.message, exc.fix)]
    if hub is None:
        return [_finding("mcp-hub", OK, "no MCP hub configured (MCP dependencies are checked against the agents' own MCP settings)")]
    if offline:
        return [_finding("mcp-hub", WARN, f"MCP hub {hub.endpoint} not checked (--offline)")]
    try:
        tools = mcp.list_tools(hub)
    except OSError as exc:
        return [_finding("mcp-hub", FAIL, f"MCP hub {hub.endpoint} does not answer: {exc}",
                         "Start the hub, or fix `mcp_hub.endpoint` with `skill config set mcp_hub.endpoint URL`.")]
    return [_finding("mcp-hub", OK, f"MCP hub {hub.endpoint} answers ({len(tools)} tools)")]


def _writable(path) -> tuple[bool, str]:
    import os
    from pathlib import Path

    probe = Path(path)
    while not probe.exists():
        if probe.parent == probe:
            return False, str(probe)
        probe = probe.parent
    return (probe.is_dir() and os.access(probe, os.W_OK | os.X_OK)), str(probe)


def check_targets(scopes: dict) -> list[dict]:
    from skillyard.client.targets import EMIT_DIR, TARGETS

    out = []
    for scope, root in scopes.items():
        seen = set()
        for target in TARGETS.values():
            folder = root / (target.folder(scope) if target.kind == "dir" else f"{EMIT_DIR}/{target.name}")
            if folder in seen:
                continue
            seen.add(folder)
            ok, existing = _writable(folder)
            if ok:
                out.append(_finding("target", OK, f"{target.name} ({scope}): {folder} is writable",
                                    target=target.name, scope=scope))
            else:
                out.append(_finding("target", FAIL, f"{target.name} ({scope}): cannot write {folder} "
                                    f"({existing} is not writable)",
                                    f"Fix the permissions of {existing}, or install with --copy elsewhere.",
                                    target=target.name, scope=scope))
    return out


def check_installed(scopes: dict) -> list[dict]:
    import os
    from pathlib import Path

    from skillyard.client import lockfile, store
    from skillyard.errors import SkillyardError

    out = []
    ignore = {"evolution.json"}  # notes kept by `skill evolve`, not installed files
    for scope, root in scopes.items():
        for name in store.installed_names(root):
            folder = store.canonical_dir(root, name)
            try:
                lock = lockfile.read_skill_lock(folder)
            except (SkillyardError, OSError, ValueError) as exc:
                message = getattr(exc, "message", str(exc))
                out.append(_finding("installed", FAIL, f"{name} ({scope}): unreadable skill.lock.json: {message}",
                                    f"Reinstall: `skill install {name} --force`.", skill=name, scope=scope))
                continue
            expected = {f["path"] for f in lock.get("files", [])}
            differing = [p for p in store.edited_files(folder, lock.get("files", [])) if p not in ignore]
            missing = [p for p in differing if p in expected and not (folder / p).exists()]
            edited = [p for p in differing if p in expected and p not in missing]
            added = [p for p in differing if p not in expected]
            broken_links = [t["path"] for t in lock.get("targets", [])
                            if t.get("mode") in ("link", "copy") and not os.path.exists(t["path"])]
            broken_links += [t["path"] for t in lock.get("targets", [])
                             if t.get("mode") == "generated" and not Path(t["path"]).is_dir()]
            if not (missing or edited or added or broken_links):
                out.append(_finding("installed", OK, f"{name} ({scope}) matches its lockfile", skill=name,
                                    scope=scope))
                continue
            parts = []
            if edited:
                parts.append("edited: " + ", ".join(edited))
            if missing:
                parts.append("missing: " + ", ".join(missing))
            if added:
                parts.append("added: " + ", ".join(added))
            if broken_links:
                parts.append("target gone: " + ", ".join(broken_links))
            flag = " --project" if scope == "project" else ""
            out.append(_finding("installed", FAIL, f"{name} ({scope}) differs from its lockfile ({'; '.join(parts)})",
                                f"Restore it with `skill install {name} --force{flag}` (keep your edits elsewhere "
                                "first), or re-place targets by reinstalling.", skill=name, scope=scope,
                                edited=edited, missing=missing, added=added, targets_missing=broken_links))
    return out


def run(args) -> int:
    import sys
    from pathlib import Path

    from skillyard.cli.common import print_json
    from skillyard.cli.skill_cmds import _scopes

    chosen = _scopes.chosen(args)
    scopes = {scope: Path(root) for scope, root in chosen}
    config, findings = check_config()
    if config is not None:
        findings += check_sources(config, offline=args.offline)
        findings += check_hub(config, offline=args.offline)
    findings += check_targets(scopes)
    findings += check_installed(scopes)
    failed = [f for f in findings if f["status"] == FAIL]
    if args.json:
        print_json({"ok": not failed, "scope": _scopes.names(chosen), "findings": findings})
    else:
        marks = {OK: "ok  ", WARN: "warn", FAIL: "FAIL"}
        from skillyard.cli.common import say

        say(_scopes.line(chosen))
        for f in findings:  # messages quote sources, servers and installed skills
            say(f"[{marks[f['status']]}] {f['message']}")
            if f.get("fix") and f["status"] != OK:
                say(f"       fix: {f['fix']}")
        print(f"{len(failed)} problem(s) found." if failed else "Everything looks fine.",
              file=sys.stderr if failed else sys.stdout)
    return 1 if failed else 0
