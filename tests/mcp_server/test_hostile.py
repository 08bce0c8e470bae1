"""Hostile input through MCP: every path trick tests/runtime/test_files.py tries, on the tool and the resource, plus a
slow file (a FIFO nobody writes to), a huge file, wrong argument types, and a tool call storm over stdio."""

from __future__ import annotations

import os

import anyio
import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from tests.mcp_server.support import run_stdio, text_of  # noqa: E402
from tests.mcp_server.test_stdio import make_skill, world  # noqa: E402,F401 (a fixture)

TRICKS = ["../sibling/SKILL.md", "references/../../secret.txt", "/etc/passwd", "~/secret.txt", "C:/Windows/win.ini",
          "..%2Fsecret.txt", "%2e%2e/secret.txt", "references\\..\\..\\secret.txt", "SKILL.md\x00.txt", ".env",
          "out-link.md", "out-dir/secret.txt", "", "   ", ".", "references", "missing.md", "a\nb", "skill.lock.json",
          "slow.fifo", "huge.bin"]


@pytest.fixture
def hostile(world, tmp_path):  # noqa: F811
    user = world["user"]
    skill = make_skill(user, "demo", "A demo skill for hostile paths. Use in tests.", "Read references/guide.md.")
    (skill / "references").mkdir()
    (skill / "references" / "guide.md").write_text("guide text\n")
    (skill / ".env").write_text("TOKEN=x\n")
    (skill / "skill.lock.json").write_text("{}")  # bookkeeping is never served (and a bad lock refuses the skill)
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET\n")
    os.symlink(secret, skill / "out-link.md")
    os.symlink(tmp_path, skill / "out-dir")
    os.mkfifo(skill / "slow.fifo")
    with open(skill / "huge.bin", "wb") as handle:
        handle.truncate(64 * 1024 * 1024)  # sparse: 64 MiB on paper
    make_skill(user, "sibling", "A sibling skill. Use in tests.", "SIBLING")
    world["demo"] = skill
    return world


def test_every_trick_is_refused_by_tool_and_resource_without_hanging(hostile):
    (hostile["demo"] / "skill.lock.json").unlink()  # here: a hand-made skill, so the path rule is what refuses

    async def body(s, init):
        out = {}
        with anyio.fail_after(60):  # a FIFO read would block forever; a 64 MiB read would be slow
            for path in TRICKS:
                tool = await s.call_tool("read_skill_file", {"skill_name": "demo", "file_path": path})
                try:
                    await s.read_resource(f"skill://demo/{path}")
                    resource = None
                except Exception as exc:
                    resource = str(exc)
                out[path] = (tool, resource)
        return out

    out, _ = run_stdio(hostile, body)
    for path, (tool, resource) in out.items():
        assert tool.is_error, path
        assert "SECRET" not in text_of(tool) and "SIBLING" not in text_of(tool) and "TOKEN" not in text_of(tool)
        assert resource is None or "SECRET" not in resource
    assert "limit" in text_of(out["huge.bin"][0]) and "not a file" in text_of(out["slow.fifo"][0])


def test_a_bad_lock_in_a_skill_folder_refuses_the_skill(hostile):
    async def body(s, init):
        return await s.call_tool("read_skill_file", {"skill_name": "demo", "file_path": "references/guide.md"})

    result, _ = run_stdio(hostile, body)
    assert result.is_error and "skill.lock.json" in text_of(result)


@pytest.mark.parametrize("arguments", [{"skill_name": 3, "file_path": "SKILL.md"}, {"skill_name": "demo"},
                                       {"skill_name": ["demo"], "file_path": ["SKILL.md"]}, {},
                                       {"skill_name": "demo", "file_path": "SKILL.md", "extra": "x" * 100000}])
def test_wrong_arguments_are_errors_not_crashes(hostile, arguments):
    async def body(s, init):
        bad = await s.call_tool("read_skill_file", arguments)
        after = await s.call_tool("list_skills", {})  # the server is still there
        return bad, after

    (bad, after), _ = run_stdio(hostile, body)
    if "extra" in arguments:
        return  # unknown extra arguments are ignored by the SDK; the point is the server survives
    assert bad.is_error and "demo" in text_of(after)


def test_a_storm_of_concurrent_calls_over_stdio(hostile):
    (hostile["demo"] / "skill.lock.json").unlink()

    async def body(s, init):
        results = {}

        async def one(i):
            path = "references/guide.md" if i % 2 else TRICKS[i % len(TRICKS)]
            results[i] = (path, await s.call_tool("read_skill_file", {"skill_name": "demo", "file_path": path}))

        with anyio.fail_after(90):
            async with anyio.create_task_group() as group:
                for i in range(100):
                    group.start_soon(one, i)
        return results

    results, _ = run_stdio(hostile, body)
    assert len(results) == 100
    for path, result in results.values():
        if path == "references/guide.md":
            assert text_of(result) == "guide text\n"
        else:
            assert result.is_error
