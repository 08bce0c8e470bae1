"""Every `--json` output of `skill` and `skillyard` has a JSON Schema in schemas/cli/, and what the commands really
print matches it (issue 27 item 9). Each command is run here for real, against a registry served on 127.0.0.1,
at least once succeeding and once failing; the bot's two commands run in tests/bot/test_json_schemas_bot.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest
from tests.client_adapters.test_generate import stub  # noqa: F401 (a chat-completions server on 127.0.0.1)
from tests.client_adapters.test_plugins import GOOD as PLUGIN
from tests.client_adapters.test_plugins import make_wheel, venv  # noqa: F401 (venv: a fixture)
from tests.client_adapters.test_plugins import skill as skill_in
from tests.support.cli_schemas import CLI, check_output, json_commands, schema_file
from tests.support.fixtures import git_server, published, skill_home  # noqa: F401
from tests.support.registry import skill_md

from skillyard.cli.common import JSON_FORMAT
from skillyard.cli.main import skill_main, skillyard_main

NEVER_FAILS = {"skill adapter list": "a broken plugin package is reported in its `problems`; the table always prints"}
ELSEWHERE = {"skill mcp add": "tests/mcp_server/test_mcp_add.py",
             "skillyard bot report": "tests/bot/test_json_schemas_bot.py",
             "skillyard bot automerge": "tests/bot/test_json_schemas_bot.py",
             "skillyard bot record-verification": "tests/bot/test_record_verification.py",
             "skillyard bot open-bump-prs": "tests/bot/test_bump_prs.py",
             "skillyard external bump": "tests/registry/test_external_bump.py",
             "skill mcp": "tests/mcp_server/test_http.py"}
SKILL_MD = ("---\nname: tidy-notes\ndescription: Turns rough meeting notes into a tidy summary. Use when the user "
            "pastes notes.\nlicense: MIT\n---\n\n# Tidy notes\n\nWrite one line per decision.\n")
GENERATED = ("---\nname: csv-summary\ndescription: Summarises a CSV file's columns and missing values. Use when the "
             "user shares a CSV file.\n---\n\n# CSV summary\n\n1. Read the header.\n")


class Runs:
    """Runs commands in-process, checks each output against its schema, and remembers which exit codes were seen."""

    def __init__(self, capsys):
        self.capsys = capsys
        self.seen: dict[str, set[bool]] = {}

    def __call__(self, main, command: str, argv: list, *, ok: bool) -> dict:
        self.capsys.readouterr()
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:
            code = int(exc.code or 0)
        out = self.capsys.readouterr().out
        assert (code == 0) == ok, (command, argv, code, out[:800])
        self.seen.setdefault(command, set()).add(ok)
        return check_output(command, code, out)

    def skill(self, command: str, *argv, ok: bool = True) -> dict:
        return self(skill_main, command, [*command.split()[1:], *argv, "--json"], ok=ok)

    def skillyard(self, command: str, *argv, ok: bool = True) -> dict:
        return self(skillyard_main, command, [*command.split()[1:], *argv, "--json"], ok=ok)

    def covered(self, prefix: str, *, besides: dict[str, set[bool]]) -> None:
        wanted = {c for c in json_commands() if c.startswith(prefix + " ") and c not in ELSEWHERE}
        seen = {c: self.seen.get(c, set()) | besides.get(c, set()) | ({False} if c in NEVER_FAILS else set())
                for c in wanted}
        assert {c: s for c, s in seen.items() if s != {True, False}} == {}, "commands not run both ways"


@pytest.fixture
def runs(capsys):
    return Runs(capsys)


def test_every_command_with_json_has_a_schema_and_every_schema_a_command():
    commands = json_commands()
    assert len(commands) >= 30 and "skill source add" in commands and "skillyard site serve" in commands
    missing = [c for c in commands if not schema_file(c).is_file()]
    assert missing == [], f"add schemas/cli/<command>.schema.json for {missing}"
    files = {p.name for p in CLI.glob("*.schema.json")} - {"common.schema.json"}
    assert files == {schema_file(c).name for c in commands}
    assert set(ELSEWHERE) <= set(commands)


def test_the_schema_files_are_valid_deterministic_and_tied_to_the_format():
    from jsonschema import Draft202012Validator
    from tests.format.test_schema_keywords import unknown_keywords

    ids = set()
    for path in sorted(CLI.glob("*.schema.json")):
        text = path.read_text(encoding="utf-8")
        schema = json.loads(text)
        Draft202012Validator.check_schema(schema)
        assert text == json.dumps(schema, indent=2, ensure_ascii=False) + "\n", f"{path.name}: not in canonical form"
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["$id"] == f"https://skillyard.github.io/registry/schemas/cli/{JSON_FORMAT}/{path.name}", path
        assert unknown_keywords(schema) == [], path.name
        ids.add(schema["$id"])
    for command in json_commands():
        schema = json.loads(schema_file(command).read_text(encoding="utf-8"))
        if command.startswith("skill "):  # `skill` outputs carry the label; its json_format is the schema's
            label = schema["properties"]["skillyard"]["properties"]
            assert label == {"command": {"const": " ".join(command.split()[:2])}, "json_format": {"const": JSON_FORMAT}}
        else:
            assert "skillyard" not in schema.get("properties", {}), command
    assert len(ids) == len(list(CLI.glob("*.schema.json")))
    packaged = Path(__import__("skillyard").__file__).parent / "schemas" / "cli"
    assert sorted(p.name for p in packaged.glob("*.json")) == sorted(p.name for p in CLI.glob("*.json"))
    for path in CLI.glob("*.json"):
        assert (packaged / path.name).read_bytes() == path.read_bytes()


def test_an_output_the_schema_does_not_describe_fails():
    from tests.support.cli_schemas import cli_schema_errors

    label = {"version": "0.1.0", "command": "skill source", "json_format": JSON_FORMAT}
    good = {"ok": True, "removed": {"name": "acme", "url": "https://x/registry.json", "priority": 1}, "skillyard": label}
    assert cli_schema_errors("skill source remove", good) == []
    assert cli_schema_errors("skill source remove", {**good, "surprise": 1}) != []  # a field the schema does not name
    assert cli_schema_errors("skill source remove", {**good, "skillyard": {**label, "json_format": 2}}) != []
    assert cli_schema_errors("skill source remove", {"ok": False, "error": "no", "skillyard": label}) == []
    assert cli_schema_errors("skill source remove", {"ok": False, "message": "no", "skillyard": label}) != []
    assert cli_schema_errors("skill source remove", {"ok": False, "error": "no"}, closed=False) != []  # no label


def test_the_page_lists_every_command_its_schema_and_is_in_the_navigation():
    root = CLI.parents[1]
    page = (root / "site" / "pages" / "json-output.md").read_text(encoding="utf-8")
    for command in json_commands():
        name = schema_file(command).name
        assert f"| `{command}` | [`{name}`](https://github.com/skillyard/registry/blob/main/schemas/cli/{name}) |" \
            in page, command
    assert "Machine-readable output: json-output.md" in (root / "mkdocs.yml").read_text(encoding="utf-8")
    assert "site/pages/json-output.md" in (root / "README.md").read_text(encoding="utf-8")
    from skillyard.cli.main import build_parser

    for prog, package in (("skill", "skillyard.cli.skill_cmds"), ("skillyard", "skillyard.cli.skillyard_cmds")):
        assert "schemas/cli/" in build_parser(prog, package, "").format_help(), prog  # `skill --help` says where


@pytest.fixture
def world(tmp_path, monkeypatch, published):  # noqa: F811
    for kind in ("CACHE", "CONFIG", "DATA"):
        monkeypatch.setenv(f"XDG_{kind}_HOME", str(tmp_path / "xdg" / kind.lower()))
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    folder = tmp_path / "src" / "tidy-notes"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    (folder / "skill.yaml").write_text('schema_version: "1.0"\nversion: 1.0.0\ntags:\n  - notes\n', encoding="utf-8")
    return published.url, project, folder


def test_every_skill_command_prints_what_its_schema_says(world, runs, stub, tmp_path):  # noqa: F811
    url, project, folder = world
    missing = project / "missing"
    runs.skill("skill source add", url)
    runs.skill("skill source add", project / "nowhere.json", ok=False)
    runs.skill("skill source list")
    runs.skill("skill source refresh")
    runs.skill("skill source refresh", "nope", ok=False)
    runs.skill("skill source priority", "acme", "5")
    runs.skill("skill source priority", "nope", "5", ok=False)
    runs.skill("skill search", "pdf")
    runs.skill("skill search", "pdf", "--source", "nope", ok=False)
    runs.skill("skill info", "invoice-processor")
    runs.skill("skill info", folder)
    runs.skill("skill info", "no-such-skill", ok=False)
    runs.skill("skill install", "pdf-tools", "--target", "agents", "--project", "--dry-run")
    runs.skill("skill install", "pdf-tools", "--target", "agents", "--project")
    runs.skill("skill install", "invoice-processor", "--target", "claude-code", "--project")
    runs.skill("skill install", folder, "--target", "agents")
    runs.skill("skill install", "pdf-tool", "--project", ok=False)
    runs.skill("skill list")
    runs.skill("skill list", "--project-dir", missing)
    runs.skill("skill outdated", "--all")
    runs.skill("skill update", "--all", "--dry-run")
    runs.skill("skill update", "--all")
    runs.skill("skill update", "no-such", ok=False)
    runs.skill("skill check-deps")
    runs.skill("skill check-deps", "no-such", ok=False)
    runs.skill("skill doctor")
    runs.skill("skill evolve add", "tidy-notes", "--title", "t", "--content", "c", "--trigger", "x", "--author", "me")
    runs.skill("skill evolve add", "no-such", "--title", "t", "--content", "c", ok=False)
    runs.skill("skill evolve list", "tidy-notes")
    runs.skill("skill evolve list", "no-such", ok=False)
    runs.skill("skill prompt", "--root", folder.parent)
    runs.skill("skill prompt", "--root", folder.parent, "--report")
    runs.skill("skill prompt", "--root", missing, ok=False)
    runs.skill("skill emit", folder, "--target", "openai", "--out", project / "emitted")
    runs.skill("skill emit", folder, "--target", "nope", "--out", project / "emitted2", ok=False)
    runs.skill("skill validate", folder)
    runs.skill("skill validate", folder, "--strict", "--target", "openai")
    runs.skill("skill validate", missing, ok=False)
    runs.skill("skill init", "fresh-one", "--dir", project / "new")
    runs.skill("skill init", "Bad Name", "--dir", project / "new", ok=False)
    runs.skill("skill publish", folder, "--dry-run")
    runs.skill("skill publish", missing, "--dry-run", ok=False)
    runs.skill("skill generate", "notes helper", "--dry-run", ok=False)  # no endpoint configured yet
    runs.skill("skill config list")
    runs.skill("skill config get", "cache.ttl")
    runs.skill("skill config get", "no.such", ok=False)
    runs.skill("skill config set", "cache.ttl", "60")
    runs.skill("skill config set", "cache.ttl", "soon", ok=False)
    runs.skill("skill config unset", "cache.ttl")
    runs.skill("skill config unset", "no.such", ok=False)
    runs.skill("skill config set", "generate.base_url", stub.url)
    runs.skill("skill config set", "generate.model", "tiny-model")
    stub.answer = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": GENERATED}}]}).encode()
    runs.skill("skill generate", "Summarise CSV files", "--dry-run")
    runs.skill("skill generate", "Summarise CSV files", "--out", project / "generated")
    runs.skill("skill adapter list")
    runs.skill("skill adapter install", "claude-code", "--yes", ok=False)
    runs.skill("skill permissions list")
    runs.skill("skill uninstall", "pdf-tools", "--project")
    runs.skill("skill uninstall", "no-such", ok=False)
    runs.skill("skill source add", "http://127.0.0.1:9/registry.json", "--name", "gone", "--no-fetch")
    refreshed = runs.skill("skill source refresh", ok=False)  # one source fails: a row with its error, ok false
    assert [s["status"] for s in refreshed["sources"]].count("failed") == 1
    runs.skill("skill doctor", ok=False)  # the unreachable source fails the doctor
    runs.skill("skill source remove", "gone")
    runs.skill("skill source remove", "gone", ok=False)
    (Path(os.environ["SKILLCLI_HOME"]) / "approvals.json").write_text("{not json", encoding="utf-8")
    runs.skill("skill permissions list", ok=False)
    (Path(os.environ["SKILLCLI_HOME"]) / "config.yaml").write_text("sources: 5\n", encoding="utf-8")
    runs.skill("skill outdated", ok=False)  # config.yaml is broken: every command says so
    runs.skill("skill list", "--user", "--project", ok=False)  # two scopes that exclude each other
    runs.skill("skill source list", ok=False)
    (Path(os.environ["SKILLCLI_HOME"]) / "config.yaml").write_text("- a list\n", encoding="utf-8")
    runs.skill("skill config list", ok=False)
    runs.covered("skill", besides={"skill adapter install": {True}})  # its success: the test below


def test_adapter_install_prints_what_its_schema_says(tmp_path, venv):  # noqa: F811
    wheel = make_wheel(tmp_path / "dist", "lcw", PLUGIN.replace('"langchain"', '"lc-wheel"'), "lc-wheel")
    done = skill_in("adapter", "install", wheel, "--yes", "--json", python=venv, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert check_output("skill adapter install", 0, done.stdout)["new_targets"] == ["lc-wheel"]


@pytest.fixture
def upstream(git_server, monkeypatch):  # noqa: F811
    monkeypatch.setenv("SKILL_GITHUB_API_URL", git_server.url)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    git_server.create_repo("up", "skills", {"skills/alpha/SKILL.md": skill_md(
        "alpha", "Does alpha things. Use when the user asks for alpha.", version="2.1.0", license="MIT")})
    return git_server


def test_every_skillyard_command_prints_what_its_schema_says(tmp_path, monkeypatch, runs, upstream):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "reg"
    runs.skillyard("skillyard init-registry", root, "--host", "static", "--description", "Test skills")
    runs.skillyard("skillyard init-registry", root, ok=False)  # not empty
    skills = sorted(p for p in (root / "skills").iterdir() if p.is_dir())
    runs.skillyard("skillyard validate", "--root", root)
    runs.skillyard("skillyard validate", skills[0], "--strict")
    runs.skillyard("skillyard validate", tmp_path / "missing", ok=False)
    runs.skillyard("skillyard migrate", skills[0], "--to-standard", "--dry-run")
    runs.skillyard("skillyard migrate", skills[0], tmp_path / "missing", "--to-standard", "--dry-run", ok=False)
    runs.skillyard("skillyard migrate", tmp_path / "missing", "--to-standard", ok=False)
    runs.skillyard("skillyard build", "--root", root, "--serve-dir", tmp_path / "served")
    runs.skillyard("skillyard build", "--root", root, "--check")
    runs.skillyard("skillyard build", "--root", tmp_path / "missing", ok=False)
    (root / "registry.json").write_text("{}\n", encoding="utf-8")
    stale = runs.skillyard("skillyard build", "--root", root, "--check", ok=False)
    assert stale["stale"] and stale["error"].startswith("out of date") and stale["fix"]
    broken = skills[0] / "SKILL.md"
    kept = broken.read_bytes()
    broken.write_text("no frontmatter\n", encoding="utf-8")
    invalid = runs.skillyard("skillyard build", "--root", root, ok=False)
    assert invalid["invalid"] and invalid["fix"]
    runs.skillyard("skillyard validate", "--root", root, ok=False)  # the report, with ok false
    broken.write_bytes(kept)
    runs.skillyard("skillyard build", "--root", root)
    runs.skillyard("skillyard site build", "--root", root)
    runs.skillyard("skillyard site build", "--root", tmp_path / "missing", ok=False)
    runs.skillyard("skillyard site serve", "--root", root, "--out", tmp_path / "empty", "--no-build", ok=False)
    runs.skillyard("skillyard external add", "github:up/skills/skills/alpha@main", "--root", root)
    runs.skillyard("skillyard external add", "github:up/skills/skills/nothing@main", "--root", root, ok=False)
    runs.skillyard("skillyard external verify", "--root", root)
    runs.skillyard("skillyard external verify", "no-such-pointer", "--root", root, ok=False)
    runs.skillyard("skillyard external refresh-findings", "--root", root)
    runs.skillyard("skillyard external refresh-findings", "no-such-pointer", "--root", root, ok=False)
    pointer = root / "skills" / "alpha" / "source.yaml"
    recorded = re.search(r"sha256: ([0-9a-f]{64})", pointer.read_text(encoding="utf-8")).group(1)
    pointer.write_text(pointer.read_text(encoding="utf-8").replace(recorded, "a" * 64), encoding="utf-8")
    verified = runs.skillyard("skillyard external verify", "--root", root, ok=False)  # a recorded fact is wrong
    assert verified["pointers"][0]["differences"][0]["kind"] == "changed"
    refused = runs.skillyard("skillyard external refresh-findings", "--root", root, ok=False)  # files differ
    assert refused["pointers"][0]["status"] == "failed"
    assert set(serve_json(root, "--no-build")) == {"ok", "out", "url"}
    assert serve_json(root)["pages"] > 0  # built first: the build's summary too
    runs.covered("skillyard", besides={"skillyard site serve": {True}})


def serve_json(root: Path, *extra: str) -> dict:
    """`skillyard site serve --port 0 --json` in its own process: the JSON it prints once it listens (the server
    then runs until stopped; it is stopped here, and must have printed nothing else on stdout)."""
    command = [sys.executable, "-c", "from skillyard.cli.main import skillyard_main; import sys; "
               "sys.exit(skillyard_main(sys.argv[1:]))", "site", "serve", "--root", str(root), "--port", "0",
               "--json", *extra]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    complete = threading.Event()

    def read() -> None:  # the object ends with a line "}"; a server that never prints one must not hang the test
        for line in process.stdout:
            lines.append(line)
            if line.rstrip() == "}":
                break
        complete.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        complete.wait(120)
        served = check_output("skillyard site serve", 0, "".join(lines))
        with urllib.request.urlopen(served["url"], timeout=30) as answer:  # noqa: S310 (127.0.0.1)
            assert answer.status == 200
    finally:
        process.terminate()
        process.wait(timeout=30)
    complete.wait(30)
    rest, err = process.stdout.read(), process.stderr.read()
    process.stdout.close()
    process.stderr.close()
    assert rest == "", rest  # the request log and the "serving" line went to stderr
    assert "GET / " in err and "serving " in err
    return served
