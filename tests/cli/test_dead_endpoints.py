"""Issue 13 item 9: every command that can touch the network, run against an endpoint that is down (nothing
listening), hangs up, answers 500, or answers garbage, fails with a clear one-line error naming the URL and a fix:
non-zero exit, never a traceback."""

import json
import traceback

import pytest
import yaml
from tests.cli.deadends import KINDS, dead_endpoint

from skillyard.client.config import load_config

SKILL_COMMANDS = {
    "search": ["search", "pdf"],
    "info": ["info", "pdf-tools"],
    "install": ["install", "pdf-tools"],
    "install-github": ["install", "github:acme/skills"],
    "source-add": ["source", "add", "{base}/other/registry.json"],
    "source-refresh": ["source", "refresh"],
    "check-deps": ["check-deps", "pdf-tools"],
    "doctor": ["doctor"],
    "publish": ["publish", "{skill}", "--registry", "acme/skills", "--api-url", "{base}"],
    "generate": ["generate", "Summarise a CSV file's columns and spot missing values", "--out", "{out}"],
}
SKILLYARD_COMMANDS = {
    "bot-report": ["bot", "report", "--repo", "acme/skills", "--pr", "1", "--artifact", "{artifact}",
                   "--api-url", "{base}"],
    "bot-automerge": ["bot", "automerge", "--repo", "acme/skills", "--pr", "1", "--api-url", "{base}"],
}


def run_cli(main, argv, capsys):
    """Run a command in-process; an exception escaping it is what would be a traceback."""
    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    except BaseException:
        pytest.fail("the command let an exception escape (a traceback for the user):\n" + traceback.format_exc())
    out, err = capsys.readouterr()
    return code, out, err


def assert_clear_failure(code, out, err, base):
    where = base.split("//", 1)[1]
    assert code != 0, (out, err)
    assert "Traceback" not in err and "Traceback" not in out
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    if errors:  # the usual shape: one `error:` line naming the URL, then `  fix: ...`
        assert len(errors) == 1, err
        assert where in errors[0], err
        assert "  fix: " in err, err
    else:  # doctor, source refresh: a report on stdout whose failing line names the URL, with its fix
        failing = [line for line in out.splitlines() if ("[FAIL]" in line or "failed" in line) and where in line]
        assert failing, out
        assert "fix: " in out


@pytest.fixture
def dead_setup(skill_home, tmp_path, monkeypatch):
    """Everything the client and the bots talk to points at `base`; yields a function making the argv."""
    def setup(base):
        monkeypatch.setenv("SKILL_DEFAULT_SOURCE", f"{base}/registry.json")
        for name in ("SKILL_GITHUB_RAW_URL", "SKILL_GITHUB_CODELOAD_URL", "SKILL_GITHUB_API_URL", "GITHUB_API_URL"):
            monkeypatch.setenv(name, base)
        monkeypatch.setenv("SKILL_HTTP_RETRIES", "1")
        monkeypatch.setenv("GITHUB_TOKEN", "test-token-not-secret")
        skill_home.mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv("TEST_MODEL_KEY", "test-key-not-secret")
        (skill_home / "config.yaml").write_text(yaml.safe_dump({
            "mcp_hub": {"endpoint": f"{base}/hub", "timeout": 2000},
            "generate": {"base_url": f"{base}/v1", "model": "test-model", "api_key_env": "TEST_MODEL_KEY",
                         "timeout": 5}}))
        skill = tmp_path / "pdf-tools"
        if not skill.exists():
            from skillyard.cli.main import skill_main

            assert skill_main(["init", "pdf-tools", "--description", "Merge, split and fill PDF forms. Use for any "
                               "PDF.", "--tags", "pdf", "--dir", str(tmp_path)]) == 0
        artifact = tmp_path / "report.json"
        artifact.write_text(json.dumps({
            "schema_version": "1.0", "mode": "strict", "ok": True, "skills": [],
            "summary": {"skills": 0, "valid": 0, "invalid": 0, "errors": 0, "warnings": 0}}))
        out = tmp_path / "drafts"
        out.mkdir(exist_ok=True)
        return {"base": base, "skill": str(skill), "artifact": str(artifact), "out": str(out)}

    return setup


# Known gap, owned by client/github.py: a codeload answer that is not a tarball is reported without its URL.
NAMES_NO_URL: set[tuple[str, str]] = set()  # (command, kind) pairs whose error does not name the URL yet


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", [*SKILL_COMMANDS, *SKILLYARD_COMMANDS])
def test_command_against_dead_endpoint(dead_setup, capsys, command, kind, request):
    from skillyard.cli.main import skill_main, skillyard_main

    if (command, kind) in NAMES_NO_URL:
        request.applymarker(pytest.mark.xfail(strict=True, reason="client/github.py: archive error lacks the URL"))

    with dead_endpoint(kind) as base:
        values = dead_setup(base)
        template = SKILL_COMMANDS.get(command) or SKILLYARD_COMMANDS[command]
        argv = [part.format(**values) for part in template]
        main = skill_main if command in SKILL_COMMANDS else skillyard_main
        code, out, err = run_cli(main, argv, capsys)
    assert_clear_failure(code, out, err, base)
    # nothing half-written: no draft, no source, no installed skill
    from pathlib import Path

    assert list(Path(values["out"]).iterdir()) == []
    assert load_config().stored_sources == []
    assert not (Path.home() / ".agents" / "skills" / "pdf-tools").exists()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", [["update", "--all"], ["outdated"]])
def test_installed_skill_against_dead_source(published, skill_cli, capsys, monkeypatch, command, kind):
    from skillyard.cli.main import skill_main

    assert skill_cli("source", "add", published.url, "--name", "acme").code == 0
    assert skill_cli("install", "pdf-tools", "--skip-deps-check").code == 0
    monkeypatch.setenv("SKILL_CACHE_TTL", "0")
    with dead_endpoint(kind) as base:
        config = load_config()
        data = dict(config.data)
        data["sources"] = [{**data["sources"][0], "url": f"{base}/registry.json"}]
        config.path.write_text(yaml.safe_dump(data))
        for name in ("SKILL_GITHUB_RAW_URL", "SKILL_GITHUB_CODELOAD_URL"):
            monkeypatch.setenv(name, base)
        code, out, err = run_cli(skill_main, command, capsys)
    assert_clear_failure(code, out, err, base)
