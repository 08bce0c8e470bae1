"""skill install: install skills from a registry, GitHub, a folder or an archive; with no ref, restore skills.lock.json."""

from __future__ import annotations

NAME = "install"
HELP = ("install skills (name[@version], github:owner/repo[/path][@ref], a folder, or a .zip/.tar.gz/.tgz archive); "
        "no ref restores the lockfile")
DESCRIPTION = """\
Install one or more skills. Every file is checked against the registry's size and sha256 before anything is
written, the install is atomic, and a skill.lock.json records what was installed. Several skills are all-or-nothing:
each is fetched and checked (inputs, MCP dependencies, limits) before any is written. Without a ref inside a
project, installs exactly what skills.lock.json lists and verifies every hash (like `npm ci`). An archive holding
several skills: name one as ARCHIVE/folder. Limits are the client's (config install.*; see the security page).

examples:
  skill install invoice-processor --input target_collection=bills
  skill install pdf-tools@0.3.1 --target claude-code --target cursor --project
  skill install github:acme/invoice-processor@v1.2.0 --dry-run
  skill install ./my-skill
  skill install ./downloads/pdf-tools.zip
  skill install ./bundle.tar.gz/skills/pdf-tools
  skill install            # in a project: restore skills.lock.json
  skill install --offline  # the same on a plane: cached registries, files from copies already installed
  skill install ./security-teaching --accept security-pipe-to-shell:references/attacks.md

MCP dependencies (`mcp_deps`): checked against the configured hub (mcp_hub.endpoint); with none, against the MCP
servers the target agent has configured (Claude Code .mcp.json and ~/.claude.json, Codex config.toml, Gemini CLI
settings.json, VS Code mcp.json). A required tool a check finds missing refuses; a tool nothing can check
installs with a warning and the lock records "unchecked" (--require-deps refuses instead).

Pointer entries (a registry listing a skill that lives in its own repository) are `verified` when a maintainer of
the registry approved the PR that set their pin; --require-verified (config install.require_verified) refuses the
others, here and when restoring the lockfile. The registry's own skills pass: their files are its own.

Security findings: a folder, archive or github: skill with a finding is refused; one that quotes attacks to teach
them can be installed by accepting each finding by name (--accept RULE:FILE, as the refusal prints it). Only the
scanner's exceptable rules can be accepted, never a finding in a SKILL.md or skill.yaml value; the lock records
what was accepted and a restore repeats it, refusing any other finding. A registry's skill installs only with the
exceptions its registry reviewed.

Files already on this machine: a file whose sha256 an installed copy (either scope) still holds is taken from it
rather than downloaded, so a restore works with the server gone; the install then says so. --offline never uses
the network and fails, naming the files, when one is not on this machine.
"""


def add_arguments(parser) -> None:
    from skillyard.cli.skill_cmds._install_common import add_scope_arguments

    parser.add_argument("refs", nargs="*", metavar="REF",
                        help="name, name@version, github:owner/repo[/path][@ref], a folder, or ARCHIVE[/folder]")
    parser.add_argument("--target", action="append", metavar="TARGET",
                        help="where agents read it: claude-code, agents, codex, cursor, ... (repeatable; default from config)")
    add_scope_arguments(parser, project_help="install into the current project (and record it in skills.lock.json)")
    parser.add_argument("--input", action="append", metavar="NAME=VALUE", help="a value for one of the skill's inputs")
    parser.add_argument("--source", metavar="NAME", help="take registry skills from this configured source only")
    parser.add_argument("--dry-run", action="store_true", help="print the plan (files, sizes, inputs, deps, targets); write nothing")
    parser.add_argument("--force", action="store_true", help="reinstall, and overwrite local edits")
    parser.add_argument("--copy", action="store_true", help="copy into target folders instead of linking")
    parser.add_argument("--strict", action="store_true", default=None,
                        help="refuse standard violations runtimes tolerate (long description, odd name) instead of "
                             "warning (config `install.strict`)")
    parser.add_argument("--require-verified", action="store_true",
                        help="refuse skills from a registry's pointer entries whose pin no maintainer of the registry "
                             "approved (config `install.require_verified`); the registry's own skills pass")
    parser.add_argument("--skip-deps-check", action="store_true",
                        help="do not check the skill's MCP tools at all (the lock remembers: a restore skips too)")
    parser.add_argument("--require-deps", action="store_true", default=None,
                        help="refuse unless every required MCP tool is found (config `mcp.require_deps`); by default "
                             "a tool nothing can check installs with a warning")
    parser.add_argument("--probe-servers", action="store_true",
                        help="start the local MCP servers the target agent has configured and ask them for their tools "
                             "(runs their commands; config `mcp.probe_servers` does it for your home's settings only)")
    parser.add_argument("--accept", action="append", metavar="RULE:FILE",
                        help="install a folder, archive or github: skill despite one named security finding (as the "
                             "refusal prints it, e.g. security-pipe-to-shell:references/attacks.md), for a skill that "
                             "quotes attacks to teach them; recorded in the lock and repeated on restore (repeatable; "
                             "never for a registry's skill, nor for rules no exception may allow)")
    parser.add_argument("--offline", action="store_true",
                        help="never use the network: resolve from the cached registries and take every file from "
                             "verified copies already installed on this machine (each sha256 checked), or fail")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args) -> int:
    from skillyard.cli.common import print_json
    from skillyard.cli.skill_cmds._install_common import scope_of
    from skillyard.client import install as inst
    from skillyard.client.config import load_config
    from skillyard.client.inputs import parse_assignments
    from skillyard.errors import SkillyardError

    config = load_config()
    if args.require_verified:
        config.flags["install.require_verified"] = True
    if args.offline:
        config.flags["offline"] = True
    scope, project_root, home = scope_of(args)
    cli_inputs = parse_assignments(args.input)
    opts = inst.Options(scope=scope, project_root=project_root, home=home,
                        targets=list(dict.fromkeys(args.target or inst.default_targets(config))),
                        cli_inputs=cli_inputs, dry_run=args.dry_run, force=args.force,
                        skip_deps_check=args.skip_deps_check, require_deps=args.require_deps,
                        probe_servers=args.probe_servers, copy=args.copy)
    _check_targets(opts.targets)
    from skillyard.client import accept

    accepted = accept.parse(args.accept)
    if not args.refs:
        if args.input or args.target or args.source or accepted:
            raise SkillyardError("--input, --target, --source and --accept need at least one REF.",
                                 "Name the skill(s) to install, or run `skill install` alone to restore the lockfile.")
        outcomes = inst.restore_project(opts, config, progress=_progress_factory(args))
    else:
        candidates = inst.prepare(args.refs, config, source=args.source, progress=_progress_factory(args),
                                  strict=args.strict, accepted=accepted)
        outcomes = inst.install_all(inst.plan_all(candidates, opts, config))  # all checked before any is written
    if args.json:
        print_json({"ok": True, "dry_run": args.dry_run, "skills": [o.to_dict() for o in outcomes]})
    else:
        for outcome in outcomes:
            _print(outcome, dry_run=args.dry_run)
    if not args.json:
        from skillyard.cli.skill_cmds._install_common import warn

        for outcome in outcomes:
            for message in outcome.warnings:
                warn(message)
    return 0


def _check_targets(names: list[str]) -> None:
    try:
        from skillyard.client import targets
    except ImportError:
        return
    for name in names:
        targets.get(name)


def _progress_factory(args):
    """A Progress bar per multi-file download, on a terminal only (and never with --json)."""
    from skillyard.cli.common import Progress

    def make(label: str, total: int):
        return Progress(label, total, enabled=None if not args.json and total > 1 else False)

    return make


def _print(outcome, *, dry_run: bool) -> None:
    from skillyard.cli.common import say
    from skillyard.cli.skill_cmds._install_common import shorten
    from skillyard.units import human_size

    total = sum(f["size"] for f in outcome.files)
    if dry_run:
        source = outcome.source
        where = source.get("source") or source.get("url") or source.get("path") or source["type"]
        say(f"would install {outcome.name} {outcome.version} ({source['type']}: {where}) "
            f"into {shorten(outcome.path)}")
        say(f"  files ({len(outcome.files)}, {human_size(total)}):")
        for entry in outcome.files:
            say(f"    {entry['path']}  {human_size(entry['size'])}")
        if outcome.inputs:
            say("  inputs:")
            for key, value in sorted(outcome.inputs.items()):
                say(f"    {key} = {value!r}")
        deps = outcome.deps
        if deps["deps"]:
            say("  MCP dependencies:" + ("" if deps["checked"] else f" (not checked: {deps['error']})"))
            for dep in deps["deps"]:
                state = {True: "available", False: "MISSING", None: "unknown"}[dep["available"]]
                why = f" ({dep['why']})" if dep.get("why") else ""
                say(f"    {dep['tool']} ({'required' if dep['required'] else 'optional'}): {state}{why}")
        say(f"  targets: {', '.join(t['target'] for t in outcome.targets)} ({outcome.scope} scope)")
        say("nothing was written (--dry-run)")
        return
    verb = {"installed": "installed", "updated": "updated", "unchanged": "already installed"}[outcome.status]
    placed = ", ".join(f"{t['target']}" + (f" ({t['mode']})" if t.get("mode") else "") for t in outcome.targets)
    say(f"{verb} {outcome.name} {outcome.version} → {shorten(outcome.path)} "
        f"({len(outcome.files)} files, {human_size(total)}; {placed})")
