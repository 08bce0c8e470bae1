"""Lazy loading of skills for agents: discover, index for the model, serve files on demand.

Importable without the CLI; depends on `skillyard.format` only.

    from skillyard.runtime import SkillRuntime
    rt = SkillRuntime()                      # project, $SKILL_PATH and user roots
    system_prompt += rt.prompt()             # a usage line, then the <available_skills> XML
    tools = rt.tools("anthropic")            # [read_skill_file{skill_name, file_path} tool]
    text = rt.handle_tool_call("read_skill_file", {"skill_name": "pdf-tools", "file_path": "SKILL.md"})

`SkillRuntime(agent=...)` applies that agent's permission files (user, project, $SKILL_PERMISSIONS) unless `rules=`
is given; with `approvals=Approvals(), approve=callback` it remembers "always allow" answers per agent.
"""

from __future__ import annotations

import importlib

# Names are imported on first use (PEP 562), so `skill prompt` and `skill read`, which import one submodule, do not
# pay for all of them at start-up.
_WHERE = {
    "Approvals": "approvals", "ApprovalsError": "approvals", "discover": "cache", "invalidate": "cache",
    "Discovery": "discovery", "Root": "discovery", "Skill": "discovery", "default_roots": "discovery",
    "explicit_roots": "discovery", "scan": "discovery", "SkillFileError": "files", "read_in": "files",
    "render": "prompt", "to_text": "prompt", "to_xml": "prompt", "ApprovalRequired": "service",
    "SkillRuntime": "service", "read_skill_file": "service", "read_skill_file_tool": "tooldefs",
}


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    globals()[name] = value
    return value


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
