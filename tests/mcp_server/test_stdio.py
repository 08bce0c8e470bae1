"""`skill mcp` as a real subprocess, driven by the MCP Python SDK's own client over stdio (issue 38, first step).

Skills are real folders in a temporary HOME and project; permissions come from the user's permissions.toml. Every
test goes through the wire: initialize, tools, resources, prompts and elicitation."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import types  # noqa: E402
from mcp.client import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

SKILL = str(Path(sys.executable).with_name("skill"))  # the venv's, not a system `skill` (procps)
RULES = '[agents.tester.skills]\n"hidden-*" = "deny"\n"guarded" = "ask"\n'


def make_skill(root: Path, name: str, description: str, body: str, extra: str = "") -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n{body}\n")
    return folder


@pytest.fixture
def world(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    user = home / ".agents" / "skills"
    pdf = make_skill(user, "pdf-tools", "Fills and merges PDF forms. Use when the user shares a PDF.",
                     "# PDF tools\n\nSee references/forms.md.")
    (pdf / "references").mkdir()
    (pdf / "references" / "forms.md").write_text("# Forms\n\nField names first.\n")
    (pdf / "logo.bin").write_bytes(b"\x89PNG\x00\xff\xfe")
    (tmp_path / "secret.txt").write_text("outside")
    os.symlink(tmp_path / "secret.txt", pdf / "escape.txt")
    make_skill(user, "hidden-notes", "Private notes helper. Use when asked about notes.", "# Hidden")
    make_skill(user, "guarded", "Touches deployment keys. Use when deploying.", "# Guarded\n\nDeploy carefully.")
    make_skill(project / ".agents" / "skills", "pdf-tools", "Project copy of the PDF skill. Use for PDFs here.",
               "# Project PDF tools\n\nThe project's own version.")
    make_skill(user, "release-notes", "Writes release notes. Use when the user asks for a changelog entry.",
               "# Release notes", extra="disable-model-invocation: true\n")
    (home / ".agents" / "permissions.toml").write_text(RULES)
    return {"home": home, "project": project, "user": user}


def params(world, *extra: str) -> StdioServerParameters:
    env = {"HOME": str(world["home"]), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SKILL_PATH": ""}
    return StdioServerParameters(command=SKILL, args=["mcp", "--agent", "tester", "--no-cache",
                                                      "--project", str(world["project"]), *extra], env=env)


def session_run(world, body, *, answer=None, can_elicit=True):
    """Start `skill mcp`, initialize, run `body(session, init)`; `answer` is the user's elicitation reply."""
    asked = []

    async def elicit(context, request):
        asked.append(request.message)
        if answer is None:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"allow": answer})

    async def main():
        with anyio.fail_after(60):
            async with stdio_client(params(world)) as (read, write), \
                    ClientSession(read, write, elicitation_callback=elicit if can_elicit else None) as s:
                init = await s.initialize()
                return await body(s, init)

    return anyio.run(main), asked


def text_of(result) -> str:
    return "".join(c.text for c in result.content if getattr(c, "text", None) is not None)


def test_initialize_carries_the_index_and_lists_the_tools(world):
    async def body(s, init):
        tools = await s.list_tools()
        listed = await s.call_tool("list_skills", {})
        templates = await s.list_resource_templates()
        return init, tools, listed, templates

    (init, tools, listed, templates), _ = session_run(world, body)
    assert {t.name for t in tools.tools} == {"list_skills", "load_skill", "read_skill_file", "search_skills", "skill_info",
                                          "install_skill"}
    assert "- pdf-tools [project]: Project copy of the PDF skill" in init.instructions  # project beats user
    assert "guarded [user] [ask]" in init.instructions
    assert "hidden-notes" not in init.instructions  # deny hides it
    assert "release-notes" not in init.instructions  # not for the model: a prompt only
    assert text_of(listed) in init.instructions and "pdf-tools" in text_of(listed)
    assert [t.uri_template for t in templates.resource_templates] == ["skill://{name}/{+path}"]


def test_load_skill_gives_the_body_and_inventory(world):
    async def body(s, init):
        return await s.call_tool("load_skill", {"skill_name": "pdf-tools"})

    result, _ = session_run(world, body)
    text = text_of(result)
    assert not result.is_error
    assert "The project's own version." in text and "description:" not in text  # body only, the project's copy
    assert "See references/forms.md" not in text  # the user copy lost to the project's


def test_read_file_tool_and_resources(world):
    # the project's pdf-tools wins, so give it files too
    proj = world["project"] / ".agents" / "skills" / "pdf-tools"
    (proj / "references").mkdir()
    (proj / "references" / "forms.md").write_text("# Project forms\n")
    (proj / "logo.bin").write_bytes(b"\x89PNG\x00\xff\xfe")

    async def body(s, init):
        loaded = await s.call_tool("load_skill", {"skill_name": "pdf-tools"})
        tool = await s.call_tool("read_skill_file", {"skill_name": "pdf-tools", "file_path": "references/forms.md"})
        res = await s.read_resource("skill://pdf-tools/references/forms.md")
        blob = await s.read_resource("skill://pdf-tools/logo.bin")
        binary_tool = await s.call_tool("read_skill_file", {"skill_name": "pdf-tools", "file_path": "logo.bin"})
        return loaded, tool, res, blob, binary_tool

    (loaded, tool, res, blob, binary_tool), _ = session_run(world, body)
    assert "- references/forms.md" in text_of(loaded) and "- logo.bin" in text_of(loaded)
    assert text_of(tool) == "# Project forms\n"
    assert res.contents[0].text == "# Project forms\n"
    import base64

    assert base64.b64decode(blob.contents[0].blob) == b"\x89PNG\x00\xff\xfe"
    assert binary_tool.is_error and "binary" in text_of(binary_tool)


@pytest.mark.parametrize("path", ["../guarded/SKILL.md", "/etc/passwd", "references/../../x", "%2e%2e/x",
                                  ".hidden", "a\\b"])
def test_path_escapes_are_refused_with_a_clear_error(world, path):
    async def body(s, init):
        return await s.call_tool("read_skill_file", {"skill_name": "pdf-tools", "file_path": path})

    result, _ = session_run(world, body)
    assert result.is_error
    assert any(word in text_of(result) for word in ("path", "hidden", "relative", ".."))


def test_a_link_out_of_the_folder_is_refused_by_tool_and_resource(world):
    user_pdf = world["user"] / "pdf-tools"
    proj = world["project"] / ".agents" / "skills" / "pdf-tools"
    os.symlink(user_pdf / "escape.txt", proj / "escape.txt")

    async def body(s, init):
        tool = await s.call_tool("read_skill_file", {"skill_name": "pdf-tools", "file_path": "escape.txt"})
        try:
            await s.read_resource("skill://pdf-tools/escape.txt")
        except Exception as exc:  # the SDK raises the server's error
            return tool, str(exc)
        return tool, None

    (tool, resource_error), _ = session_run(world, body)
    assert tool.is_error and "outside the skill folder" in text_of(tool)
    assert resource_error is not None and "outside the skill folder" in resource_error


def test_a_denied_skill_is_absent_everywhere(world):
    async def body(s, init):
        listed = await s.call_tool("list_skills", {})
        loaded = await s.call_tool("load_skill", {"skill_name": "hidden-notes"})
        prompts = await s.list_prompts()
        return listed, loaded, prompts

    (listed, loaded, prompts), _ = session_run(world, body)
    assert "hidden-notes" not in text_of(listed)
    assert loaded.is_error and "no available skill named 'hidden-notes'" in text_of(loaded)
    assert "hidden-notes" not in {p.name for p in prompts.prompts}


@pytest.mark.parametrize("answer", [True, False])
def test_an_ask_skill_needs_the_users_yes(world, answer):
    async def body(s, init):
        first = await s.call_tool("load_skill", {"skill_name": "guarded"})
        second = await s.call_tool("read_skill_file", {"skill_name": "guarded", "file_path": "SKILL.md"})
        return first, second

    (first, second), asked = session_run(world, body, answer=answer)
    assert asked and "guarded" in asked[0]
    if answer:
        assert not first.is_error and "Deploy carefully." in text_of(first)
        assert "Deploy carefully." in text_of(second) and len(asked) == 1  # asked once per session
    else:
        assert first.is_error and "did not approve" in text_of(first)
        assert "Deploy carefully." not in text_of(first) + text_of(second)


def test_an_ask_skill_is_refused_when_the_client_cannot_elicit(world):
    async def body(s, init):
        return await s.call_tool("load_skill", {"skill_name": "guarded"})

    result, asked = session_run(world, body, can_elicit=False)
    assert result.is_error and "cannot ask the user" in text_of(result) and not asked


def test_user_invocable_skills_are_prompts(world):
    async def body(s, init):
        listed = await s.list_prompts()
        got = await s.get_prompt("release-notes", {})
        return listed, got

    (listed, got), _ = session_run(world, body)
    names = {p.name for p in listed.prompts}
    assert {"release-notes", "pdf-tools", "guarded"} <= names and "hidden-notes" not in names
    assert "# Release notes" in got.messages[0].content.text


def test_help_and_bad_project(world, tmp_path):
    import subprocess

    shown = subprocess.run([SKILL, "mcp", "--help"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and "--agent" in shown.stdout and "--project" in shown.stdout
    bad = subprocess.run([SKILL, "mcp", "--project", str(tmp_path / "nope")], capture_output=True, text=True,
                         timeout=60, env={**os.environ, "HOME": str(world["home"])})
    assert bad.returncode != 0 and "is not a folder" in bad.stderr


@pytest.mark.parametrize(("uri", "why"), [
    ("skill://pdf-tools/%2e%2e/guarded/SKILL.md", "path must not contain '..'"),
    ("skill://pdf-tools/..%2fguarded/SKILL.md", "path must not contain '..'"),
    ("skill://pdf-tools/references%2f..%2f..%2fguarded/SKILL.md", "path must not contain '..'"),
    ("skill://pdf-tools/.git/config", "hidden files are not served"),
    ("skill://pdf-tools/nope.md", "nope.md is not a file in this skill"),
    ("skill://hidden-notes/SKILL.md", "no available skill named 'hidden-notes'"),
])
def test_resource_escapes_and_denied_skills_are_refused(world, uri, why):
    async def body(s, init):
        try:
            await s.read_resource(uri)
        except Exception as exc:  # the SDK raises the server's error with its message
            return str(exc)
        return None

    error, _ = session_run(world, body)
    assert error is not None and why in error


def test_the_server_module_imports_without_the_cli():
    import subprocess

    code = ("import sys, skillyard.runtime.mcp_server\n"
            "print(sorted(m for m in sys.modules if m.startswith('skillyard.cli')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_an_ask_skill_as_a_prompt_asks_too(world):
    async def body(s, init):
        return await s.get_prompt("guarded", {})

    got, asked = session_run(world, body, answer=True)
    assert len(asked) == 1 and "Deploy carefully." in got.messages[0].content.text
