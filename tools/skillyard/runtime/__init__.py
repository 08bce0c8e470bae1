"""Lazy loading of skills for agents: discover, index for the model, serve files on demand.

Importable without the CLI; depends on `skillyard.format` only.

    from skillyard.runtime import SkillRuntime
    rt = SkillRuntime()                      # project, $SKILL_PATH and user roots
    system_prompt += rt.prompt()             # <available_skills> XML
    tools = rt.tools("anthropic")            # [read_skill_file{skill_name, file_path} tool]
    text = rt.handle_tool_call("read_skill_file", {"skill_name": "pdf-tools", "file_path": "SKILL.md"})

`SkillRuntime(agent=..., approvals=Approvals(), approve=callback)` remembers "always allow" answers per agent.
"""

from __future__ import annotations

from skillyard.runtime.approvals import Approvals, ApprovalsError
from skillyard.runtime.cache import discover, invalidate
from skillyard.runtime.discovery import Discovery, Root, Skill, default_roots, explicit_roots, scan
from skillyard.runtime.files import SkillFileError, read_in
from skillyard.runtime.prompt import render, to_text, to_xml
from skillyard.runtime.service import ApprovalRequired, SkillRuntime, read_skill_file
from skillyard.runtime.tooldefs import read_skill_file_tool

__all__ = [
    "ApprovalRequired",
    "Approvals",
    "ApprovalsError",
    "Discovery",
    "Root",
    "Skill",
    "SkillFileError",
    "SkillRuntime",
    "default_roots",
    "discover",
    "explicit_roots",
    "invalidate",
    "read_in",
    "read_skill_file",
    "read_skill_file_tool",
    "render",
    "scan",
    "to_text",
    "to_xml",
]
