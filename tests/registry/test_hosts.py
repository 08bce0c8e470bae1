"""Issue 12 item 2: `[tool.skillyard]` names where files are served (GitHub, GitHub Enterprise, a static base);
every form compiles to a registry.json the schema accepts and the client resolves to the expected URLs."""

import pytest

from skillyard.client.resolve import file_url
from skillyard.errors import SkillyardError
from skillyard.format.schemas import check_document
from skillyard.registry.config import RegistryConfig

COMMIT = "0123456789abcdef0123456789abcdef01234567"
SKILL = {"name": "pdf", "path": "skills/pdf", "commit": COMMIT}


def registry(block: dict) -> dict:
    return {"schema_version": "1.0", "name": "r", "description": "", "repository": block, "skills": []}


def block(tmp_path, **section) -> dict:
    return RegistryConfig(tmp_path, section).repository_block()


def test_github_default_is_unchanged(tmp_path):
    got = block(tmp_path, repository="acme/skills")
    assert got == {"url": "https://github.com/acme/skills", "slug": "acme/skills",
                   "raw_url_template": "https://raw.githubusercontent.com/acme/skills/{commit}/{path}"}
    assert block(tmp_path, repository="acme/skills", host="github") == got


@pytest.mark.parametrize(("raw", "web"), [("https://ghe.corp.example/raw", "https://ghe.corp.example"),
                                          ("https://raw.ghe.corp.example", "https://ghe.corp.example")])
def test_github_enterprise_raw_host(tmp_path, raw, web):
    got = block(tmp_path, host="github-enterprise", repository="team/skills", raw_url=raw + "/")
    assert got["raw_url_template"] == f"{raw}/team/skills/{{commit}}/{{path}}"
    assert got["url"] == f"{web}/team/skills"
    doc = registry(got)
    check_document("registry", doc, what="registry.json")
    assert file_url(doc, SKILL, "scripts/a b.py") == f"{raw}/team/skills/{COMMIT}/skills/pdf/scripts/a%20b.py"


def test_static_relative_to_registry_json(tmp_path):
    for section in ({}, {"host": "static"}, {"host": "static", "repository": "acme/skills"}):
        got = block(tmp_path, **section)
        assert got["raw_url_template"] == "{path}"
        check_document("registry", registry(got), what="registry.json")
    doc = registry(block(tmp_path))
    base = "http://127.0.0.1:8000/mirror/registry.json"
    assert file_url(doc, SKILL, "SKILL.md", base=base) == "http://127.0.0.1:8000/mirror/skills/pdf/SKILL.md"
    # a colon in the path is quoted, so the relative URL can never become a scheme or a host
    assert file_url(doc, {**SKILL, "path": "https:evil"}, "x", base=base) == \
        "http://127.0.0.1:8000/mirror/https%3Aevil/x"
    with pytest.raises(SkillyardError, match="relative to its registry.json"):
        file_url(doc, SKILL, "SKILL.md")


def test_static_absolute_base(tmp_path):
    got = block(tmp_path, host="static", files_url="https://cdn.example/skills-mirror/")
    assert got["raw_url_template"] == "https://cdn.example/skills-mirror/{path}"
    doc = registry(got)
    check_document("registry", doc, what="registry.json")
    assert file_url(doc, SKILL, "SKILL.md", base="https://elsewhere.example/registry.json") == \
        "https://cdn.example/skills-mirror/skills/pdf/SKILL.md"


@pytest.mark.parametrize(("section", "key"), [
    ({"host": "gitlab"}, "host"),
    ({"host": "github"}, "repository"),
    ({"host": "github", "repository": "just-a-name"}, "repository"),
    ({"host": "github-enterprise", "repository": "a/b"}, "raw_url"),
    ({"host": "github-enterprise", "repository": "a/b", "raw_url": "ftp://ghe/raw"}, "raw_url"),
    ({"host": "static", "files_url": "javascript:alert(1)"}, "files_url"),
    ({"host": "static", "files_url": "https://user:pw@cdn.example/x"}, "files_url"),
    ({"host": "static", "files_url": "https://cdn.example/x?sig=1"}, "files_url"),
    ({"host": "static", "files_url": "https://cdn.example/{commit}"}, "files_url"),
    ({"raw_url_template": "file:///srv/{path}?commit={commit}"}, "raw_url_template"),
])
def test_bad_settings_name_the_key_and_the_fix(tmp_path, section, key):
    with pytest.raises(SkillyardError) as info:
        block(tmp_path, **section)
    assert f"`{key}`" in info.value.message and "pyproject.toml [tool.skillyard]" in info.value.message
    assert info.value.fix


def test_build_stops_on_a_bad_host_with_a_message(tmp_path, capsys):
    from skillyard.cli.main import skillyard_main

    (tmp_path / "skills").mkdir()
    (tmp_path / "skillyard.toml").write_text('host = "gitlab"\n')
    assert skillyard_main(["build", "--root", str(tmp_path)]) != 0
    err = capsys.readouterr().err
    assert "skillyard.toml: `host` is 'gitlab'" in err and "Traceback" not in err
    assert not (tmp_path / "registry.json").exists()


@pytest.mark.parametrize("template", [
    "", "skills", "{commit}", "https://x/{path}/{commit}", "{path}?commit={commit}", "javascript:{path}",
    "https://x/a?{path}", "https://x/{path}.txt", "../{path}", "//evil.example/{path}", "https://x {path}",
    "file:///root/{path}?commit={commit}",
])
def test_schema_refuses_nonsense_templates(template):
    with pytest.raises(SkillyardError):
        check_document("registry", registry({"url": "", "raw_url_template": template}), what="registry.json")


@pytest.mark.parametrize("template", [
    "{path}", "https://cdn.example/{path}", "http://127.0.0.1:8000/a/b/{path}",
    "https://raw.githubusercontent.com/a/b/{commit}/{path}", "https://ghe.example/raw/a/b/{commit}/{path}",
])
def test_schema_accepts_every_form_build_produces(template):
    check_document("registry", registry({"url": "", "raw_url_template": template}), what="registry.json")
