"""Serve the skills an agent would see over MCP (issue 38, stdio step), on the official Python SDK.

Progressive disclosure as design 003 describes it: the server's instructions and `list_skills` carry the short
index (`skill prompt --format text`); `load_skill` returns one SKILL.md body with the skill's file inventory;
`read_skill_file` and the `skill://NAME/PATH` resources read other files through the runtime's own path rule
(`runtime.files`: no escapes, no links out, the size cap). Permissions are the runtime's: a denied skill never
appears; an `ask` skill's content is returned only after the user says yes through MCP elicitation (once per
server process), and is refused when the client cannot elicit. Before any content of an installed skill is
returned it must be what `skill install` committed (`runtime.integrity`: no pending journal, files matching its
`skill.lock.json`). `mcp_live` sends list_changed when skills come and go, `mcp_scripts` runs a skill's scripts
(only when allowed, and only after the user's yes), `mcp_http` serves over loopback HTTP with a bearer token.
Importable without the CLI; needs `skillyard[mcp]`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Annotated

import anyio
from mcp.server.mcpserver import AcceptedElicitation, Context, Elicit, ElicitationResult, MCPServer, Resolve
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.resources import ResourceSecurity
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, Field

from skillyard.format.frontmatter import split_frontmatter
from skillyard.runtime import files, integrity, mcp_scripts, prompt
from skillyard.runtime.discovery import Skill
from skillyard.runtime.files import SkillFileError
from skillyard.runtime.service import SkillRuntime

SERVER_NAME = "skillyard"
MODERN_VERSIONS = MODERN_PROTOCOL_VERSIONS  # no server-initiated requests there: input-required rounds instead
HOW_TO = ("Agent Skills served by Skillyard. Pick a skill from the index below by its description, call `load_skill` "
          "with its name to get its instructions (SKILL.md) and the list of its files, then read any file it refers "
          "to with `read_skill_file` (skill_name, file_path) or the resource skill://NAME/PATH. Skills marked [ask] "
          "need the user's confirmation, which the server asks for itself.")


class Confirm(BaseModel):
    """What an elicitation asks the user: one yes/no (load an `ask` skill, run a script)."""

    allow: bool = Field(description="Allow it")


class ConfirmSkill(Confirm):
    """Loading an `ask` skill may also be remembered, as `skill permissions` and the runtime's hosts do."""

    always: bool = Field(default=False, description="Always allow this skill for this agent (remembered)")


class SkillServer:
    """The MCP side of one `SkillRuntime`: permission checks that may ask the user, and the file reads."""

    def __init__(self, runtime: SkillRuntime):
        self.rt = runtime
        self.approved: set[str] = set()  # `ask` skills the user said yes to in this server process
        self.prompts: set[str] = set()  # names registered as MCP prompts (re-registered when skills change)

    def index(self) -> str:
        skills = self.rt.skills()
        if not skills:
            return "No skills are available."
        return prompt.to_text(skills, asks=self.rt.permissions())

    def instructions(self) -> str:
        return HOW_TO + "\n\n" + self.index()

    def _find(self, name: object, *, invocable: bool = False) -> Skill:
        pool = self.user_invocable() if invocable else self.rt.skills()
        found = {s.name: s for s in pool}.get(name) if isinstance(name, str) else None
        if found is None:
            raise SkillFileError(f"no available skill named {name!r}; call list_skills to see them")
        return found

    def _needs_yes(self, found: Skill) -> bool:
        return self.rt.permissions().get(found.name) == "ask" and found.name not in self.approved

    async def skill(self, name: object, ctx: Context | None, *, invocable: bool = False,
                    answer: ElicitationResult | None = None) -> Skill:
        """The skill if this agent may see it; an `ask` skill first needs the user's yes through elicitation:
        `answer` when a tool's resolver asked (either protocol era), else asked here (prompts, resources)."""
        found = self._find(name, invocable=invocable)
        await anyio.to_thread.run_sync(integrity.check, found.folder, found.name)  # never a changed or half-installed one
        if self._needs_yes(found):
            if isinstance(answer, AcceptedElicitation) and isinstance(answer.data, ConfirmSkill):
                await self._record(found, answer.data)
            elif answer is not None and not isinstance(answer, AcceptedElicitation):
                raise SkillFileError(f"the user did not approve loading skill {found.name!r}")
            else:
                await self._ask(found, ctx)
        return found

    def _question(self, found: Skill) -> str:
        who = f"Agent {self.rt.agent!r}" if self.rt.agent else "The assistant"
        return f"{who} wants to load skill {found.name!r} ({found.source}: {found.folder}). Allow it for this session?"

    async def question(self, name: object, ctx: Context | None) -> Elicit[ConfirmSkill] | None:
        """What a tool's resolver asks before the tool runs, or None (no question, or a refusal the tool gives)."""
        try:
            found = self._find(name)
            await anyio.to_thread.run_sync(integrity.check, found.folder, found.name)
        except SkillFileError:
            return None
        if not self._needs_yes(found) or not _can_elicit(ctx):
            return None
        return Elicit(self._question(found), ConfirmSkill)

    async def _ask(self, found: Skill, ctx: Context | None) -> None:
        if not _can_elicit(ctx):
            raise SkillFileError(f"skill {found.name!r} needs the user's approval (an `ask` rule), and this client "
                                 "cannot ask the user (no MCP elicitation support); allow the skill in "
                                 "permissions.toml or use a client that supports elicitation")
        if ctx.protocol_version in MODERN_VERSIONS:  # no server-initiated requests outside a tool's resolvers
            raise SkillFileError(f"skill {found.name!r} needs the user's approval (an `ask` rule); call the "
                                 "load_skill tool first, which asks, then read it here")
        answer = await ctx.elicit(self._question(found), ConfirmSkill)
        if answer.action != "accept":
            raise SkillFileError(f"the user did not approve loading skill {found.name!r}")
        await self._record(found, answer.data)

    async def _record(self, found: Skill, data: ConfirmSkill) -> None:
        if not data.allow:
            raise SkillFileError(f"the user did not approve loading skill {found.name!r}")
        self.approved.add(found.name)
        if data.always and self.rt.agent and self.rt.approvals is not None:
            # the runtime's own store: `skill permissions list` shows it, a copy of the skill elsewhere asks again
            from skillyard.runtime.approvals import ApprovalsError

            with contextlib.suppress(ApprovalsError):  # the yes holds for this session; remembering is a convenience
                await anyio.to_thread.run_sync(self.rt.approvals.remember, self.rt.agent, found.name, found.location)

    def user_invocable(self) -> list[Skill]:
        """Skills the user may call as commands (MCP prompts): not denied, `user-invocable` not false."""
        allowed = self.rt.permissions()
        return [s for s in self.rt.discovery().skills if s.name in allowed and s.controls.get("user_invocable", True)
                and (self.rt.sources is None or s.source in self.rt.sources)]

    async def load(self, name: object, ctx: Context | None, *, invocable: bool = False,
                   answer: ElicitationResult | None = None) -> str:
        found = await self.skill(name, ctx, invocable=invocable, answer=answer)
        text = files.read_in(found.folder, "SKILL.md")
        split = split_frontmatter(text)
        body = split[1] if split else text
        listed, truncated = files.list_files(found.folder)
        more = [f"(the first {len(listed)} files; there are more)"] if truncated else []
        inventory = "\n".join(f"- {rel}" for rel in listed if rel != "SKILL.md") or "(none besides SKILL.md)"
        return (f"# Skill {found.name}\nBase directory: {found.folder}\n\n{body.strip()}\n\n"
                f"## Files of this skill\nRead them with read_skill_file or skill://{found.name}/PATH\n"
                + inventory + ("\n" + "\n".join(more) if more else "") + "\n")

    async def read_text(self, name: object, path: object, ctx: Context | None,
                        answer: ElicitationResult | None = None) -> str:
        found = await self.skill(name, ctx, answer=answer)
        data = await anyio.to_thread.run_sync(files.read_bytes_in, found.folder, path)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise SkillFileError(f"{path} is binary, not UTF-8 text; read it as the resource "
                                 f"skill://{found.name}/{path}") from None

    async def read_any(self, name: str, path: str, ctx: Context | None) -> str | bytes:
        """Text as text, anything else as bytes (a blob resource)."""
        found = await self.skill(name, ctx)
        data = await anyio.to_thread.run_sync(files.read_bytes_in, found.folder, path)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return data

    def _command(self, name: object, script: object, args: object) -> tuple[Skill, list[str]]:
        found = self._find(name)
        return found, mcp_scripts.command_for(found.folder, script, [] if args is None else args)

    def script_question(self, name: object, script: object, args: object, ctx: Context | None,
                        timeout: float) -> Elicit[Confirm] | None:
        try:
            found, argv = self._command(name, script, args)
        except SkillFileError:
            return None
        if not _can_elicit(ctx):
            return None
        return Elicit(f"Run this command from skill {found.name!r}?\n\n  {mcp_scripts.shown(argv)}\n\n"
                      f"in {found.folder}, with a scrubbed environment, for at most {timeout:g} seconds.", Confirm)

    async def run_script(self, name: object, script: object, args: object, ctx: Context | None, timeout: float,
                         skill_answer: ElicitationResult | None, run_answer: ElicitationResult | None) -> str:
        """Run it only after the user's yes to the exact command (asked by the tool's resolver)."""
        if not _can_elicit(ctx):
            raise SkillFileError("running a script needs the user's yes, and this client cannot ask the user (no MCP "
                                 "elicitation support); run it yourself, or use a client that supports elicitation")
        found = await self.skill(name, ctx, answer=skill_answer)
        _, argv = self._command(found.name, script, args)
        yes = isinstance(run_answer, AcceptedElicitation) and isinstance(run_answer.data, Confirm) \
            and run_answer.data.allow
        if not yes:
            raise SkillFileError(f"the user did not approve running {mcp_scripts.shown(argv)}")
        result = await mcp_scripts.run(argv, found.folder, timeout=timeout)
        return mcp_scripts.report(argv, result, timeout)


def _can_elicit(ctx: Context | None) -> bool:
    caps = ctx.client_capabilities if ctx is not None else None
    return caps is not None and caps.elicitation is not None


# Tools ask through resolvers: the SDK then asks in the way the negotiated protocol allows (a request in the middle
# of the call before 2026-07-28, an input-required round trip from then on). Module-level, so the tools'
# annotations resolve; the server's SkillServer is found through the context.
async def _skill_question(skill_name: str, ctx: Context) -> Elicit[ConfirmSkill] | None:
    return await ctx.mcp_server.skillyard_state.question(skill_name, ctx)


def _script_question(skill_name: str, script_path: str, args: list[str] | None,
                     ctx: Context) -> Elicit[Confirm] | None:
    state = ctx.mcp_server.skillyard_state
    return state.script_question(skill_name, script_path, args, ctx, state.script_timeout)


SkillYes = Annotated[ElicitationResult[ConfirmSkill], Resolve(_skill_question)]
ScriptYes = Annotated[ElicitationResult[Confirm], Resolve(_script_question)]
ExtraTools = Callable[[MCPServer], None]


def build_server(runtime: SkillRuntime, *, extra_tools: ExtraTools | None = None, allow_scripts: bool = False,
                 script_timeout: float = mcp_scripts.DEFAULT_TIMEOUT) -> MCPServer:
    """An MCPServer with the tools, the resource template and one prompt per user-invocable skill.

    `extra_tools(server)` registers more tools on the same server (the registry's, from outside `runtime/`, which
    must not import the client): it is called once, after the skill tools, with the `MCPServer`. `allow_scripts`
    adds the `run_script` tool. The server's `skillyard_live` is the list_changed poll (`mcp_live.Live`) and its
    `skillyard_state` the SkillServer. An extra tool that must ask the user should do it as `load_skill` does, with a
    module-level resolver (`Annotated[ElicitationResult[Model], Resolve(fn)]`, fn returning `Elicit(...)`): a plain
    `ctx.elicit` fails on 2026-07-28 clients, the SDK's default."""
    from skillyard.runtime.mcp_live import Live

    state = SkillServer(runtime)
    state.script_timeout = script_timeout
    server = MCPServer(SERVER_NAME, instructions=state.instructions(), version=_version(), log_level="WARNING")
    server.skillyard_state = state

    @server.tool(description="The index of available skills: one line each with name, source and description.")
    def list_skills() -> str:
        return state.index()

    @server.tool(description="Load a skill: its SKILL.md instructions (without frontmatter) and the list of its "
                             "files. Call this before using a skill.")
    async def load_skill(skill_name: str, ctx: Context, yes: SkillYes) -> str:
        return await _answer(state.load(skill_name, ctx, answer=yes))

    @server.tool(description="Read one file of a skill; file_path is relative to the skill folder (e.g. "
                             "references/forms.md). Paths that leave the folder are refused.")
    async def read_skill_file(skill_name: str, file_path: str, ctx: Context, yes: SkillYes) -> str:
        return await _answer(state.read_text(skill_name, file_path, ctx, answer=yes))

    # The runtime's path rule gives the clear refusal; the SDK's own traversal check would answer less clearly.
    @server.resource("skill://{name}/{+path}", name="skill-file", description="A file of an available skill",
                     security=ResourceSecurity(exempt_params={"name", "path"}))
    async def skill_file(name: str, path: str, ctx: Context) -> str | bytes:
        return await _answer(state.read_any(name, path, ctx), ResourceError)

    if allow_scripts:
        @server.tool(description="Run a script bundled with a skill (e.g. scripts/extract.py), in the skill's folder. "
                                 "The user is asked first and sees the exact command; output is capped and the run "
                                 f"stops after {script_timeout:g} seconds.")
        async def run_script(skill_name: str, script_path: str, ctx: Context, yes: SkillYes, run: ScriptYes,
                             args: list[str] | None = None) -> str:
            return await _answer(state.run_script(skill_name, script_path, args, ctx, script_timeout, yes, run))

    _sync_prompts(server, state)
    if extra_tools is not None:
        extra_tools(server)
    live = Live(state, server, on_change=lambda: _sync_prompts(server, state))
    live.install()
    server.skillyard_live = live
    return server


def _sync_prompts(server: MCPServer, state: SkillServer) -> None:
    """Register one prompt per user-invocable skill, dropping those that went away (and re-adding changed ones)."""
    for name in state.prompts:
        server.remove_prompt(name)
    state.prompts = set()
    for skill in state.user_invocable():
        _add_prompt(server, state, skill)
        state.prompts.add(skill.name)


def _add_prompt(server: MCPServer, state: SkillServer, skill: Skill) -> None:
    """A Prompt built directly, not through `server.prompt()`: that derives a pydantic model per function (~2 ms
    each), which for 1,000 skills was seconds at every start and every list_changed; these take no arguments."""
    from mcp.server.mcpserver.prompts.base import Prompt

    async def use_skill(ctx: Context) -> str:
        return await _answer(state.load(skill.name, ctx, invocable=True))

    server.add_prompt(Prompt(name=skill.name, description=prompt.shorten(skill.description, 300), arguments=[],
                             fn=use_skill, context_kwarg="ctx"))


async def _answer(pending, error: type[Exception] = ToolError):
    """Refusals become the SDK's ToolError/ResourceError, whose message (the runtime's) reaches the client as is."""
    try:
        return await pending
    except SkillFileError as exc:
        raise error(str(exc)) from None


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("skillyard")
    except PackageNotFoundError:
        return "0"


def serve_stdio(runtime: SkillRuntime, *, extra_tools: ExtraTools | None = None, **options) -> None:
    """Run the server on stdin/stdout until the client closes the stream; the list_changed poll runs beside it."""
    server = build_server(runtime, extra_tools=extra_tools, **options)

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(server.skillyard_live.run)
            await server.run_stdio_async()
            group.cancel_scope.cancel()

    anyio.run(main)


def serve_http(runtime: SkillRuntime, *, port: int = 0, token: str | None = None,
               on_ready: Callable[[str, str], None] | None = None, extra_tools: ExtraTools | None = None,
               **options) -> None:
    """Serve over streamable HTTP on 127.0.0.1:`port` (0: a free one) behind a bearer token (a random one unless
    given); `on_ready(url, token)` is called once the socket listens, before the first request can arrive."""
    from skillyard.runtime import mcp_http

    server = build_server(runtime, extra_tools=extra_tools, **options)
    token = token or mcp_http.new_token()
    sock = mcp_http.bind(port)
    if on_ready is not None:
        on_ready(mcp_http.url_of(sock), token)
    anyio.run(mcp_http.serve, server, sock, token, server.skillyard_live.run)
