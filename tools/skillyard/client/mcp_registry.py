"""The registry over MCP (issue 38 item 5): tools on `skill mcp`'s server that search the configured registries,
show one skill's facts and install one. They are registered through the server's extra-tools hook
(`runtime.mcp_server.build_server(..., extra_tools=register)`) because runtime/ must not import the client.

- `search_skills` answers what `skill search --json` prints; `skill_info` what `skill info --json` prints for a
  registry skill (entry, versions per source, upstream facts of a pointer entry, where it is installed).
- `install_skill` goes the CLI's own install path (client.install: prepare -> plan_all -> install_all), so the
  client's policy applies exactly as on the command line: `install.require_verified`, `install.strict`, the limits,
  the security scan, the MCP-dependency check. Between planning and writing it always asks the user through MCP
  elicitation, showing name, version, source, verified or not, and the registry's findings. Anything but a yes
  (decline, cancel, a client that cannot ask) installs nothing.

Only registry refs (NAME, NAME@VERSION, NAME@SOURCE) are taken: a model must not point the server at folders,
archives or arbitrary GitHub repositories on the user's machine. Blocking work (network, disk) runs in a worker
thread so the server keeps answering other calls meanwhile.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import anyio
from mcp.server.mcpserver import AcceptedElicitation, Context, Elicit, ElicitationResult, MCPServer, Resolve
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from skillyard.errors import SkillyardError

MAX_LIMIT = 100  # search results per call: enough to choose from, small enough for a model's context


class ConfirmInstall(BaseModel):
    """What the install elicitation asks: one yes/no."""

    install: bool = Field(description="Install this skill")


def register(server: MCPServer, *, project_root: Path | None = None, home: Path | None = None) -> None:
    """Add search_skills, skill_info and install_skill to `server`. `project_root` is where a project-scope install
    goes and which project's skills `skill_info` reports (default: the working directory, which `skill mcp
    --project` sets); `home` the user's home folder."""
    project = Path(project_root or Path.cwd()).resolve()
    user_home = Path(home or Path.home())

    @server.tool(description="Search the skills of every configured registry (name, tags, description). Returns "
                             "JSON as `skill search --json` prints it: name, version, source, description, tags, "
                             "and `pointer`/`verified` (a skill living in its own repository, and whether a "
                             "maintainer of the registry approved its pin).")
    async def search_skills(query: str, limit: int = 20, source: str | None = None) -> str:
        return await _call(_search, query, max(1, min(int(limit), MAX_LIMIT)), source)

    @server.tool(description="Show everything a registry says of one skill (NAME, NAME@VERSION or NAME@SOURCE): "
                             "files, inputs, MCP dependencies, findings, versions per source, upstream and "
                             "verification of a pointer entry, and where it is installed. JSON as `skill info "
                             "--json` prints it.")
    async def skill_info(name: str, source: str | None = None) -> str:
        return await _call(_info, name, source, project, user_home)

    server.skillyard_registry = {"project_root": project, "home": user_home}  # for the module-level resolvers

    @server.tool(description="Install a skill from a configured registry (NAME, NAME@VERSION or NAME@SOURCE) for "
                             "the user's agents. The server asks the user to confirm (showing version, source, "
                             "verification and findings) and applies the client's install policy; nothing is "
                             "installed without the user's yes. scope: `user` (home) or `project` (the server's "
                             "project folder); inputs: values for the skill's declared inputs.")
    async def install_skill(name: str, ctx: Context, plans: PlansFor, yes: InstallYes, source: str | None = None,
                            scope: Literal["user", "project"] = "user", targets: list[str] | None = None,
                            inputs: dict[str, str] | None = None) -> str:
        return await install(ctx, name, plans, yes)


async def _call(function, *args):
    """Run blocking client code in a worker thread; a SkillyardError reaches the client as the tool's error text."""
    try:
        return await anyio.to_thread.run_sync(function, *args)
    except SkillyardError as exc:
        raise ToolError(str(exc)) from None


def _registry_ref(name: object) -> str:
    from skillyard.client.candidates import ref_kind

    if not isinstance(name, str) or not name.strip():
        raise SkillyardError("name is empty", "Give a skill's name as search_skills lists it.")
    kind = ref_kind(name)
    if kind != "registry":
        raise SkillyardError(f"{name!r} is a {kind} ref; over MCP only a configured registry's skills are served",
                             "Give NAME, NAME@VERSION or NAME@SOURCE as search_skills lists it, or use `skill "
                             "install` in a terminal for folders, archives and github: refs.")
    return name


def _search(query: str, limit: int, source: str | None) -> str:
    from skillyard.client.config import load_config
    from skillyard.client.search import search

    hits = search(load_config(), query, limit=limit, source=source)
    return _json({"query": query, "results": [h.to_dict() for h in hits]})


def _info(name: str, source: str | None, project: Path, home: Path) -> str:
    from skillyard.client import lockfile, store
    from skillyard.client.config import load_config
    from skillyard.client.resolve import resolve
    from skillyard.client.skill_info import describe

    found = resolve(store.check_ref_name(_registry_ref(name)), load_config(), source=source)
    info = describe(found)
    scopes = [("user", home)] + ([("project", project)] if project != home.resolve() else [])
    installed = []
    for scope, root in scopes:
        folder = store.canonical_dir(root, found.skill["name"])
        if (folder / store.SKILL_LOCK).is_file():
            try:
                version = lockfile.read_skill_lock(folder)["version"]
            except (SkillyardError, OSError, ValueError, KeyError):
                version = "?"
            installed.append({"scope": scope, "version": version})
    info.update({"scope": [s for s, _ in scopes], "installed": installed})
    return _json(info)


def _can_elicit(ctx: Context | None) -> bool:
    caps = ctx.client_capabilities if ctx is not None else None
    return caps is not None and caps.elicitation is not None


# install_skill asks through the SDK's resolvers, as the runtime's load_skill does: the SDK then asks the way the
# negotiated protocol allows (a request in the middle of the call before 2026-07-28, an input-required round trip
# from then on, where a plain ctx.elicit has no back-channel). The policy checks run in the first resolver, so a
# refusal comes before the user is asked; on the new protocol the resolvers re-run each round and the SDK takes the
# user's answer only if the question renders the same, so what is written is what the user confirmed.
async def _plan_install(name: str, source: str | None, scope: str, targets: list[str] | None,
                        inputs: dict[str, str] | None, ctx: Context):
    """Fetch and check the skill exactly as `skill install` would (nothing written): its plans, or None when this
    client cannot ask (the tool then refuses without touching the network)."""
    if not _can_elicit(ctx):
        return None
    from skillyard.client import install as inst
    from skillyard.client.config import load_config

    where = getattr(ctx.mcp_server, "skillyard_registry", None) or {}
    config = load_config()
    wanted = list(dict.fromkeys(targets or inst.default_targets(config)))
    opts = inst.Options(scope="project" if scope == "project" else "user",
                        project_root=Path(where.get("project_root") or Path.cwd()).resolve(),
                        home=Path(where.get("home") or Path.home()), targets=wanted, cli_inputs=dict(inputs or {}))

    def prepare_and_plan():
        from skillyard.client import targets as target_table

        for target in wanted:
            target_table.get(target)  # an unknown target is refused before any download, as the CLI does
        candidates = inst.prepare([_registry_ref(name)], config, source=source)
        return inst.plan_all(candidates, opts, config)

    return await _call(prepare_and_plan)


async def _install_question(plans: Annotated[list | None, Resolve(_plan_install)]) -> Elicit[ConfirmInstall] | None:
    return None if plans is None else Elicit(question(plans), ConfirmInstall)


PlansFor = Annotated[list | None, Resolve(_plan_install)]
InstallYes = Annotated[ElicitationResult[ConfirmInstall], Resolve(_install_question)]


async def install(ctx: Context | None, name: str, plans: list | None, answer: ElicitationResult | None) -> str:
    """The install tool's body: refuse where the client cannot ask, else write only after the user's yes to the
    question the resolvers asked."""
    if plans is None or not _can_elicit(ctx):
        raise ToolError(f"installing {name!r} needs the user's confirmation, and this client cannot ask the user "
                        "(no MCP elicitation support); nothing was installed. Run `skill install "
                        f"{name}` in a terminal instead.")
    from skillyard.client import install as inst

    yes = isinstance(answer, AcceptedElicitation) and isinstance(answer.data, ConfirmInstall) and answer.data.install
    if not yes:
        action = getattr(answer, "action", None)
        said = {"decline": "declined", "cancel": "cancelled"}.get(action, "did not confirm")
        raise ToolError(f"the user {said} installing {plans[0].candidate.name}; nothing was installed")
    outcomes = await _call(inst.install_all, plans)
    return _json({"ok": True, "dry_run": False, "skills": [o.to_dict() for o in outcomes]})


def question(plans) -> str:
    """The text the user confirms: what would be installed, from where, verified or not, and its findings. Every
    registry value goes through display.clean (a registry must not hide text from the person answering)."""
    from skillyard.client.display import clean
    from skillyard.client.search_rows import KIND_OWN, KIND_VERIFIED, kind
    from skillyard.units import human_size

    lines = []
    for plan in plans:
        candidate, outcome = plan.candidate, plan.outcome
        meta, src = candidate.meta, candidate.source
        where = f"{src.get('source')} ({src.get('url')})" if src.get("source") else src.get("url") or src["type"]
        trust = {KIND_OWN: "the registry's own skill (its files are in the registry's repository)",
                 KIND_VERIFIED: "verified: a maintainer of the registry approved the pinned commit"}.get(
            kind(meta), "NOT verified: no maintainer of the registry approved the pinned commit")
        lines += [f"Install skill {clean(candidate.name)} {clean(candidate.version)}?",
                  f"  source: {clean(where)}", f"  {trust}"]
        if meta.get("source_url"):
            lines.append(f"  upstream: {clean(meta['source_url'])} @ {clean(str(meta.get('commit', ''))[:12])}")
        if candidate.description:
            lines.append(f"  description: {clean(candidate.description)[:300]}")
        total = sum(f["size"] for f in outcome.files)
        lines.append(f"  files: {len(outcome.files)} ({human_size(total)}); into {clean(outcome.path)} "
                     f"({outcome.scope} scope) for {', '.join(clean(t['target']) for t in outcome.targets)}")
        if meta.get("capabilities"):
            lines.append("  capabilities: " + ", ".join(clean(c) for c in meta["capabilities"]))
        findings = [f for f in meta.get("findings") or [] if isinstance(f, dict)]
        lines.append(f"  findings: {len(findings) or 'none'}")
        for item in findings[:20]:
            place = f" ({clean(item['file'])})" if item.get("file") else ""
            lines.append(f"    {clean(item.get('severity', '?'))} {clean(item.get('rule', '?'))}{place}: "
                         f"{clean(item.get('message', ''))[:200]}")
        lines += [f"  warning: {clean(w)[:300]}" for w in [*candidate.warnings, *outcome.warnings][:10]]
    return "\n".join(lines)


def _json(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True)
