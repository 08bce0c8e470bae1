"""One object an agent host keeps: roots + permission rules -> index, prompt, tools and file reads."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from skillyard.runtime import cache, files, permissions, prompt
from skillyard.runtime.discovery import Discovery, Root, Skill, default_roots
from skillyard.runtime.files import SkillFileError, read_in

TYPE_CHECKING = False  # not `typing`'s: importing typing costs ~5 ms of `skill prompt`
if TYPE_CHECKING:  # approvals (file locking, atomic writes) and tooldefs load only when used: not for `skill prompt`
    from skillyard.runtime.approvals import Approvals

ALWAYS = "always"  # what `approve` returns for "always allow": remembered per agent and skill


class ApprovalRequired(SkillFileError):
    """The agent's rules say `ask` for this skill and the host did not approve."""


class SkillRuntime:
    """`approve(name)` answers an `ask` rule: True (once), False, or "always" (remembered in `approvals` for
    `agent`). `sources` keeps only skills from those root sources (design 002 §5); `lenient` is design 002 §4.3's
    migration mode. With `agent` and no `rules`, that agent's permission files are read (`permissions.agent_rules`:
    user, project, `$SKILL_PERMISSIONS`; a damaged file raises `RulesError`); `rules=[]` means none."""

    def __init__(self, roots: list[Root] | None = None, *, cwd: str | os.PathLike | None = None,
                 home: str | os.PathLike | None = None, rules: list[tuple[str, str]] | None = None,
                 cache_dir: Path | None | bool = None, approve: Callable[[str], bool | str] | None = None,
                 agent: str | None = None, approvals: Approvals | None = None,
                 sources: list[str] | tuple[str, ...] | None = None, lenient: bool = False):
        self.roots = roots if roots is not None else default_roots(cwd, home=home)
        if rules is None and agent:
            rules = permissions.agent_rules(agent, cwd=cwd, home=home)
        self.rules = list(rules or [])
        self.cache_dir = cache_dir
        self.approve = approve
        self.agent = agent
        self.approvals = approvals
        self.sources = tuple(sources) if sources else None
        self.lenient = lenient
        self._discovery: Discovery | None = None

    def discovery(self, *, refresh: bool = False) -> Discovery:
        if self._discovery is None or refresh:
            self._discovery = cache.discover(self.roots, cache_dir=self.cache_dir, lenient=self.lenient)
        return self._discovery

    def _remembered(self, skill: Skill) -> bool:
        return bool(self.agent and self.approvals and self.approvals.allowed(self.agent, skill.name, skill.location))

    def permissions(self) -> dict[str, str]:
        """{name: allow|ask} of every skill not denied; a remembered "always allow" turns `ask` into `allow`."""
        found = self.discovery().by_name()
        out = permissions.filter_names(list(found), self.rules)
        for name, action in out.items():
            if action == "ask" and self._remembered(found[name]):
                out[name] = "allow"
        return out

    def skills(self) -> list[Skill]:
        """Skills this agent may see, in name order (denied, model-hidden and filtered-out sources left out)."""
        allowed = self.permissions()
        return [s for s in self.discovery().skills if s.name in allowed and s.model_invocable
                and (self.sources is None or s.source in self.sources)]

    def prompt(self, fmt: str = "xml", *, with_report: bool = False) -> str:
        return prompt.render(self.skills(), fmt, asks=self.permissions(),
                             report=self.discovery().report if with_report else None)

    def tools(self, provider: str) -> list[dict]:
        """The `read_skill_file` tool for `provider` (openai, openai-responses, anthropic, gemini)."""
        from skillyard.runtime import tooldefs

        return [tooldefs.read_skill_file_tool(provider, [s.name for s in self.skills()])]

    def _checked(self, skill: object) -> Skill:
        found = {s.name: s for s in self.skills()}.get(skill) if isinstance(skill, str) else None
        if found is None:
            raise SkillFileError(f"no available skill named {skill!r}")
        if self.permissions().get(skill) == "ask":
            answer = self.approve(skill) if self.approve else False
            if answer == ALWAYS and self.agent and self.approvals:
                self.approvals.remember(self.agent, found.name, found.location)
            elif answer is not True and answer != ALWAYS:
                raise ApprovalRequired(f"loading skill {skill!r} needs the user's approval")
        return found

    def read_skill_file(self, skill: str, path: str) -> str:
        """The text of one file of an available skill (after the agent's permission check)."""
        return read_in(self._checked(skill).folder, path)

    def list_skill_files(self, skill: str, folder: str = ".") -> list[str]:
        """The files of an available skill a read can open (hidden files and client bookkeeping never appear)."""
        found = self._checked(skill)
        listed, _ = files.list_files(found.folder, "" if folder in ("", ".") else folder)
        return listed

    def tool_result(self, skill: str, path: str) -> str:
        """What the model gets back (design 003 §4): a title, the skill's base directory, then the file, or, for a
        folder (`.` is the skill itself), the list of files it holds."""
        found = self._checked(skill)
        head = [f"Base directory: {found.folder}", "(paths in this skill are relative to it)", ""]
        if isinstance(path, str) and (path.strip().strip("/") in ("", ".") or _is_folder(found.folder, path)):
            listed, truncated = files.list_files(found.folder, "" if path.strip().strip("/") in ("", ".") else path)
            where = "" if path.strip().strip("/") in ("", ".") else f" in {path.strip('/')}/"
            more = [f"(the first {len(listed)} files; there are more)"] if truncated else []
            return "\n".join([f"# Files of skill {found.name}{where}", *head, *listed, *more]) + "\n"
        text = read_in(found.folder, path)
        return "\n".join([f"# Skill {found.name}: {path}", *head]) + "\n" + text

    def handle_tool_call(self, name: str, arguments: dict) -> str:
        """Run a `read_skill_file` call from a model; refusals come back as text the model can read.

        Arguments are design 001's `{skill_name, file_path}`; the earlier `{skill, path}` is still understood."""
        if name != "read_skill_file":
            return f"error: unknown tool {name!r}"
        if not isinstance(arguments, dict):
            return "error: arguments must be an object with `skill_name` and `file_path`"
        skill = arguments.get("skill_name", arguments.get("skill"))
        path = arguments.get("file_path", arguments.get("path"))
        from skillyard.runtime.approvals import ApprovalsError

        try:
            return self.tool_result(skill, path)
        except (SkillFileError, ApprovalsError) as exc:  # a damaged approvals file is an answer, not a traceback
            return f"error: {exc}"


def _is_folder(folder: str, path: str) -> bool:
    try:
        files.resolve_dir(folder, path)
    except SkillFileError:
        return False
    return True


def read_skill_file(skill: str, path: str, *, roots: list[Root] | None = None, **options) -> str:
    """Read a file of a discovered skill (default roots): see `SkillRuntime.read_skill_file`."""
    return SkillRuntime(roots, **options).read_skill_file(skill, path)
