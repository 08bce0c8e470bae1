import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import make_skill
from skillyard.runtime import ApprovalRequired, SkillFileError, SkillRuntime, files, tooldefs
from skillyard.runtime.discovery import Root


@pytest.fixture
def layout(tmp_path):
    root = tmp_path / "root"
    skill = make_skill(root, "demo", body="Read references/guide.md.\n")
    (skill / "references").mkdir()
    (skill / "references" / "guide.md").write_text("guide text\n", encoding="utf-8")
    (skill / ".env").write_text("TOKEN=x\n", encoding="utf-8")
    os.symlink("references/guide.md", skill / "inner-link.md")
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET\n", encoding="utf-8")
    os.symlink(secret, skill / "out-link.md")
    os.symlink(tmp_path, skill / "out-dir")
    make_skill(root, "sibling", body="SIBLING\n")
    return skill, secret


def test_reads_files_inside_the_skill(layout):
    skill, _ = layout
    assert files.read_in(skill, "references/guide.md") == "guide text\n"
    assert files.read_in(skill, "./references//guide.md") == "guide text\n"
    assert files.read_in(skill, "inner-link.md") == "guide text\n"  # a link that stays inside is fine


@pytest.mark.parametrize("path", [
    "../sibling/SKILL.md", "references/../../secret.txt", "/etc/passwd", "~/secret.txt", "C:/Windows/win.ini",
    "..%2Fsecret.txt", "%2e%2e/secret.txt", "references\\..\\..\\secret.txt", "SKILL.md\x00.txt", ".env",
    "out-link.md", "out-dir/secret.txt", "", "   ", ".", "references", "missing.md", "a\nb",
])
def test_refuses_escapes(layout, path):
    skill, _ = layout
    with pytest.raises(SkillFileError):
        files.read_in(skill, path)


def test_refuses_non_strings(layout):
    skill, _ = layout
    for value in (None, 3, ["SKILL.md"], b"SKILL.md"):
        with pytest.raises(SkillFileError):
            files.read_in(skill, value)


_PIECES = st.sampled_from(["..", ".", "", "%2e", "%2f", "%2E%2E", "\\", "/", "\x00", "~", "out-link.md",
                           "out-dir", "secret.txt", "references", "guide.md", "sibling", "SKILL.md", "C:", ".env"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(_PIECES | st.text(max_size=4), min_size=1, max_size=6), sep=st.sampled_from(["/", "\\", ""]))
def test_no_path_ever_leaves_the_skill(layout, parts, sep):
    skill, secret = layout
    path = sep.join(parts)
    try:
        real = files.resolve_in(skill, path)
    except SkillFileError:
        return
    base = os.path.realpath(skill)
    assert real.startswith(base + os.sep)
    assert os.path.realpath(real) == real
    assert files.read_in(skill, path) != "SECRET\n"


def test_runtime_serves_only_known_skills_and_asks(tmp_path, layout):
    root = tmp_path / "root"
    rt = SkillRuntime([Root(str(root), "user", 200)], rules=[("sibling", "ask")], cache_dir=False)
    assert rt.read_skill_file("demo", "references/guide.md") == "guide text\n"
    assert rt.handle_tool_call("read_skill_file", {"skill": "demo", "path": "../sibling/SKILL.md"}).startswith("error:")
    assert rt.handle_tool_call("read_skill_file", {"skill": "nope", "path": "SKILL.md"}) == \
        "error: no available skill named 'nope'"
    with pytest.raises(ApprovalRequired):
        rt.read_skill_file("sibling", "SKILL.md")
    approving = SkillRuntime([Root(str(root), "user", 200)], rules=[("sibling", "ask")], cache_dir=False,
                             approve=lambda name: name == "sibling")
    assert "SIBLING" in approving.read_skill_file("sibling", "SKILL.md")
    denied = SkillRuntime([Root(str(root), "user", 200)], rules=[("demo", "deny")], cache_dir=False)
    with pytest.raises(SkillFileError):
        denied.read_skill_file("demo", "SKILL.md")


def test_tool_definitions_for_each_provider(tmp_path, layout):
    rt = SkillRuntime([Root(str(tmp_path / "root"), "user", 200)], cache_dir=False)
    (openai,) = rt.tools("openai")
    assert openai["type"] == "function" and openai["function"]["name"] == "read_skill_file"
    parameters = openai["function"]["parameters"]
    assert parameters["properties"]["skill_name"]["enum"] == ["demo", "sibling"]  # design 001 §5.2's shape
    assert parameters["required"] == ["skill_name", "file_path"]
    (responses,) = rt.tools("openai-responses")
    assert responses["name"] == "read_skill_file" and "function" not in responses
    (anthropic,) = rt.tools("anthropic")
    assert set(anthropic) == {"name", "description", "input_schema"}
    (gemini,) = rt.tools("gemini")
    assert gemini["parameters"]["type"] == "OBJECT" and "additionalProperties" not in gemini["parameters"]
    with pytest.raises(ValueError):
        tooldefs.read_skill_file_tool("cohere")
