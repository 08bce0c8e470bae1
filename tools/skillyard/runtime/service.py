"""One object an agent host keeps: roots + permission rules -> index, prompt, tools and file reads."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from skillyard.runtime import cache, permissions, prompt, tooldefs
from skillyard.runtime.discovery import Discovery, Root, Skill, default_roots
from skillyard.runtime.files import SkillFileError, read_in


class ApprovalRequired(SkillFileError):
    """The agent's rules say `ask` for this skill and the host did not approve."""


class SkillRuntime:
    def __init__(self, roots: list[Root] | None = None, *, cwd: str | os.PathLike | None = None,
                 home: str | os.PathLike | None = None, rules: list[tuple[str, str]] | None = None,
                 cache_dir: Path | None | bool = None, approve: Callable[[str], bool] | None = None):
        self.roots = roots if roots is not None else default_roots(cwd, home=home)
        self.rules = list(rules or [])
        self.cache_dir = cache_dir
        self.approve = approve
        self._discovery: Discovery | None = None

    def discovery(self, *, refresh: bool = False) -> Discovery:
        if self._discovery is None or refresh:
            self._discovery = cache.discover(self.roots, cache_dir=self.cache_dir)
        return self._discovery

    def permissions(self) -> dict[str, str]:
        return permissions.filter_names([s.name for s in self.discovery().skills], self.rules)

    def skills(self) -> list[Skill]:
        """Skills this agent may see, in name order (denied and model-hidden skills left out)."""
        allowed = self.permissions()
        return [s for s in self.discovery().skills if s.name in allowed and s.model_invocable]

    def prompt(self, fmt: str = "xml", *, with_report: bool = False) -> str:
        return prompt.render(self.skills(), fmt, asks=self.permissions(),
                             report=self.discovery().report if with_report else None)

    def tools(self, provider: str) -> list[dict]:
        """The `read_skill_file` tool for `provider` (openai, openai-responses, anthropic, gemini)."""
        return [tooldefs.read_skill_file_tool(provider, [s.name for s in self.skills()])]

    def read_skill_file(self, skill: str, path: str) -> str:
        found = {s.name: s for s in self.skills()}.get(skill) if isinstance(skill, str) else None
        if found is None:
            raise SkillFileError(f"no available skill named {skill!r}")
        if self.permissions().get(skill) == "ask" and not (self.approve and self.approve(skill)):
            raise ApprovalRequired(f"loading skill {skill!r} needs the user's approval")
        return read_in(found.folder, path)

    def handle_tool_call(self, name: str, arguments: dict) -> str:
        """Run a `read_skill_file` call from a model; refusals come back as text the model can read."""
        if name != "read_skill_file":
            return f"error: unknown tool {name!r}"
        if not isinstance(arguments, dict):
            return "error: arguments must be an object with `skill` and `path`"
        try:
            return self.read_skill_file(arguments.get("skill"), arguments.get("path"))
        except SkillFileError as exc:
            return f"error: {exc}"


def read_skill_file(skill: str, path: str, *, roots: list[Root] | None = None, **options) -> str:
    """Read a file of a discovered skill (default roots): see `SkillRuntime.read_skill_file`."""
    return SkillRuntime(roots, **options).read_skill_file(skill, path)
